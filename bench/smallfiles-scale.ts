// Issue 25's targets at their own scale: a loader's epoch over FILES files of
// 10-100 KiB (full 100,000; quick 2,000) read in a seeded random order by 16
// readers, samples/s and p99, each beside node:fs on the local disk in the same
// order and run (the files were just written, so node:fs reads them from the
// page cache):
// - data on the MDS (dom:128K,raid0: every file whole on the MDS): the writes
//   (create, write, close: one MDS round trip) beside node:fs write + fdatasync
//   of the same files, 16 in flight each; then, once the MDS is quiet (its
//   database done compacting what the writes left), the reads by a fresh client;
// - plain striped files (raid0 x1, one object each) read by a fresh client;
// - the files packed (packDataset) and read by getMany in batches of 256;
// - the plain files read twice through a local-disk cache folder, the second
//   time by a client started again on it (no OSS byte);
// - a directory of ENTRIES entries (full 1,000,000; quick 20,000) scanned as
//   `ls -l` does (readdir, then a stat of each, 16 in flight) with statahead,
//   beside node:fs readdir + stat of a local directory of as many files, and
//   beside the same scan without statahead;
// - the MDS's resident memory per million data-on-MDS files and per million
//   entries (its RSS before and after each, from /proc), and its database's size.
// Every stripefs row's note says what bounds it: CPU ms of the client, the MDS
// and the OSSs, MDS calls and OSS requests per sample (bench/smallops.ts).
//   node dist/bench/smallfiles-scale.js [--quick]
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { open, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Layout, StripeClient } from '../client/index.js';
import { Semaphore } from '../common/semaphore.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { cpuTotalMs } from './cpu.js';
import {
  BATCH_SAMPLES,
  batchedEpoch,
  diskCacheEpochs,
  LOADER_SEED,
  loaderBody,
  loaderSizes,
  nameOf,
  packedEpoch,
  permutation,
  timedEpoch,
  writeLoose,
} from './smallfiles-loader.js';
import { boundsOf, measured, type PhaseProfile } from './smallops.js';
import { type BenchResult, result, type SuiteOptions } from './types.js';

const KiB = 1024;
const IN_FLIGHT = 16;
export const DOM_LAYOUT: Layout = {
  pattern: 'dom',
  domBytes: 128 * KiB,
  rest: { pattern: 'raid0', stripeSize: 1024 * KiB, stripeCount: 1 },
};
const MILLION = 1_000_000;

function progress(line: string): void {
  process.stderr.write(`smallfiles-scale: ${line}\n`);
}

/** The MDS's resident memory (bytes), from /proc. */
function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) * KiB;
}

/** Bytes under a folder (du). */
function duBytes(dir: string): number {
  return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0]);
}

/** Runs op(i) for every i < count, IN_FLIGHT at a time; returns operations per second. */
async function perSecond(count: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const gate = new Semaphore(IN_FLIGHT);
  const started = performance.now();
  await Promise.all(Array.from({ length: count }, (_, i) => gate.run(() => op(i))));
  return count / ((performance.now() - started) / 1000);
}

/** The local files, each written and fdatasynced (the write baseline), then one epoch read by node:fs. */
async function localSide(src: string, order: number[], sizes: number[], body: (i: number) => Buffer) {
  mkdirSync(src, { recursive: true });
  const writes = await perSecond(order.length, async (i) => {
    const handle = await open(join(src, nameOf(i)), 'w');
    try {
      await handle.write(body(i));
      await handle.datasync();
    } finally {
      await handle.close();
    }
  });
  // The CPU node:fs spends per file (this process, its thread pool included): what a stripefs read is held to.
  const read = async (i: number) => (await readFile(join(src, nameOf(i)))).length;
  const cpuBefore = cpuTotalMs();
  const reads = await timedEpoch(order, read, sizes);
  const cpuBatched = cpuTotalMs();
  const batched = await batchedEpoch(order, BATCH_SAMPLES, read, sizes);
  const perFile = (from: number) => (cpuTotalMs() - from) / order.length;
  return {
    writes,
    reads: { ...reads, cpuMsPerFile: (cpuBatched - cpuBefore) / order.length },
    batched: { ...batched, cpuMsPerFile: perFile(cpuBatched) },
  };
}

interface DomFigures {
  write: PhaseProfile;
  read: { perSec: number; p99Ms: number; profile: PhaseProfile; quietAfterMs: number };
  /** The same client's second epoch, in batches of BATCH_SAMPLES read at once. */
  batched: {
    perSec: number;
    p99BatchMs: number;
    profile: PhaseProfile;
    openManyPerSample: number;
    openPerSample: number;
  };
  rssPerMillionBytes: number;
}

