// Checkpoint benchmarks against a real cluster, each beside a baseline from
// the same run: saving 64 parts (4 GiB; --quick 256 MiB) with the checkpoint
// API against the library's sequential write of one file of the same bytes
// (4 MiB writes through one handle, closed); the time an async save blocks
// its caller against the time to its durable publish, with its parts copied
// into staging memory (cold: its first save; warm: the next one) and with
// them referenced; loading every part into memory the caller gives (a restored
// model's tensors, in place) against a sequential read of the one file into a
// reused buffer, and loading into new buffers against readFile of the one file
// (new memory of the same size). Each figure is the median of
// REPEATS runs, alternated with its baseline; the note gives their spread,
// since this machine is shared. Loads are checked byte for byte against what
// was saved, so a full run is also the multi-GiB round trip.
//
// The cluster: STRIPEFS_BENCH_MDS=host:port uses a running one; under
// bench/run.ts the run's shared cluster; else one of its own.
import { randomFillSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type Checkpoints, checkpoints } from '../checkpoint/index.js';
import { type Layout, StripeClient } from '../client/index.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { type BenchResult, GB, median, result, type SuiteOptions } from './types.js';

const MiB = 1 << 20;
const IO_BYTES = 4 * MiB;
const PARTS = 64;
/** Distinct source buffers the parts cycle through (memory: a full run holds 8 x 64 MiB of sources). */
const SOURCES = 8;
const LAYOUT: Layout = { pattern: 'raid0', stripeSize: MiB, stripeCount: 6 };

interface Sample {
  seqWriteS: number;
  saveS: number;
  coldBlockedS: number;
  coldDurableS: number;
  asyncBlockedS: number;
  asyncDurableS: number;
  referenceBlockedS: number;
  referenceDurableS: number;
  seqReadS: number;
  loadS: number;
  seqReadNewS: number;
  loadNewS: number;
}

