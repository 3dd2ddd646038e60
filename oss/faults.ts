// Simulation knobs of one OST, on the real request path: added latency,
// a bandwidth cap, failure rates, corrupt reads and hang; and fault sites
// inside the store's own path (StoreFaultSites): a crash after a write's data
// reached its file but before its index commit, a failing fsync, a slow one,
// and the index's unsynced tail lost as a power loss loses it. Each OST
// has its own seeded generator so a test that sets `seed` sees the same
// decisions again.
import { writeSync } from 'node:fs';
import { StripeError } from '../common/errors.js';
import { type Random, seededRandom } from '../common/random.js';
import type { StoreFaultSites } from './store/index.js';

export interface FaultKnobs {
  latencyMs?: number;
  jitterMs?: number;
  bandwidthBytesPerSec?: number;
  readFailRate?: number;
  writeFailRate?: number;
  corruptReadRate?: number;
  hang?: boolean;
  /** Fraction of writes that kill the OSS process (SIGKILL) once their data is written, before their index commit. */
  crashBeforeCommitRate?: number;
  /** Fraction of flushes whose fsync fails (EIO). */
  fsyncFailRate?: number;
  /** A slow disk: every fdatasync of an object file takes this much longer. */
  fsyncDelayMs?: number;
  /**
   * From the next round of the segment log on, its index batches are lost until the process ends,
   * as a power loss loses the index's unsynced tail: what was acknowledged comes back from the
   * log's replay when the OST opens again.
   */
  loseIndexTail?: boolean;
  seed?: number;
}

const KNOB_NAMES = [
  'latencyMs',
  'jitterMs',
  'bandwidthBytesPerSec',
  'readFailRate',
  'writeFailRate',
  'corruptReadRate',
  'hang',
  'crashBeforeCommitRate',
  'fsyncFailRate',
  'fsyncDelayMs',
  'loseIndexTail',
  'seed',
] as const;
/** Longest added latency a knob may ask for. */
export const FAULT_LATENCY_MS_MAX = 600_000;

/** Validates knobs from the admin API or the CLI; throws REQ_INVALID naming the bad one. */
export function parseFaultKnobs(raw: unknown): FaultKnobs {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new StripeError('REQ_INVALID', 'fault knobs must be a JSON object');
  }
  const input = raw as Record<string, unknown>;
  const out: FaultKnobs = {};
  for (const [key, value] of Object.entries(input)) {
    if (!(KNOB_NAMES as readonly string[]).includes(key))
      throw new StripeError('REQ_INVALID', `unknown fault knob ${key}`);
    const bad = (expected: string): never => {
      throw new StripeError(
        'REQ_INVALID',
        `fault knob ${key}: expected ${expected}, got ${JSON.stringify(value)}`,
      );
    };
    if (key === 'hang' || key === 'loseIndexTail') {
      if (typeof value !== 'boolean') bad('true or false');
      out[key] = value as boolean;
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) bad('a number >= 0');
    const n = value as number;
    if (key.endsWith('Rate') && n > 1) bad('a rate from 0 to 1');
    if ((key === 'latencyMs' || key === 'jitterMs' || key === 'fsyncDelayMs') && n > FAULT_LATENCY_MS_MAX)
      bad(`at most ${FAULT_LATENCY_MS_MAX}`);
    if (key === 'seed' && !Number.isInteger(n)) bad('an integer');
    (out as Record<string, number>)[key] = n;
  }
  return out;
}

const sleepMs = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A real crash: no cleanup, no finally, no flush of anything the process holds. */
function killThisProcess(why: string): never {
  writeSync(2, `${JSON.stringify({ level: 'fatal', msg: `fault site: ${why}`, pid: process.pid })}\n`);
  process.kill(process.pid, 'SIGKILL');
  throw new Error(`SIGKILL did not stop the process (${why})`);
}

export class OstFaults implements StoreFaultSites {
  private knobs: FaultKnobs = {};
  private random: Random;
  private bandwidthFreeAtMs = 0;
  private hangRelease: (() => void) | undefined;
  private hangGate: Promise<void> | undefined;