/** Quiet: the MDS used under this much CPU in a second. */
const MDS_QUIET_CPU_MS = 50;
const MDS_QUIET_WAIT_MS = 120_000;

/** Waits until the MDS is quiet (its database done compacting), at most MDS_QUIET_WAIT_MS; returns how long. */
export async function mdsQuiet(pid: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < MDS_QUIET_WAIT_MS) {
    const before = cpuTotalMs(pid);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (cpuTotalMs(pid) - before < MDS_QUIET_CPU_MS) break;
  }
  return performance.now() - started;
}

/** Data on the MDS: the files written (one create each, checked), then read by a fresh client. */
async function domSide(cluster: BenchCluster, dir: string, order: number[], sizes: number[]) {
  const body = loaderBody(sizes);
  const pid = cluster.mds.child.pid as number;
  const writer = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 21 });
  let write: PhaseProfile;
  const rssBefore = rssBytes(pid);
  try {
    await writer.mkdir(dir, { layout: DOM_LAYOUT });
    const gate = new Semaphore(IN_FLIGHT);
    const all = () =>
      Promise.all(order.map((i) => gate.run(() => writer.writeFile(`${dir}/${nameOf(i)}`, body(i)))));
    write = (await measured(cluster, order.length, all)).profile;
    const created = writer.stats().dom.createsWithData;
    if (created !== order.length) throw new Error(`dom writes: ${created} of ${order.length} in one create`);
  } finally {
    await writer.close();
  }
  const rssPerMillionBytes = ((rssBytes(pid) - rssBefore) / order.length) * MILLION;
  // A loader reads a dataset written long before: the MDS's database compacts what the writes
  // left first (that CPU is the writes', not the reads').
  const quietAfterMs = await mdsQuiet(pid);
  const reader = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 22 });
  try {
    const epoch = () =>
      timedEpoch(order, async (i) => (await reader.readFile(`${dir}/${nameOf(i)}`)).length, sizes);
    const { value, profile } = await measured(cluster, order.length, epoch);
    const read = async (i: number) => (await reader.readFile(`${dir}/${nameOf(i)}`)).length;
    const batchedRun = await measured(cluster, order.length, () =>
      batchedEpoch(order, BATCH_SAMPLES, read, sizes),
    );
    const ossBytes = Object.values(reader.stats().bytesReadPerOst).reduce((a, b) => a + b, 0);
    if (ossBytes !== 0) throw new Error(`dom reads: ${ossBytes} bytes from the OSSs`);
    const calls = batchedRun.profile.mdsCallsPerFile;
    const batched = {
      ...batchedRun.value,
      profile: batchedRun.profile,
      openManyPerSample: calls.openMany ?? 0,
      openPerSample: calls.open ?? 0,
    };
    return {
      write,
      read: { ...value, profile, quietAfterMs },
      batched,
      rssPerMillionBytes,
    } satisfies DomFigures;
  } finally {
    await reader.close();
  }
}

/** Plain striped files (raid0 x1) written, then read in the order by a fresh client without a disk cache. */
async function plainSide(cluster: BenchCluster, dir: string, order: number[], sizes: number[]) {
  await writeLoose(cluster.mdsAddress, dir, order, loaderBody(sizes));
  const reader = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 23, diskCache: null });
  try {
    const epoch = () =>
      timedEpoch(order, async (i) => (await reader.readFile(`${dir}/${nameOf(i)}`)).length, sizes);
    const { value, profile } = await measured(cluster, order.length, epoch);
    return { ...value, profile };
  } finally {
    await reader.close();
  }
}

interface ScanFigures {
  entries: number;
  fsCreates: number;
  creates: number;
  fsScan: number;
  statahead: { perSec: number; profile: PhaseProfile; batches: number };
  plain: number;
  rssPerMillionBytes: number;
}

/** A scan as `ls -l` makes it: readdir, then a stat of every entry in listing order, 16 in flight. */
async function stripefsScan(mds: string, dir: string, entries: number, statahead: boolean) {
  const client = await StripeClient.connect({
    mds,
    seed: statahead ? 24 : 25,
    limits: { openCacheTtlMs: statahead ? 60_000 : 0 },
  });
  try {
    const started = performance.now();
    const names = await client.readdir(dir);
    const gate = new Semaphore(IN_FLIGHT);
    await Promise.all(names.map((name) => gate.run(() => client.stat(`${dir}/${name}`))));
    if (names.length !== entries) throw new Error(`scan of ${dir}: ${names.length} of ${entries} entries`);
    return {
      perSec: entries / ((performance.now() - started) / 1000),
      batches: client.stats().statahead.batches,
    };
  } finally {
    await client.close();
  }
}

