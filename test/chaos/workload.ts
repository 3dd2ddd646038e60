// The chaos workload: writers that overwrite stripe units of, and append
// units to, a set of files, and readers that read them back, every operation
// recorded in the history. Writers of one file take turns (a per-file lock):
// stripefs orders the copies of writes by their writers' stamps and states
// its guarantee for writers that do not overlap on the same bytes (concurrent
// writers to one ec stripe would also race on its parity, as on any RAID).
// Writers of different files, and every reader, run at once.
import { type Layout, parseLayout, type StripeClient } from '../../client/index.js';
import type { Random } from '../../common/random.js';
import { CELL_BAD, decodeUnit, writeContents } from './contents.js';
import type { History } from './history.js';
import { settleRange } from './settle.js';

export interface ChaosFile {
  path: string;
  /** Its number in every cell header. */
  fileNo: number;
  layout: Layout;
  /** Bytes per stripe unit (the checker's granularity). */
  unitBytes: number;
  /** Overwrites cover whole runs of this many bytes from such a boundary (ec: k units, a whole stripe). */
  overwriteBytes: number;
  /** The file stops growing here; writes only overwrite after. */
  sizeMaxBytes: number;
  /** Held by the writer writing it. */
  busy: boolean;
}

/** Units one write appends or overwrites at most (runs of units for replicated, stripes for ec). */
const WRITE_RUNS_MAX = 3;
/** Pause between two operations of one worker at most (ms, seeded): leaves the servers some CPU. */
const WORKER_PAUSE_MS_MAX = 60;
/** Pause after a failed operation (ms): a worker does not spin while the MDS is down. */
const WORKER_FAILED_PAUSE_MS = 250;
/** Attempts at one settle write once the faults stopped (each a whole open, write and close). */
const SETTLE_TRIES_MAX = 40;

export function chaosFiles(layouts: string[], perLayout: number, sizeMaxBytes: number): ChaosFile[] {
  const files: ChaosFile[] = [];
  for (const [l, text] of layouts.entries())
    for (let i = 0; i < perLayout; i++) {
      const layout = parseLayout(text);
      const unitBytes = layout.stripeSize as number;
      const overwriteBytes = layout.pattern === 'ec' ? (layout.k as number) * unitBytes : unitBytes;
      files.push({
        path: `/chaos/l${l}-f${i}`,
        fileNo: files.length + 1,
        layout,
        unitBytes,
        overwriteBytes,
        sizeMaxBytes: Math.max(overwriteBytes, Math.floor(sizeMaxBytes / overwriteBytes) * overwriteBytes),
        busy: false,
      });
    }
  return files;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * A call's value or its failure as text: the registry code when it has one, else UNCODED (every
 * failure of the client should carry a code; the history keeps those that do not).
 */
async function attempt<T>(work: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await work };
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    const name = typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code) ? code : 'UNCODED';
    return { ok: false, error: `${name}: ${String((err as Error)?.message ?? err).slice(0, 200)}` };
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const pause = (random: Random): Promise<void> => sleep(random.int(WORKER_PAUSE_MS_MAX + 1));

/** Where a write goes once the file's size is known: an append at the end or an overwrite inside. */
function planWrite(
  file: ChaosFile,
  sizeBytes: number,
  random: Random,
): { offsetBytes: number; lengthBytes: number } {
  const runs = 1 + random.int(WRITE_RUNS_MAX);
  const whole = Math.floor(sizeBytes / file.overwriteBytes);
  const append = sizeBytes < file.sizeMaxBytes && (whole === 0 || random.int(5) < 2);
  if (append) {
    // Appends add whole units (ec: any number of units; the writer re-encodes a partial last stripe).
    const room = Math.max(1, Math.floor((file.sizeMaxBytes - sizeBytes) / file.unitBytes));
    return { offsetBytes: sizeBytes, lengthBytes: Math.min(room, runs) * file.unitBytes };
  }
  const first = random.int(whole);
  const count = Math.min(runs, whole - first);
  return { offsetBytes: first * file.overwriteBytes, lengthBytes: count * file.overwriteBytes };
}

export class Workload {
  stopped = false;
  private readonly counts = { writesOk: 0, writesFailed: 0, readsOk: 0, readsFailed: 0 };

  constructor(
    private readonly files: ChaosFile[],
    private readonly history: History,
  ) {}

  /** Operations so far, for the progress line. */
  progress(): string {
    const c = this.counts;
    return `writes ${c.writesOk} ok ${c.writesFailed} failed, reads ${c.readsOk} ok ${c.readsFailed} failed`;
  }

  /** Makes the files (empty) and names them in the history. */
  async setup(client: StripeClient): Promise<void> {
    await client.mkdir('/chaos', { recursive: true });
    for (const f of this.files) {
      await client.writeFile(f.path, Buffer.alloc(0), { layout: f.layout });
      this.history.add({
        type: 'file',
        file: f.path,
        layout: JSON.stringify(f.layout),
        unitBytes: f.unitBytes,
      });
    }
  }