  constructor(
    private readonly defaultSeed: number,
    /** How the latency knob waits (a test's clock advances instead). */
    private readonly sleep: (ms: number) => Promise<void> = sleepMs,
    /** What the crash site does (a real SIGKILL of this process). */
    private readonly crash: (why: string) => never = killThisProcess,
  ) {
    this.random = seededRandom(defaultSeed);
  }

  get current(): FaultKnobs {
    return { ...this.knobs };
  }

  get active(): boolean {
    return Object.keys(this.knobs).some((k) => k !== 'seed');
  }

  set(knobs: FaultKnobs): void {
    this.knobs = { ...this.knobs, ...knobs };
    this.random = seededRandom(this.knobs.seed ?? this.defaultSeed);
    if (this.knobs.hang && !this.hangGate) {
      this.hangGate = new Promise((resolve) => {
        this.hangRelease = resolve;
      });
    }
    if (!this.knobs.hang) this.releaseHang();
  }

  clear(): void {
    this.knobs = {};
    this.bandwidthFreeAtMs = 0;
    this.releaseHang();
  }

  /** Lets every hung request go on (clear or shutdown). */
  releaseHang(): void {
    this.hangRelease?.();
    this.hangRelease = undefined;
    this.hangGate = undefined;
  }

  /** Runs before a request touches the OST: hang, latency, then the failure draw. */
  async before(kind: 'read' | 'write' | 'meta'): Promise<void> {
    if (this.hangGate) await this.hangGate;
    const { latencyMs = 0, jitterMs = 0 } = this.knobs;
    const delayMs = latencyMs + (jitterMs > 0 ? this.random.next() * jitterMs : 0);
    if (delayMs > 0) await this.sleep(delayMs);
    const rate =
      kind === 'read' ? this.knobs.readFailRate : kind === 'write' ? this.knobs.writeFailRate : undefined;
    if (rate !== undefined && rate > 0 && this.random.next() < rate) {
      throw new StripeError('FAULT_INJECTED', `injected ${kind} failure`, { knob: `${kind}FailRate` });
    }
  }

  /** Waits so the OST moves at most bandwidthBytesPerSec (shared by all its requests). */
  async throttle(bytes: number): Promise<void> {
    const bw = this.knobs.bandwidthBytesPerSec;
    if (!bw || bytes === 0) return;
    const now = performance.now();
    const start = Math.max(now, this.bandwidthFreeAtMs);
    this.bandwidthFreeAtMs = start + (bytes * 1000) / bw;
    const waitMs = this.bandwidthFreeAtMs - now;
    if (waitMs >= 1) await sleepMs(waitMs);
  }

  /** Store fault site: the write's data is in its file; its index commit is not made yet. */
  dataWritten(objectId: string): void {
    const rate = this.knobs.crashBeforeCommitRate;
    if (rate && this.random.next() < rate)
      this.crash(
        `crashBeforeCommitRate: the data of a write to ${objectId} is written, its index commit is not`,
      );
  }

  /** Store fault site: whether a log round's index batch is lost (loseIndexTail). */
  indexTailLost(): boolean {
    return this.knobs.loseIndexTail === true;
  }

  /** Store fault site: a flush is about to fsync the object's file; throws as a failing fsync does. */
  beforeFsync(objectId: string): void {
    const rate = this.knobs.fsyncFailRate;
    if (rate && this.random.next() < rate)
      throw Object.assign(new Error(`EIO: injected fsync failure of ${objectId} (fsyncFailRate)`), {
        code: 'EIO',
        syscall: 'fsync',
      });
  }

  /** Store fault site: an fdatasync of an object file is about to run; waits as a slow disk would. */
  async slowFsync(): Promise<void> {
    const ms = this.knobs.fsyncDelayMs;
    if (ms) await this.sleep(ms);
  }

  /**
   * Flips one bit of a piece already verified by the OSS. The crc sent with it
   * stays the true one, so the client's end-to-end check is what catches it.
   */
  corrupt(data: Buffer): Buffer {
    const rate = this.knobs.corruptReadRate;
    if (!rate || data.length === 0 || this.random.next() >= rate) return data;
    const copy = Buffer.from(data);
    const bit = this.random.int(copy.length * 8);
    copy[bit >> 3] = copy[bit >> 3]! ^ (1 << (bit & 7));
    return copy;
  }
}