/** ENTRIES empty files made on both sides (the create rate of each), then scanned on both. */
async function scanSide(cluster: BenchCluster, localDir: string, dir: string, entries: number) {
  const local = join(localDir, 'scan');
  mkdirSync(local, { recursive: true });
  const fsCreates = await perSecond(entries, (i) => writeFile(join(local, nameOf(i)), ''));
  const pid = cluster.mds.child.pid as number;
  const rssBefore = rssBytes(pid);
  const writer = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 26 });
  let creates: number;
  try {
    await writer.mkdir(dir, { layout: DOM_LAYOUT });
    creates = await perSecond(entries, (i) => writer.writeFile(`${dir}/${nameOf(i)}`, ''));
  } finally {
    await writer.close();
  }
  const rssPerMillionBytes = ((rssBytes(pid) - rssBefore) / entries) * MILLION;
  const gate = new Semaphore(IN_FLIGHT);
  const started = performance.now();
  const names = await readdir(local);
  await Promise.all(names.map((name) => gate.run(() => stat(join(local, name)))));
  const fsScan = entries / ((performance.now() - started) / 1000);
  const ahead = await measured(cluster, entries, () => stripefsScan(cluster.mdsAddress, dir, entries, true));
  const plain = (await stripefsScan(cluster.mdsAddress, dir, entries, false)).perSec;
  const statahead = { ...ahead.value, profile: ahead.profile };
  return { entries, fsCreates, creates, fsScan, statahead, plain, rssPerMillionBytes } satisfies ScanFigures;
}

interface LoaderScale {
  files: number;
  bytes: number;
  fs: {
    writes: number;
    reads: { perSec: number; p99Ms: number; cpuMsPerFile: number };
    batched: { perSec: number; p99BatchMs: number; cpuMsPerFile: number };
  };
  dom: DomFigures;
  plain: { perSec: number; p99Ms: number; profile: PhaseProfile };
  packed: { perSec: number; p99BatchMs: number; ranges: number; profile: PhaseProfile };
  epoch2: { perSec: number; p99Ms: number; diskHits: number };
  epoch2Ttl: { perSec: number; p99Ms: number; diskOpens: number };
  /** node:fs reading the same files in rounds alternating with the TTL mode's epoch. */
  ttlBaseline: { perSec: number; p99Ms: number };
  mdsDbBytes: number;
}

/** The loader epochs over `files` files: node:fs, data on the MDS, plain, packed, and the disk cache's second epoch. */
async function loaderScale(cluster: BenchCluster, root: string, files: number): Promise<LoaderScale> {
  const sizes = loaderSizes(files);
  const order = permutation(files, LOADER_SEED);
  const src = join(root, 'src');
  const fs = await localSide(src, order, sizes, loaderBody(sizes));
  progress(`node:fs ${fs.writes.toFixed(0)} writes/s (fdatasync), ${fs.reads.perSec.toFixed(0)} reads/s`);
  const mdsDir = join(cluster.dir, 'mds');
  const dbBefore = duBytes(mdsDir);
  const dom = await domSide(cluster, `/scale-dom-${process.pid}`, order, sizes);
  const mdsDbBytes = duBytes(mdsDir) - dbBefore;
  progress(`dom ${dom.write.perSec.toFixed(0)} writes/s, ${dom.read.perSec.toFixed(0)} reads/s`);
  const plainDir = `/scale-plain-${process.pid}`;
  const plain = await plainSide(cluster, plainDir, order, sizes);
  progress(`plain ${plain.perSec.toFixed(0)} reads/s`);
  const mds = cluster.mdsAddress;
  const packedRun = await measured(cluster, files, () =>
    packedEpoch(mds, src, `/scale-packed-${process.pid}`, order, sizes),
  );
  const packed = { ...packedRun.value, profile: packedRun.profile };
  progress(`packed ${packed.perSec.toFixed(0)} samples/s`);
  const localRead = async (i: number) => (await readFile(join(src, nameOf(i)))).length;
  const epochs = await diskCacheEpochs(
    mds,
    plainDir,
    join(root, 'disk-cache'),
    order,
    sizes,
    undefined,
    localRead,
  );
  const { epoch2, epoch2Ttl } = epochs;
  const ttlBaseline = epochs.ttlBaseline ?? fs.reads;
  progress(
    `disk cache epoch 2 ${epoch2.perSec.toFixed(0)} reads/s, TTL mode ${epoch2Ttl.perSec.toFixed(0)} reads/s`,
  );
  const bytes = sizes.reduce((a, b) => a + b, 0);
  return { files, bytes, fs, dom, plain, packed, epoch2, epoch2Ttl, ttlBaseline, mdsDbBytes };
}

