// Small-file benchmark: 10,000 files of 32 KiB (quick: 500) written through
// the client library into a directory whose default layout is raid0 with one
// stripe (one object per file), then read back whole (readFile) by a fresh
// client with 16 readers in flight, beside the same files written and read with
// node:fs on the local disk in the same run (16 in flight as well). The node:fs
// files were just written, so readFile serves them from the page cache; the
// OSSs write whole 4 KiB blocks with O_DIRECT (oss.directIo), so their reads
// go to the disk. A second baseline therefore reads the local files with
// O_DIRECT too. Writes on both sides fsync each file before it counts (a
// stripefs close fsyncs on the OSS). The listing figure is one `list` (readdir
// pages with attributes) of the directory against readdir + stat of the local one.
//
// Data on the MDS: the same files again in a `dom:64K,raid0` directory, so each
// lives whole in the MDS database: written by writeFile (one MDS round trip
// each) against node:fs write + fdatasync, and read in a seeded random order
// (a loader's permutation) by a fresh client against node:fs readFile of the
// local files in the same order.
//
// Loader rows (bench/smallfiles-loader.ts): the same count of files of 10-100 KiB in a seeded
// random order, packed and read with getMany, and read a second time through the client's
// local-disk cache, each beside node:fs readFile of the loose files in the same order.
//
// The cluster: STRIPEFS_BENCH_MDS=host:port uses a running one (and removes
// the files afterwards); under bench/run.ts the run's shared cluster; otherwise
// the bench starts its own (bench/cluster.ts: 1 MDS + 6 OSSs) in a temporary folder.
//   node dist/bench/smallfiles.js [--quick]
import { constants, mkdirSync, rmSync } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Layout, StripeClient } from '../client/index.js';
import { BufferPool, isAligned } from '../common/bulk/buffer-pool.js';
import { seededRandom } from '../common/random.js';
import { Semaphore } from '../common/semaphore.js';
import { seededBytes } from '../test/helpers/clients.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { type LoaderFigures, loaderFigures } from './smallfiles-loader.js';
import { type BenchResult, GB, result, type SuiteOptions } from './types.js';

const FILE_BYTES = 32 * 1024;
/** Readers in flight, on both sides. */
const CONCURRENCY = 16;
/**
 * Writers in flight, on both sides: writing the files is mostly setup, and a
 * stripefs write is latency-bound (create, write, flush, commit: four round
 * trips), so more in flight shortens the run (64 measured 1.8x faster than 16).
 */
const WRITE_CONCURRENCY = 64;
const LISTINGS = 3;
const LAYOUT: Layout = { pattern: 'raid0', stripeSize: 64 * 1024, stripeCount: 1 };
const DOM_LAYOUT: Layout = { pattern: 'dom', domBytes: 64 * 1024, rest: LAYOUT };
const PERMUTATION_SEED = 25;

/** A seeded random order of 0..count-1 (Fisher-Yates). */
function permutation(count: number): number[] {
  const random = seededRandom(PERMUTATION_SEED);
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

/** File i's bytes: a shared seeded body with i in its first four bytes, so a misplaced read shows. */
function contentOf(body: Buffer, i: number): Buffer {
  const bytes = Buffer.from(body);
  bytes.writeUInt32LE(i, 0);
  return bytes;
}

function check(body: Buffer, i: number, got: Buffer, where: string): void {
  if (got.length !== FILE_BYTES || got.readUInt32LE(0) !== i || !got.subarray(4).equals(body.subarray(4)))
    throw new Error(`${where}: file ${i} read back wrong (${got.length} bytes)`);
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Runs op(i) for every i < count, `inFlight` at a time; returns operations per second. */
async function perSecond(
  count: number,
  op: (i: number) => Promise<unknown>,
  inFlight = CONCURRENCY,
): Promise<number> {
  const gate = new Semaphore(inFlight);
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, (_, i) => gate.run(() => op(i))));
  return count / ((performance.now() - started) / 1000);
}

/** Entries per second of the best of LISTINGS listings (one listing is short, so one stall would decide it). */
async function bestListing(listing: () => Promise<number>): Promise<number> {
  let best = 0;
  for (let i = 0; i < LISTINGS; i++) {
    const started = performance.now();
    const entries = await listing();
    best = Math.max(best, entries / ((performance.now() - started) / 1000));
  }
  return best;
}

/** Page-aligned buffers for O_DIRECT reads (an aligned pool's buffers are whole 64 KiB wasm pages). */
const directBuffers = new BufferPool(64 * 1024, CONCURRENCY, { aligned: true });