  /** One writer: until stopped, takes a file no other writer holds and writes to it. */
  async writer(client: StripeClient, random: Random): Promise<void> {
    while (!this.stopped) {
      const free = this.files.filter((f) => !f.busy);
      if (free.length > 0) {
        const file = free[random.int(free.length)] as ChaosFile;
        file.busy = true;
        let ok = false;
        try {
          ok = await this.writeOnce(client, file, random);
        } finally {
          file.busy = false;
        }
        if (!ok) await sleep(WORKER_FAILED_PAUSE_MS);
      }
      await pause(random);
    }
  }

  /**
   * After the faults: each file's units whose last write was not acknowledged are written once
   * more (settle.ts), each settle write retried until it is acknowledged; returns how many files.
   */
  async settle(client: StripeClient): Promise<number> {
    let settled = 0;
    for (const file of this.files) {
      const range = settleRange(this.history.events, file.path, file.unitBytes, file.overwriteBytes);
      if (!range) continue;
      settled++;
      for (let tries = 1; ; tries++) {
        if (await this.writeOnce(client, file, undefined, range)) break;
        if (tries >= SETTLE_TRIES_MAX)
          throw new Error(`settling ${file.path} failed ${tries} times: the cluster takes no writes`);
        await sleep(WORKER_FAILED_PAUSE_MS);
      }
    }
    return settled;
  }

  /** One write (open, write, close) where planWrite says, or over `range`; true when it was acknowledged. */
  private async writeOnce(
    client: StripeClient,
    file: ChaosFile,
    random: Random | undefined,
    range?: { offsetBytes: number; lengthBytes: number },
  ): Promise<boolean> {
    // The open has no effect on the bytes: the invoke is recorded once the offset is known.
    const opened = await attempt(client.open(file.path, 'r+', { growOnly: true }));
    if (!opened.ok) return false;
    const handle = opened.value;
    const { offsetBytes, lengthBytes } = range ?? planWrite(file, handle.size, random as Random);
    const op = this.history.op();
    this.history.add({ type: 'invoke', op, kind: 'write', file: file.path, offsetBytes, lengthBytes });
    const data = writeContents(file.fileNo, op, offsetBytes, lengthBytes);
    const done = await attempt(
      (async () => {
        await handle.write(data, 0, lengthBytes, offsetBytes);
        await handle.close();
      })(),
    );
    if (done.ok) {
      this.history.add({ type: 'ok', op });
      this.counts.writesOk++;
    } else {
      this.counts.writesFailed++;
      this.history.add({ type: 'fail', op, error: done.error });
      // Whatever it holds is given up (its failure is recorded; a second close only repeats it).
      await attempt(handle.close());
    }
    return done.ok;
  }

  /** One reader: until stopped, reads a file (whole, or from a unit boundary to its end). */
  async reader(client: StripeClient, random: Random): Promise<void> {
    while (!this.stopped) {
      const file = this.files[random.int(this.files.length)] as ChaosFile;
      const ok = await this.readOnce(client, file, random.int(3) === 0 ? random.int(1 << 30) : 0);
      await (ok ? pause(random) : sleep(WORKER_FAILED_PAUSE_MS));
    }
  }

  /**
   * Reads `file` from the unit `startDraw` picks (modulo its units) to its end and records what
   * each unit held; true when the read succeeded.
   */
  async readOnce(client: StripeClient, file: ChaosFile, startDraw: number, final = false): Promise<boolean> {
    const op = this.history.op();
    this.history.add({ type: 'invoke', op, kind: 'read', file: file.path, ...(final ? { final } : {}) });
    const done = await attempt(
      (async () => {
        const handle = await client.open(file.path, 'r');
        try {
          const units = Math.ceil(handle.size / file.unitBytes);
          const offsetBytes = units === 0 ? 0 : (startDraw % units) * file.unitBytes;
          return { sizeBytes: handle.size, offsetBytes, bytes: await readRange(handle, offsetBytes) };
        } finally {
          await attempt(handle.close());
        }
      })(),
    );
    if (!done.ok) {
      this.counts.readsFailed++;
      this.history.add({ type: 'fail', op, error: done.error });
      return false;
    }
    this.counts.readsOk++;
    const { sizeBytes, offsetBytes, bytes } = done.value;
    const units: number[] = [];
    const details: Record<number, string> = {};
    for (let at = 0; at < bytes.length; at += file.unitBytes) {
      const unit = decodeUnit(bytes.subarray(at, at + file.unitBytes), file.fileNo, offsetBytes + at);
      if (unit.detail) details[units.length] = unit.detail;
      units.push(unit.value);
    }
    // A read that returned less than the size it opened with: the units it left out are wrong too.
    for (let at = bytes.length; at < sizeBytes - offsetBytes; at += file.unitBytes) {
      details[units.length] = `short read: ${bytes.length} of ${sizeBytes - offsetBytes} bytes`;
      units.push(CELL_BAD);
    }
    this.history.add({
      type: 'ok',
      op,
      sizeBytes,
      offsetBytes,
      units,
      ...(Object.keys(details).length > 0 ? { details } : {}),
    });
    return true;
  }
}

async function readRange(
  handle: Awaited<ReturnType<StripeClient['open']>>,
  offsetBytes: number,
): Promise<Buffer> {
  const out = Buffer.alloc(Math.max(0, handle.size - offsetBytes));
  let at = 0;
  while (at < out.length) {
    const { bytesRead } = await handle.read(out, at, out.length - at, offsetBytes + at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  return out.subarray(0, at);
}