const COMMAND = (quick: boolean) => `node dist/bench/smallfiles-scale.js${quick ? ' --quick' : ''}`;

/** What holds the data-on-MDS reads below node:fs: the CPU the client and the MDS spend per sample against node:fs's. */
function domReadBound(f: LoaderScale): string {
  const c = f.dom.read.profile.cpuMsPerFile;
  const fs = f.fs.reads.cpuMsPerFile;
  return (
    `bound: CPU per sample, client + MDS ${(c.client + c.mds).toFixed(3)} ms against node:fs's ${fs.toFixed(3)} ms ` +
    `(${((c.client + c.mds) / fs).toFixed(1)}x) on a machine of ${availableParallelism()} cores`
  );
}

/** The node:fs read baseline of the loader rows, and the words naming the file set. */
function loaderBase(f: LoaderScale) {
  const fsRead = {
    value: f.fs.reads.perSec,
    name: `node:fs readFile of the same files in the same seeded order, ${IN_FLIGHT} in flight, same run (p99 ${f.fs.reads.p99Ms.toFixed(1)} ms, CPU ${f.fs.reads.cpuMsPerFile.toFixed(3)} ms/file)`,
  };
  const set = `${f.files} files of 10-100 KiB (${(f.bytes / 1024 / 1024).toFixed(0)} MiB), seeded random order, ${IN_FLIGHT} in flight`;
  return { fsRead, set };
}

const id = (name: string) => `smallfiles-scale.${name}`;

/** The data-on-MDS reads: 16 in flight (a fresh client), then that client's epoch in batches. */
function domReadRows(command: string, f: LoaderScale): BenchResult[] {
  const { fsRead, set } = loaderBase(f);
  return [
    result(
      id('dom.read'),
      f.dom.read.perSec,
      'samples/s',
      command,
      fsRead,
      `${set}, dom:128K,raid0 (whole on the MDS), fresh client once the MDS was quiet (${(f.dom.read.quietAfterMs / 1000).toFixed(0)} s after the writes), p99 ${f.dom.read.p99Ms.toFixed(1)} ms; ${domReadBound(f)}; ${boundsOf(f.dom.read.profile, 'sample')}`,
    ),
    result(
      id('dom.read-batched'),
      f.dom.batched.perSec,
      'samples/s',
      command,
      {
        value: f.fs.batched.perSec,
        name: `node:fs readFile of the same files in the same batches of ${BATCH_SAMPLES}, each read at once, same run (p99 of a batch ${f.fs.batched.p99BatchMs.toFixed(1)} ms, CPU ${f.fs.batched.cpuMsPerFile.toFixed(3)} ms/file)`,
      },
      `${f.files} files of 10-100 KiB, the same order in batches of ${BATCH_SAMPLES} each read at once (a loader handed a batch of indices), the dom.read client's second epoch: ${f.dom.batched.openManyPerSample.toFixed(3)} OpenMany and ${f.dom.batched.openPerSample.toFixed(3)} Open per sample, p99 of a batch ${f.dom.batched.p99BatchMs.toFixed(1)} ms; ${boundsOf(f.dom.batched.profile, 'sample')}`,
    ),
  ];
}