/** Reads file i with O_DIRECT, past the page cache, as the OSS's own O_DIRECT-written objects are read from the disk. */
async function readDirect(file: string, body: Buffer, i: number): Promise<void> {
  const into = directBuffers.take();
  if (!isAligned(into)) throw new Error('no page-aligned buffer for O_DIRECT');
  const handle = await open(file, constants.O_RDONLY | constants.O_DIRECT);
  try {
    const { bytesRead } = await handle.read(into, 0, FILE_BYTES, 0);
    check(body, i, into.subarray(0, bytesRead), 'node:fs O_DIRECT');
  } finally {
    await handle.close();
    directBuffers.give(into);
  }
}

/** The node:fs side: writes (each fsynced), reads and lists the same files in `dir`. */
async function localSide(dir: string, files: number, body: Buffer) {
  const root = join(dir, `smallfiles-${process.pid}`);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  const name = (i: number) => join(root, `f${i}`);
  try {
    const writes = await perSecond(
      files,
      async (i) => {
        const handle = await open(name(i), 'w');
        try {
          await handle.write(contentOf(body, i));
          await handle.datasync();
        } finally {
          await handle.close();
        }
      },
      WRITE_CONCURRENCY,
    );
    const reads = await perSecond(files, async (i) => check(body, i, await readFile(name(i)), 'node:fs'));
    const order = permutation(files);
    const randomReads = await perSecond(files, async (n) => {
      const i = order[n] as number;
      check(body, i, await readFile(name(i)), 'node:fs');
    });
    const directReads = await perSecond(files, (i) => readDirect(name(i), body, i));
    const gate = new Semaphore(CONCURRENCY);
    const list = await bestListing(async () => {
      const entries = await readdir(root);
      await Promise.all(entries.map((entry) => gate.run(() => stat(join(root, entry)))));
      return entries.length;
    });
    return { writes, reads, randomReads, directReads, list };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * A directory scan as `ls -l` or a loader's index pass makes it: readdir, then a stat of every
 * entry in listing order (16 in flight), by a fresh client with statahead (open cache on) and by
 * one without (close-to-open, the default). Entries per second of each.
 */
async function scanRates(mds: string, root: string, files: number) {
  const rate = async (limits: { openCacheTtlMs: number }) => {
    const client = await StripeClient.connect({ mds, seed: 3, limits });
    try {
      const started = performance.now();
      const names = await client.readdir(root);
      const gate = new Semaphore(CONCURRENCY);
      await Promise.all(names.map((name) => gate.run(() => client.stat(`${root}/${name}`))));
      const perSec = names.length / ((performance.now() - started) / 1000);
      if (names.length !== files) throw new Error(`scan of ${root}: ${names.length} of ${files} entries`);
      return { perSec, statahead: client.stats().statahead };
    } finally {
      await client.close();
    }
  };
  const withStatahead = await rate({ openCacheTtlMs: 60_000 });
  const plain = await rate({ openCacheTtlMs: 0 });
  progress(
    `smallfiles: scan ${withStatahead.perSec.toFixed(0)} entries/s with statahead (${JSON.stringify(withStatahead.statahead)}), ${plain.perSec.toFixed(0)} without`,
  );
  return { statahead: withStatahead.perSec, plain: plain.perSec };
}

/** The stripefs side: writes the files into a directory of `layout`, reads them with a fresh client, lists them. */
async function stripefsSide(mds: string, files: number, body: Buffer, cleanUp: boolean, layout = LAYOUT) {
  const root = `/bench-smallfiles-${layout.pattern}-${process.pid}`;
  const path = (i: number) => `${root}/f${i}`;
  const writer = await StripeClient.connect({ mds, seed: 1 });
  try {
    await writer.mkdir(root, { layout });
    const write = (i: number) => writer.writeFile(path(i), contentOf(body, i));
    const writes = await perSecond(files, write, WRITE_CONCURRENCY);
    if (layout.pattern === 'dom' && writer.stats().dom.createsWithData !== files)
      throw new Error(`dom writes: ${writer.stats().dom.createsWithData} of ${files} in one round trip`);
    progress(`smallfiles: ${files} written through the client at ${writes.toFixed(0)} files/s`);
    // A fresh client: nothing of the files in its cache, no open handles.
    const reader = await StripeClient.connect({ mds, seed: 2 });
    try {
      const order = permutation(files);
      const readInOrder = async (n: number) => {
        const i = layout.pattern === 'dom' ? (order[n] as number) : n;
        check(body, i, await reader.readFile(path(i)), 'stripefs');
      };
      const reads = await perSecond(files, readInOrder);
      // The metadata share of a read: open and close the same files without reading them.
      const opens = await perSecond(files, async (i) => (await reader.open(path(i), 'r')).close());
      progress(
        `smallfiles ${layout.pattern}: read at ${reads.toFixed(0)} files/s, opened at ${opens.toFixed(0)} files/s`,
      );
      const list = await bestListing(async () => {
        const listed = await reader.list(root);
        if (listed.length !== files || listed.some((e) => e.stat.size !== FILE_BYTES))
          throw new Error(
            `listing of ${root}: ${listed.length} entries, expected ${files} of ${FILE_BYTES} B`,
          );
        return listed.length;
      });
      const scan = layout.pattern === 'dom' ? await scanRates(mds, root, files) : undefined;
      return { writes, reads, opens, list, stats: reader.stats(), scan };
    } finally {
      await reader.close();
    }
  } finally {
    if (cleanUp) {
      const gate = new Semaphore(CONCURRENCY);
      // Cleanup of a running cluster: a file already gone is fine.
      const unlink = (i: number) => writer.unlink(path(i)).catch(() => undefined);
      await Promise.all(Array.from({ length: files }, (_, i) => gate.run(() => unlink(i))));
      // Cleanup: a directory already gone is fine.
      await writer.rmdir(root).catch(() => undefined);
    }
    await writer.close();
  }
}

/** `files` defaults to 500 quick, 10,000 full. */
export async function runSmallFilesBench(opts: SuiteOptions & { files?: number }): Promise<BenchResult[]> {
  const command = `node dist/bench/smallfiles.js${opts.quick ? ' --quick' : ''}`;
  const files = opts.files ?? (opts.quick ? 500 : 10_000);
  const body = seededBytes(FILE_BYTES, 10);
  const external = process.env.STRIPEFS_BENCH_MDS;
  const shared = external === undefined && opts.cluster ? await opts.cluster() : undefined;
  const own = external === undefined && !shared ? await startBenchCluster() : undefined;
  const cluster: BenchCluster | undefined = shared ?? own;
  try {
    const localDir = cluster ? cluster.dir : 'data/bench';
    const local = await localSide(localDir, files, body);
    progress(
      `smallfiles: node:fs read ${local.reads.toFixed(0)} files/s, ${local.directReads.toFixed(0)} with O_DIRECT`,
    );
    const mds = external ?? (cluster as BenchCluster).mdsAddress;
    const ours = await stripefsSide(mds, files, body, external !== undefined);
    const dom = await stripefsSide(mds, files, body, external !== undefined, DOM_LAYOUT);
    const osts = Object.values(dom.stats.bytesReadPerOst).reduce((a, b) => a + b, 0);
    if (osts !== 0 || dom.stats.dom.bytesRead !== files * FILE_BYTES)
      throw new Error(`dom reads: ${osts} bytes from OSTs, ${dom.stats.dom.bytesRead} from the MDS`);
    const fs = (value: number, what: string, inFlight = CONCURRENCY) => ({
      value,
      name: `node:fs ${what}, ${inFlight} in flight, same run`,
    });
    const size = `${files} files of ${FILE_BYTES / 1024} KiB`;
    const gbps = (perSec: number) => (perSec * FILE_BYTES) / GB;
    return [
      result(
        'smallfiles.read',
        ours.reads,
        'files/s',
        command,
        fs(local.reads, 'readFile'),
        `${size}, raid0 x1, ${CONCURRENCY} in flight, fresh client`,
      ),
      result('smallfiles.read-bytes', gbps(ours.reads), 'GB/s', command, fs(gbps(local.reads), 'readFile')),
      result('smallfiles.read-vs-direct', ours.reads, 'files/s', command, {
        value: local.directReads,
        name: `node:fs O_DIRECT reads (past the page cache), ${CONCURRENCY} in flight, same run`,
      }),
      result('smallfiles.read-vs-open', ours.reads, 'files/s', command, {
        value: ours.opens,
        name: 'open + close of the same files without reading, same client',
      }),
      result(
        'smallfiles.write',
        ours.writes,
        'files/s',
        command,
        fs(local.writes, 'write + fdatasync', WRITE_CONCURRENCY),
        `${size}, ${WRITE_CONCURRENCY} in flight`,
      ),
      result('smallfiles.list-with-attrs', ours.list, 'entries/s', command, fs(local.list, 'readdir + stat')),
      ...domResults(command, size, local, dom, fs),
      ...loaderResults(
        command,
        await loaderFigures(mds, localDir, files, cleanUpTrees(mds, external !== undefined)),
      ),
    ];
  } finally {
    await own?.stop();
  }
}

type Baseline = (value: number, what: string, inFlight?: number) => { value: number; name: string };

/** Data on the MDS: random-order reads and writes of the same files, each beside node:fs. */
function domResults(
  command: string,
  size: string,
  local: { randomReads: number; writes: number; list: number },
  dom: { reads: number; writes: number; opens: number; scan?: { statahead: number; plain: number } },
  fs: Baseline,
): BenchResult[] {
  const scan = dom.scan as { statahead: number; plain: number };
  return [
    result(
      'smallfiles.scan-statahead',
      scan.statahead,
      'entries/s',
      command,
      fs(local.list, 'readdir + stat'),
      `${size}: readdir, then stat of every entry in listing order, statahead on (open cache TTL 60 s)`,
    ),
    result('smallfiles.scan-statahead-vs-plain', scan.statahead, 'entries/s', command, {
      value: scan.plain,
      name: 'the same scan without statahead (close-to-open, the default), same run',
    }),
    result(
      'smallfiles.dom.read',
      dom.reads,
      'files/s',
      command,
      fs(local.randomReads, 'readFile in the same seeded random order'),
      `${size}, dom:64K,raid0 (whole on the MDS), seeded random order, ${CONCURRENCY} in flight, fresh client`,
    ),
    result('smallfiles.dom.read-vs-open', dom.reads, 'files/s', command, {
      value: dom.opens,
      name: 'open + close of the same files without reading, same client',
    }),
    result(
      'smallfiles.dom.write',
      dom.writes,
      'files/s',
      command,
      fs(local.writes, 'write + fdatasync', WRITE_CONCURRENCY),
      `${size}, dom:64K,raid0: writeFile is one MDS round trip, ${WRITE_CONCURRENCY} in flight`,
    ),
  ];
}

/** Removes the loader rows' trees from a running cluster (`external`); a bench cluster goes whole. */
function cleanUpTrees(mds: string, external: boolean): (paths: string[]) => Promise<void> {
  return async (paths) => {
    if (!external) return;
    const client = await StripeClient.connect({ mds, seed: 4 });
    try {
      const gate = new Semaphore(CONCURRENCY);
      for (const path of paths) {
        // Cleanup of a running cluster: a tree already gone (a failed run) is fine.
        const names = await client.readdir(path).catch(() => [] as string[]);
        await Promise.allSettled(names.map((name) => gate.run(() => client.unlink(`${path}/${name}`))));
        await client.rmdir(path).catch(() => undefined); // already gone is fine
      }
    } finally {
      await client.close();
    }
  };
}

/** Packed getMany and the disk cache's second epoch, each beside node:fs reading the loose files in the same order. */
function loaderResults(command: string, f: LoaderFigures): BenchResult[] {
  const fs = {
    value: f.fs.perSec,
    name: `node:fs readFile of the same loose files in the same seeded order, ${CONCURRENCY} in flight, same run (p99 ${f.fs.p99Ms.toFixed(1)} ms)`,
  };
  const size = `${f.files} files of 10-100 KiB (${(f.bytes / 1024 / 1024).toFixed(0)} MiB), seeded random order`;
  return [
    result(
      'smallfiles.packed.getmany',
      f.packed.perSec,
      'samples/s',
      command,
      fs,
      `${size}, packed (shards of 64 MiB), getMany in batches of 256 by a fresh client: ${f.packed.ranges} ranges, p99 of a batch ${f.packed.p99BatchMs.toFixed(1)} ms`,
    ),
    result(
      'smallfiles.diskcache.epoch2',
      f.epoch2.perSec,
      'files/s',
      command,
      fs,
      `${size}, loose raid0 x1 files read by a client started again on its disk cache folder (0 bytes from the OSSs, ${f.epoch2.diskHits} disk hits), ${CONCURRENCY} in flight, p99 ${f.epoch2.p99Ms.toFixed(1)} ms`,
    ),
    result(
      'smallfiles.diskcache.epoch2-ttl',
      f.epoch2Ttl.perSec,
      'files/s',
      command,
      {
        value: f.ttlBaseline.perSec,
        name: `node:fs readFile of the same loose files in the same seeded order, ${CONCURRENCY} in flight, in rounds alternating with these (median of 3 each; p99 ${f.ttlBaseline.p99Ms.toFixed(1)} ms)`,
      },
      `${size}, the same by a client started again in the open cache's TTL mode: every open answered from the disk too (${f.epoch2Ttl.diskOpens}; no MDS call, no OSS byte), ${CONCURRENCY} in flight, median of 3 rounds, p99 ${f.epoch2Ttl.p99Ms.toFixed(1)} ms`,
    ),
    result('smallfiles.diskcache.epoch2-vs-epoch1', f.epoch2.perSec, 'files/s', command, {
      value: f.epoch1.perSec,
      name: `the first epoch, from the OSSs, filling the disk cache, same run (p99 ${f.epoch1.p99Ms.toFixed(1)} ms)`,
    }),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = await runSmallFilesBench({ quick: process.argv.includes('--quick') });
  for (const r of results) process.stdout.write(`${JSON.stringify(r)}\n`);
}
