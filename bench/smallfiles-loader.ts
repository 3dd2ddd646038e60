// The loader-shaped rows of the small-file bench: N files of 10-100 KiB (sizes
// seeded) read in a seeded random permutation, as a training loader's epoch
// does, beside node:fs readFile of the same loose files on the local disk in
// the same order and the same run (16 in flight; the files were just written,
// so node:fs reads them from the page cache).
// - packed: the files packed with packDataset (what `stripefs pack` runs) and
//   read by a fresh client with getMany in batches of 256;
// - disk cache: the files as loose stripefs files, read once by a client with
//   a local-disk cache folder (epoch 1, from the OSSs), then by a client
//   started again on that folder (epoch 2, which must read no OSS byte).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type Layout, localSamples, StripeClient } from '../client/index.js';
import { seededRandom } from '../common/random.js';
import { Semaphore } from '../common/semaphore.js';
import { seededBytes } from '../test/helpers/clients.js';

const KiB = 1024;
/** Readers in flight on both sides, as the rest of the small-file bench. */
const CONCURRENCY = 16;
const WRITE_CONCURRENCY = 64;
/** Samples per getMany: a training batch. */
export const BATCH_SAMPLES = 256;
const SHARD_BYTES = 64 * 1024 * KiB;
export const LOOSE_LAYOUT: Layout = { pattern: 'raid0', stripeSize: 1024 * KiB, stripeCount: 1 };
const SEED = 2525;

/** File sizes of a loader dataset: 10-100 KiB, seeded. */
export function loaderSizes(files: number): number[] {
  const random = seededRandom(SEED);
  return Array.from({ length: files }, () => 10 * KiB + random.int(90 * KiB + 1));
}

/** File i's bytes (seeded by i). */
export const loaderBody = (sizes: number[]) => (i: number) => seededBytes(sizes[i] as number, SEED + i);

export const LOADER_SEED = SEED;

export interface LoaderFigures {
  files: number;
  bytes: number;
  fs: { perSec: number; p99Ms: number };
  packed: { perSec: number; p99BatchMs: number; ranges: number };
  epoch1: { perSec: number; p99Ms: number };
  epoch2: { perSec: number; p99Ms: number; ossBytes: number; diskHits: number };
  /** The same, with the open cache's TTL mode: opens answered from the disk too. */
  epoch2Ttl: { perSec: number; p99Ms: number; ossBytes: number; diskHits: number; diskOpens: number };
  /** node:fs reading the same files in rounds alternating with the TTL mode's epoch (its baseline). */
  ttlBaseline: { perSec: number; p99Ms: number };
}

export function permutation(count: number, seed: number): number[] {
  const random = seededRandom(seed);
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

export function p99(latenciesMs: number[]): number {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
}

/** Reads order[n] for every n, `CONCURRENCY` at a time: items per second and the p99 of one read. */
export async function timedEpoch(order: number[], read: (i: number) => Promise<number>, sizes: number[]) {
  const gate = new Semaphore(CONCURRENCY);
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    order.map((i) =>
      gate.run(async () => {
        const t = performance.now();
        const length = await read(i);
        latencies.push(performance.now() - t);
        if (length !== sizes[i]) throw new Error(`file ${i}: ${length} bytes, expected ${sizes[i]}`);
      }),
    ),
  );
  return { perSec: order.length / ((performance.now() - started) / 1000), p99Ms: p99(latencies) };
}

/**
 * Reads the order in batches of `batchSamples`, each batch all at once (a loader handed a batch of
 * indices, as PyTorch's `__getitems__`): items per second and the p99 of one batch.
 */