function loaderRows(command: string, f: LoaderScale): BenchResult[] {
  const { fsRead, set } = loaderBase(f);
  return [
    ...domReadRows(command, f),
    result(
      id('dom.write'),
      f.dom.write.perSec,
      'files/s',
      command,
      {
        value: f.fs.writes,
        name: `node:fs write + fdatasync of the same files, ${IN_FLIGHT} in flight, same run`,
      },
      `${set}: create, write and close in one MDS round trip; ${boundsOf(f.dom.write)}`,
    ),
    result(
      id('plain.read'),
      f.plain.perSec,
      'samples/s',
      command,
      fsRead,
      `${set}, raid0 x1 (one object each), fresh client without a disk cache, p99 ${f.plain.p99Ms.toFixed(1)} ms; ${boundsOf(f.plain.profile, 'sample')}`,
    ),
    result(
      id('packed.getmany'),
      f.packed.perSec,
      'samples/s',
      command,
      fsRead,
      `${set}, packed (shards of 64 MiB), getMany in batches of 256: ${f.packed.ranges} ranges, p99 of a batch ${f.packed.p99BatchMs.toFixed(1)} ms; ${boundsOf(f.packed.profile, 'sample')}`,
    ),
    result(
      id('diskcache.epoch2'),
      f.epoch2.perSec,
      'files/s',
      command,
      fsRead,
      `${set}, the raid0 files read by a client started again on its disk cache folder (${f.epoch2.diskHits} disk hits, no OSS byte), p99 ${f.epoch2.p99Ms.toFixed(1)} ms`,
    ),
    result(
      id('diskcache.epoch2-ttl'),
      f.epoch2Ttl.perSec,
      'files/s',
      command,
      {
        value: f.ttlBaseline.perSec,
        name: `node:fs readFile of the same files in the same seeded order, ${IN_FLIGHT} in flight, in rounds alternating with these (median of 3 each; p99 ${f.ttlBaseline.p99Ms.toFixed(1)} ms)`,
      },
      `${set}, the same by a client started again in the open cache's TTL mode: every open answered from the disk too (${f.epoch2Ttl.diskOpens}; no MDS call, no OSS byte), median of 3 rounds, p99 ${f.epoch2Ttl.p99Ms.toFixed(1)} ms`,
    ),
    result(
      id('mds.rss-per-million-dom-files'),
      f.dom.rssPerMillionBytes / 1024 / 1024,
      'MiB',
      command,
      undefined,
      `the MDS's resident memory after writing ${f.files} data-on-MDS files minus before, per million; its database grew ${(f.mdsDbBytes / 1024 / 1024).toFixed(0)} MiB (${(((f.mdsDbBytes / f.files) * MILLION) / 1024 ** 3).toFixed(1)} GiB per million)`,
    ),
  ];
}

function scanRows(command: string, s: ScanFigures): BenchResult[] {
  const dir = `a directory of ${s.entries} entries: readdir, then a stat of each in listing order, ${IN_FLIGHT} in flight`;
  return [
    result(
      id('scan.statahead'),
      s.statahead.perSec,
      'entries/s',
      command,
      { value: s.fsScan, name: 'node:fs readdir + stat of a local directory of as many files, same run' },
      `${dir}, statahead on (open cache TTL 60 s; ${s.statahead.batches} batches); ${boundsOf(s.statahead.profile, 'entry')}`,
    ),
    result(id('scan.statahead-vs-plain'), s.statahead.perSec, 'entries/s', command, {
      value: s.plain,
      name: 'the same scan without statahead (close-to-open, the default), same run',
    }),
    result(
      id('creates'),
      s.creates,
      'entries/s',
      command,
      {
        value: s.fsCreates,
        name: `node:fs writeFile of as many empty files, ${IN_FLIGHT} in flight, same run`,
      },
      `${s.entries} empty files, ${IN_FLIGHT} in flight (one create each)`,
    ),
    result(
      id('mds.rss-per-million-entries'),
      s.rssPerMillionBytes / 1024 / 1024,
      'MiB',
      command,
      undefined,
      `the MDS's resident memory after creating ${s.entries} entries minus before, per million`,
    ),
  ];
}

export async function runSmallFilesScaleBench(
  opts: SuiteOptions & { files?: number; entries?: number },
): Promise<BenchResult[]> {
  const files = opts.files ?? (opts.quick ? 2_000 : 100_000);
  const entries = opts.entries ?? (opts.quick ? 20_000 : MILLION);
  const shared = opts.cluster ? await opts.cluster() : undefined;
  const own = shared ? undefined : await startBenchCluster();
  const cluster = (shared ?? own) as BenchCluster;
  const root = join(cluster.dir, `scale-${process.pid}`);
  rmSync(root, { recursive: true, force: true });
  try {
    const loader = await loaderScale(cluster, root, files);
    const scan = await scanSide(cluster, root, `/scale-scan-${process.pid}`, entries);
    progress(
      `scan ${scan.statahead.perSec.toFixed(0)} entries/s with statahead, ${scan.fsScan.toFixed(0)} node:fs`,
    );
    const command = COMMAND(opts.quick);
    return [...loaderRows(command, loader), ...scanRows(command, scan)];
  } finally {
    rmSync(root, { recursive: true, force: true });
    await own?.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = await runSmallFilesScaleBench({ quick: process.argv.includes('--quick') });
  for (const r of results) process.stdout.write(`${JSON.stringify(r)}\n`);
}