function spread(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted.map((v) => v.toFixed(2)).join(', ')} s`;
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/** The one-file baseline: the parts' bytes back to back, in IO_BYTES writes through one handle, closed. */
async function writeOneFile(client: StripeClient, path: string, parts: Buffer[]): Promise<void> {
  const handle = await client.open(path, 'w', { layout: LAYOUT });
  let position = 0;
  for (const part of parts)
    for (let at = 0; at < part.length; at += IO_BYTES) {
      const length = Math.min(IO_BYTES, part.length - at);
      await handle.write(part, at, length, position);
      position += length;
    }
  await handle.close();
}

async function readOneFile(client: StripeClient, path: string): Promise<number> {
  const handle = await client.open(path, 'r');
  const out = Buffer.allocUnsafe(IO_BYTES);
  let at = 0;
  while (at < handle.size) {
    const { bytesRead } = await handle.read(out, 0, Math.min(IO_BYTES, handle.size - at), at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  await handle.close();
  return at;
}

/** What every round of the bench uses. */
interface Setup {
  writer: StripeClient;
  reader: StripeClient;
  dir: string;
  parts: Buffer[];
  named: [string, Buffer][];
  bytes: number;
}

/** An async save: seconds until it returned (staged) and until durable; then it is removed. */
async function asyncSave(
  saver: Checkpoints,
  named: [string, Buffer][],
  step: number,
  staging: 'memory' | 'reference',
): Promise<{ blockedS: number; durableS: number }> {
  const started = performance.now();
  const handle = await saver.save(step, named, { async: true, staging });
  const blockedS = (performance.now() - started) / 1000;
  await handle.durable;
  const durableS = (performance.now() - started) / 1000;
  await saver.remove(step);
  return { blockedS, durableS };
}

/**
 * Loads of one checkpoint: into new buffers, then again into those same buffers given as `into`
 * (warm memory, as a restore into a model's existing tensors), each checked byte for byte.
 */
async function measureLoads(
  reader: StripeClient,
  dir: string,
  step: number,
  named: [string, Buffer][],
): Promise<{ loadNewS: number; loadS: number }> {
  const check = (loaded: Map<string, Buffer>) => {
    for (const [name, data] of named)
      if (!loaded.get(name)?.equals(data)) throw new Error(`checkpoint ${step}: part ${name} differs`);
  };
  await reader.dropCache();
  let loaded = new Map<string, Buffer>();
  const loadNewS = await timed(async () => {
    loaded = await checkpoints(reader, dir).load(step);
  });
  check(loaded);
  for (const buffer of loaded.values()) buffer.fill(0);
  await reader.dropCache();
  const into = loaded;
  const loadS = await timed(async () => {
    loaded = await checkpoints(reader, dir).load(step, { into });
  });
  check(loaded);
  return { loadNewS, loadS };
}

/** One round: the one-file baseline written and read, a save and its loads, the async saves. */
async function measureRound(setup: Setup, ck: Checkpoints, round: number): Promise<Sample> {
  const { writer, reader, dir, parts, named, bytes } = setup;
  const one = `${dir}/one-file`;
  const seqWriteS = await timed(() => writeOneFile(writer, one, parts));
  await reader.dropCache();
  const seqReadS = await timed(async () => {
    if ((await readOneFile(reader, one)) !== bytes) throw new Error('the one-file baseline read short');
  });
  await reader.dropCache();
  const seqReadNewS = await timed(async () => {
    if ((await reader.readFile(one)).length !== bytes) throw new Error('the readFile baseline read short');
  });
  await writer.unlink(one);
  const step = 10 * round;
  const saveS = await timed(() => ck.save(step, named));
  const { loadNewS, loadS } = await measureLoads(reader, dir, step, named);
  await ck.remove(step);
  // Staging memory for a whole save: the async save returns once all of it is copied. A fresh
  // Checkpoints touches that memory for the first time (cold); its next save reuses it (warm).
  // It is let go before the next round's load, which needs as much memory again.
  const staged = checkpoints(writer, dir, { layout: LAYOUT, stagingBytesMax: bytes + 64 * MiB });
  const cold = await asyncSave(staged, named, step + 1, 'memory');
  const warm = await asyncSave(staged, named, step + 2, 'memory');
  await staged.close();
  const reference = await asyncSave(ck, named, step + 3, 'reference');
  return {
    seqWriteS,
    saveS,
    coldBlockedS: cold.blockedS,
    coldDurableS: cold.durableS,
    asyncBlockedS: warm.blockedS,
    asyncDurableS: warm.durableS,
    referenceBlockedS: reference.blockedS,
    referenceDurableS: reference.durableS,
    seqReadS,
    loadS,
    seqReadNewS,
    loadNewS,
  };
}

/** The figures: medians of the rounds, each beside its same-run baseline, with the rounds' spread. */
function figures(samples: Sample[], bytes: number, command: string): BenchResult[] {
  const pick = (key: keyof Sample) => median(samples.map((s) => s[key]));
  const note = (key: keyof Sample) => `runs ${spread(samples.map((s) => s[key]))}`;
  const seqWrite = bytes / GB / pick('seqWriteS');
  const seqRead = bytes / GB / pick('seqReadS');
  const writeBase = {
    value: seqWrite,
    name: 'one file of the same bytes, sequential 4 MiB writes, same run',
  };
  const readBase = {
    value: seqRead,
    name: 'that file read sequentially in 4 MiB reads into one buffer, same run',
  };
  const seqReadNew = bytes / GB / pick('seqReadNewS');
  const readNewBase = {
    value: seqReadNew,
    name: 'that file read whole with readFile (new memory), same run',
  };
  const size = `${PARTS} parts, ${(bytes / GB).toFixed(2)} GB`;
  const durable = (key: keyof Sample) => ({
    value: pick(key),
    name: 'the same async save until durable (published)',
  });
  const blocked = (id: string, key: keyof Sample, durableKey: keyof Sample, what: string) =>
    result(id, pick(key), 's', command, durable(durableKey), `${what}; ${note(key)}`);
  return [
    result('ckpt.baseline.seq-write', seqWrite, 'GB/s', command, undefined, note('seqWriteS')),
    result('ckpt.save', bytes / GB / pick('saveS'), 'GB/s', command, writeBase, `${size}; ${note('saveS')}`),
    result(
      'ckpt.save-async-durable',
      bytes / GB / pick('asyncDurableS'),
      'GB/s',
      command,
      writeBase,
      note('asyncDurableS'),
    ),
    blocked('ckpt.async-blocked', 'asyncBlockedS', 'asyncDurableS', 'parts copied into warm staging memory'),
    blocked(
      'ckpt.async-blocked-first',
      'coldBlockedS',
      'coldDurableS',
      'first save of a Checkpoints: its staging memory touched for the first time',
    ),
    blocked(
      'ckpt.async-blocked-reference',
      'referenceBlockedS',
      'referenceDurableS',
      "staging: 'reference', parts sent from the caller's buffers",
    ),
    result('ckpt.baseline.seq-read', seqRead, 'GB/s', command, undefined, note('seqReadS')),
    result(
      'ckpt.load',
      bytes / GB / pick('loadS'),
      'GB/s',
      command,
      readBase,
      `${size} into the caller's buffers (load's into); ${note('loadS')}`,
    ),
    result('ckpt.baseline.seq-read-new', seqReadNew, 'GB/s', command, undefined, note('seqReadNewS')),
    result(
      'ckpt.load-new-buffers',
      bytes / GB / pick('loadNewS'),
      'GB/s',
      command,
      readNewBase,
      `${size} into new buffers; ${note('loadNewS')}`,
    ),
  ];
}

export async function runCheckpointBench(
  opts: SuiteOptions & { totalBytes?: number; repeats?: number },
): Promise<BenchResult[]> {
  const command = `node dist/bench/checkpoint.js${opts.quick ? ' --quick' : ''}`;
  const totalBytes = opts.totalBytes ?? (opts.quick ? 256 : 4096) * MiB;
  const repeats = opts.repeats ?? (opts.quick ? 3 : 2);
  const partBytes = Math.floor(totalBytes / PARTS);
  const external = process.env.STRIPEFS_BENCH_MDS;
  const shared = external === undefined && opts.cluster ? await opts.cluster() : undefined;
  const own = external === undefined && !shared ? await startBenchCluster() : undefined;
  const mds = external ?? ((shared ?? own) as BenchCluster).mdsAddress;
  const sources = Array.from({ length: SOURCES }, () => randomFillSync(Buffer.allocUnsafe(partBytes)));
  const parts = Array.from({ length: PARTS }, (_, i) => sources[i % SOURCES] as Buffer);
  const setup: Setup = {
    writer: await StripeClient.connect({ mds, seed: 1 }),
    reader: await StripeClient.connect({ mds, seed: 2 }),
    dir: `/bench-ckpt-${process.pid}`,
    parts,
    named: parts.map((data, i) => [`layer${i}.weight`, data] as [string, Buffer]),
    bytes: partBytes * PARTS,
  };
  const ck = checkpoints(setup.writer, setup.dir, { layout: LAYOUT });
  try {
    await setup.writer.mkdir(setup.dir, { recursive: true });
    const samples: Sample[] = [];
    for (let round = 0; round < repeats; round++) {
      samples.push(await measureRound(setup, ck, round));
      console.error(JSON.stringify({ round, ...samples.at(-1) }));
    }
    return figures(samples, setup.bytes, command);
  } finally {
    await ck.close();
    // Best effort: the directory is empty unless a round failed, and its files then say why.
    await setup.writer.rmdir(setup.dir).catch(() => undefined);
    await setup.writer.close();
    await setup.reader.close();
    await own?.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const r of await runCheckpointBench({ quick: process.argv.includes('--quick') }))
    console.log(
      `${r.id}: ${r.value.toFixed(3)} ${r.unit}${r.ratio === null ? '' : ` (${r.ratio.toFixed(3)} of ${r.baseline?.toFixed(3)}: ${r.baselineName})`}${r.note ? ` [${r.note}]` : ''}`,
    );
}