export async function batchedEpoch(
  order: number[],
  batchSamples: number,
  read: (i: number) => Promise<number>,
  sizes: number[],
) {
  const latencies: number[] = [];
  const started = performance.now();
  for (let at = 0; at < order.length; at += batchSamples) {
    const batch = order.slice(at, at + batchSamples);
    const t = performance.now();
    const lengths = await Promise.all(batch.map(read));
    latencies.push(performance.now() - t);
    lengths.forEach((length, n) => {
      const i = batch[n] as number;
      if (length !== sizes[i]) throw new Error(`file ${i}: ${length} bytes, expected ${sizes[i]}`);
    });
  }
  return { perSec: order.length / ((performance.now() - started) / 1000), p99BatchMs: p99(latencies) };
}

export const nameOf = (i: number) => `f${String(i).padStart(6, '0')}`;

/** The packed side: pack the local folder, then getMany in batches of the permutation by a fresh client. */
export async function packedEpoch(mds: string, src: string, dest: string, order: number[], sizes: number[]) {
  const packer = await StripeClient.connect({ mds, seed: 11 });
  try {
    await packer.packDataset(dest, await localSamples(src), { shardBytes: SHARD_BYTES });
  } finally {
    await packer.close();
  }
  const reader = await StripeClient.connect({ mds, seed: 12 });
  try {
    const dataset = await reader.openDataset(dest);
    // Keys sort as the zero-padded names: sample i is file i.
    const latencies: number[] = [];
    const started = performance.now();
    for (let at = 0; at < order.length; at += BATCH_SAMPLES) {
      const batch = order.slice(at, at + BATCH_SAMPLES);
      const t = performance.now();
      const got = await dataset.getMany(batch);
      latencies.push(performance.now() - t);
      got.forEach((b, n) => {
        if (b.length !== sizes[batch[n] as number])
          throw new Error(`packed sample ${batch[n]}: ${b.length} bytes`);
      });
    }
    const perSec = order.length / ((performance.now() - started) / 1000);
    const { ranges } = dataset.stats;
    await dataset.close();
    return { perSec, p99BatchMs: p99(latencies), ranges };
  } finally {
    await reader.close();
  }
}

/** Writes file i of `body` into `dir` (created with the loose layout) for every i of `order`, 64 in flight. */
export async function writeLoose(mds: string, dir: string, order: number[], body: (i: number) => Buffer) {
  const writer = await StripeClient.connect({ mds, seed: 13, diskCache: null });
  try {
    await writer.mkdir(dir, { layout: LOOSE_LAYOUT });
    const gate = new Semaphore(WRITE_CONCURRENCY);
    await Promise.all(order.map((i) => gate.run(() => writer.writeFile(`${dir}/${nameOf(i)}`, body(i)))));
  } finally {
    await writer.close();
  }
}

/** How long the TTL mode's epochs trust an answer: longer than any bench run. */
const EPOCH_TTL_MS = 60 * 60_000;
/** Rounds of the TTL mode's epoch against node:fs (odd: the median is one of them). */
const TTL_ROUNDS = 3;

/**
 * Loose stripefs files read through a disk cache folder: a first epoch from the OSSs (in the open
 * cache's TTL mode, so its open answers are kept on the disk too), then two more each by a client
 * started again on the folder: close-to-open (every open asks the MDS), and the TTL mode (opens
 * answered from the disk: no MDS call, no OSS byte). `body` writes them first (none: `dir` holds
 * them already, see writeLoose). With `localRead` (node:fs reading the same files), the TTL mode's
 * epoch runs TTL_ROUNDS times alternating with an epoch of it (ttl, fs, fs, ttl ...), each figure
 * the median of its rounds: on a shared machine the two then meet the same load.
 */
export async function diskCacheEpochs(
  mds: string,
  dir: string,
  cacheDir: string,
  order: number[],
  sizes: number[],
  body?: (i: number) => Buffer,
  localRead?: (i: number) => Promise<number>,
) {
  if (body) await writeLoose(mds, dir, order, body);
  const diskCache = { dir: cacheDir, bytesMax: 64 * 1024 * 1024 * KiB };
  const epoch = async (seed: number, openCacheTtlMs: number) => {
    const reader = await StripeClient.connect({ mds, seed, diskCache, limits: { openCacheTtlMs } });
    try {
      const rate = await timedEpoch(
        order,
        async (i) => (await reader.readFile(`${dir}/${nameOf(i)}`)).length,
        sizes,
      );
      const stats = reader.stats();
      const ossBytes = Object.values(stats.bytesReadPerOst).reduce((a, b) => a + b, 0);
      return {
        ...rate,
        ossBytes,
        diskHits: stats.diskCache?.hits ?? 0,
        diskOpens: stats.diskCache?.opens?.hits ?? 0,
      };
    } finally {
      await reader.close();
    }
  };
  const epoch1 = await epoch(14, EPOCH_TTL_MS);
  const epoch2 = await epoch(15, 0);
  const ttl: Awaited<ReturnType<typeof epoch>>[] = [];
  const fs: { perSec: number; p99Ms: number }[] = [];
  for (let round = 0; round < (localRead ? TTL_ROUNDS : 1); round++)
    for (const side of round % 2 === 0 ? ['ttl', 'fs'] : ['fs', 'ttl'])
      if (side === 'ttl') ttl.push(await epoch(16 + round, EPOCH_TTL_MS));
      else if (localRead) fs.push(await timedEpoch(order, localRead, sizes));
  const byRate = <T extends { perSec: number }>(xs: T[]) => [...xs].sort((a, b) => a.perSec - b.perSec);
  const epoch2Ttl = byRate(ttl)[Math.floor(ttl.length / 2)] as (typeof ttl)[number];
  const ttlBaseline = fs.length > 0 ? byRate(fs)[Math.floor(fs.length / 2)] : undefined;
  for (const [name, e, opens] of [
    ['epoch 2', epoch2, 0],
    ['epoch 2 (TTL mode)', epoch2Ttl, order.length],
  ] as const)
    if (e.ossBytes !== 0 || e.diskHits !== order.length || e.diskOpens !== opens)
      throw new Error(
        `disk cache ${name}: ${e.ossBytes} bytes from the OSSs, ${e.diskHits} of ${order.length} from the disk, ${e.diskOpens} opens from the disk (want ${opens})`,
      );
  return { epoch1, epoch2, epoch2Ttl, ttlBaseline };
}

/** Runs the loader rows with `files` files under `localDir` (removed after) and on the cluster at `mds`. */
export async function loaderFigures(
  mds: string,
  localDir: string,
  files: number,
  cleanUp: (paths: string[]) => Promise<void>,
): Promise<LoaderFigures> {
  const sizes = loaderSizes(files);
  const body = loaderBody(sizes);
  const root = join(localDir, `loader-${process.pid}`);
  const src = join(root, 'src');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(src, { recursive: true });
  const remote = { packed: `/bench-packed-${process.pid}`, loose: `/bench-loose-${process.pid}` };
  try {
    for (let i = 0; i < files; i++) writeFileSync(join(src, nameOf(i)), body(i));
    const order = permutation(files, SEED);
    const localRead = async (i: number) => (await readFile(join(src, nameOf(i)))).length;
    const fs = await timedEpoch(order, localRead, sizes);
    const packed = await packedEpoch(mds, src, remote.packed, order, sizes);
    const epochs = await diskCacheEpochs(
      mds,
      remote.loose,
      join(root, 'disk-cache'),
      order,
      sizes,
      body,
      localRead,
    );
    const { epoch1, epoch2, epoch2Ttl } = epochs;
    const ttlBaseline = epochs.ttlBaseline ?? fs;
    return {
      files,
      bytes: sizes.reduce((a, b) => a + b, 0),
      fs,
      packed,
      epoch1,
      epoch2,
      epoch2Ttl,
      ttlBaseline,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
    await cleanUp([remote.packed, remote.loose]);
  }
}
