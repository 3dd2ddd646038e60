// The mount against the library, in the same run on the same cluster: fio's
// sequential write and read of one large file through `stripefs mount`
// against the client's own sequential write and read of the same size and
// layout (raid0 over 4 OSTs, 1 MiB units; targets >= 0.6x); 32 KiB small-file
// reads through the mount (16 readers in a child process) against the
// library's readFile (16 in flight, a fresh client); and the FUSE overhead of
// one operation: a stat and a cached 4 KiB O_DIRECT read through a mount with
// the kernel's caches off, against the library's stat and cached read. Each
// throughput figure is the median of REPEATS turns (1 with --quick), library
// and mount side by side in each turn; every turn's value goes in the note,
// to show how noisy the machine was.
// Needs root, /dev/fuse, libfuse2 and fio: without them it says why and
// returns no figures.
//   node dist/bench/mount.js [--quick]
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Layout, StripeClient } from '../client/index.js';
import { Semaphore } from '../common/semaphore.js';
import { seededBytes } from '../test/helpers/clients.js';
import { type Mounted, mountCluster, mountSupport } from '../test/mount/helpers.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { type BenchResult, GB, median, result, type SuiteOptions } from './types.js';

const MiB = 1024 * 1024;
const LAYOUT: Layout = { pattern: 'raid0', stripeSize: MiB, stripeCount: 4 };
const LAYOUT_TEXT = 'raid0:4:1M';
const IO_BYTES = 4 * MiB;
const REPEATS = 3;
/** Attempts of one turn of the sequential figures before the suite fails. */
const TURN_ATTEMPTS_MAX = 3;
const SMALL_FILE_BYTES = 32 * 1024;
const SMALL_READERS = 16;
const OVERHEAD_OPS = 2_000;

function progress(line: string): void {
  process.stderr.write(`mount: ${line}\n`);
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

function noted(all: number[], unit: string): string {
  return `runs: ${all.map((v) => v.toFixed(unit === 'GB/s' ? 3 : 0)).join(', ')} ${unit}`;
}

/** fio through the mount; its bandwidth in GB/s. */
function fio(dir: string, args: string): number {
  const out = spawnSync(
    'fio',
    [`--directory=${dir}`, '--ioengine=psync', '--output-format=json', ...args.split(' ')],
    { encoding: 'utf8', maxBuffer: 16 * MiB },
  );
  if (out.status !== 0) throw new Error(`fio ${args}: ${out.stderr}`);
  const job = (
    JSON.parse(out.stdout.slice(out.stdout.indexOf('{'))) as {
      jobs: { error: number; read: { bw_bytes: number }; write: { bw_bytes: number } }[];
    }
  ).jobs[0];
  if (job?.error !== 0) throw new Error(`fio ${args}: job error ${job?.error}`);
  return (args.includes('--rw=write') ? job.write.bw_bytes : job.read.bw_bytes) / GB;
}

/** Runs a node script in a child (its own thread pool, as an application would); its JSON answer. */
function child<T>(script: string, env: Record<string, string> = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    proc.once('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`child exited ${code}`)),
    );
  });
}

/** One large file written and read through the library and through the mount, in turns (each turn sees the same load). */
async function sequential(client: StripeClient, mounted: Mounted, sizeBytes: number, repeats: number) {
  const data = seededBytes(sizeBytes, 7);
  await client.mkdir('/bench-mount-seq', { layout: LAYOUT });
  const runs: Runs = { libWrite: [], mountWrite: [], libRead: [], mountRead: [] };
  for (let turn = 0; turn < repeats; turn++) {
    // A raid0 file has one copy: an OST the MDS marks down for a moment (missed heartbeats on a
    // loaded host) fails the write. The turn is run again, at most TURN_ATTEMPTS_MAX times.
    for (let attempt = 1; ; attempt++) {
      try {
        await sequentialTurn(client, mounted, data, turn, runs);
        break;
      } catch (err) {
        if (attempt >= TURN_ATTEMPTS_MAX) throw err;
        progress(`turn ${turn + 1} failed (${(err as Error).message}); again`);
        // The failed turn may not have created either file yet; a missing one is fine.
        await client.unlink(`/bench-mount-seq/lib${turn}.dat`).catch(() => undefined);
        await client.unlink(`/bench-mount-seq/fio${turn}.dat`).catch(() => undefined); // as above
      }
    }
  }
  await client.rmdir('/bench-mount-seq');
  const figure = (all: number[]) => ({ value: median(all), all });
  return {
    libWrite: figure(runs.libWrite),
    mountWrite: figure(runs.mountWrite),
    libRead: figure(runs.libRead),
    mountRead: figure(runs.mountRead),
  };
}

type Runs = { libWrite: number[]; mountWrite: number[]; libRead: number[]; mountRead: number[] };

/** One turn: the library writes a file and the mount another, then each reads what the other wrote. */
async function sequentialTurn(
  client: StripeClient,
  mounted: Mounted,
  data: Buffer,
  turn: number,
  runs: Runs,
) {
  const sizeBytes = data.length;
  const mib = sizeBytes / MiB;
  const dir = `${mounted.mountpoint}/bench-mount-seq`;
  const libPath = `/bench-mount-seq/lib${turn}.dat`;
  const writeSeconds = await timed(async () => {
    const handle = await client.open(libPath, 'w');
    for (let at = 0; at < data.length; at += IO_BYTES) await handle.write(data, at, IO_BYTES, at);
    await handle.close();
  });
  // fio's time covers the final fsync (end_fsync), as the library's covers close.
  const mountWrite = fio(
    dir,
    `--name=w --rw=write --bs=1m --size=${mib}m --filename=fio${turn}.dat --end_fsync=1`,
  );
  // Each side reads what the other wrote: nothing of it is in its cache.
  const reader = await StripeClient.connect({ mds: mounted.mds, seed: 2 });
  const out = Buffer.allocUnsafe(IO_BYTES);
  let readSeconds: number;
  try {
    readSeconds = await timed(async () => {
      const handle = await reader.open(`/bench-mount-seq/fio${turn}.dat`, 'r');
      for (let at = 0; at < sizeBytes; at += IO_BYTES) await handle.read(out, 0, IO_BYTES, at);
      await handle.close();
    });
  } finally {
    await reader.close();
  }
  const mountRead = fio(dir, `--name=r --rw=read --bs=1m --size=${mib}m --filename=lib${turn}.dat`);
  const turnRuns = {
    libWrite: sizeBytes / GB / writeSeconds,
    mountWrite,
    libRead: sizeBytes / GB / readSeconds,
    mountRead,
  };
  for (const key of Object.keys(turnRuns) as (keyof Runs)[]) runs[key].push(turnRuns[key]);
  progress(
    `turn ${turn + 1}: write library ${turnRuns.libWrite.toFixed(3)} mount ${mountWrite.toFixed(3)}, ` +
      `read library ${turnRuns.libRead.toFixed(3)} mount ${mountRead.toFixed(3)} GB/s`,
  );
  await client.unlink(libPath);
  await client.unlink(`/bench-mount-seq/fio${turn}.dat`);
}

async function smallFiles(client: StripeClient, mounted: Mounted, files: number) {
  const root = '/bench-mount-small';
  await client.mkdir(root, { layout: { pattern: 'raid0', stripeSize: 64 * 1024, stripeCount: 1 } });
  const body = seededBytes(SMALL_FILE_BYTES, 11);
  const gate = new Semaphore(64);
  await Promise.all(
    Array.from({ length: files }, (_, i) => gate.run(() => client.writeFile(`${root}/f${i}`, body))),
  );
  const reader = await StripeClient.connect({ mds: mounted.mds, seed: 3 });
  let lib: number;
  try {
    const readers = new Semaphore(SMALL_READERS);
    const seconds = await timed(async () => {
      await Promise.all(
        Array.from({ length: files }, (_, i) =>
          readers.run(async () => {
            if (!(await reader.readFile(`${root}/f${i}`)).equals(body))
              throw new Error(`f${i} read back wrong`);
          }),
        ),
      );
    });
    lib = files / seconds;
  } finally {
    await reader.close();
  }
  const script = `
    import { readFile } from 'node:fs/promises';
    const [dir, files, readers] = [${JSON.stringify(`${mounted.mountpoint}${root}`)}, ${files}, ${SMALL_READERS}];
    let next = 0;
    const started = performance.now();
    await Promise.all(Array.from({ length: readers }, async () => {
      while (next < files) {
        const data = await readFile(dir + '/f' + next++);
        if (data.length !== ${SMALL_FILE_BYTES}) throw new Error('short read');
      }
    }));
    console.log(JSON.stringify({ perSec: files / ((performance.now() - started) / 1000) }));`;
  const mount = (await child<{ perSec: number }>(script, { UV_THREADPOOL_SIZE: String(SMALL_READERS) }))
    .perSec;
  const unlinks = new Semaphore(64);
  await Promise.all(
    Array.from({ length: files }, (_, i) => unlinks.run(() => client.unlink(`${root}/f${i}`))),
  );
  await client.rmdir(root);
  return { lib, mount };
}

/** Microseconds per stat and per cached 4 KiB read: through a mount without kernel caches, and in the library. */
async function overhead(client: StripeClient, mds: string) {
  const uncached = await mountCluster(mds, ['--attr-timeout-ms', '0', '--entry-timeout-ms', '0']);
  try {
    await client.writeFile('/bench-mount-op', seededBytes(MiB, 5));
    const handle = await client.open('/bench-mount-op', 'r');
    const block = Buffer.allocUnsafe(4096);
    await handle.read(block, 0, 4096, 0);
    const libStatUs =
      ((await timed(async () => {
        for (let i = 0; i < OVERHEAD_OPS; i++) await client.stat('/bench-mount-op');
      })) *
        1e6) /
      OVERHEAD_OPS;
    const libReadUs =
      ((await timed(async () => {
        for (let i = 0; i < OVERHEAD_OPS; i++) await handle.read(block, 0, 4096, (i % 256) * 4096);
      })) *
        1e6) /
      OVERHEAD_OPS;
    await handle.close();
    const script = `
      import { closeSync, constants, openSync, readSync, statSync } from 'node:fs';
      const path = ${JSON.stringify(`${uncached.mountpoint}/bench-mount-op`)};
      const ops = ${OVERHEAD_OPS};
      let t = performance.now();
      for (let i = 0; i < ops; i++) statSync(path);
      const statUs = ((performance.now() - t) * 1000) / ops;
      const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECT);
      const buf = Buffer.alloc(4096);
      readSync(fd, buf, 0, 4096, 0);
      t = performance.now();
      for (let i = 0; i < ops; i++) readSync(fd, buf, 0, 4096, (i % 256) * 4096);
      const readUs = ((performance.now() - t) * 1000) / ops;
      closeSync(fd);
      console.log(JSON.stringify({ statUs, readUs }));`;
    const mount = await child<{ statUs: number; readUs: number }>(script);
    await client.unlink('/bench-mount-op');
    return { libStatUs, libReadUs, ...mount };
  } finally {
    await uncached.stop();
  }
}

export async function runMountBench(opts: SuiteOptions): Promise<BenchResult[]> {
  const command = `node dist/bench/mount.js${opts.quick ? ' --quick' : ''}`;
  const unsupported =
    mountSupport() ?? (spawnSync('fio', ['--version']).status === 0 ? undefined : 'fio is missing');
  if (unsupported) {
    progress(`SKIPPED: ${unsupported} (npm run test:mount installs what it needs)`);
    return [];
  }
  const sizeBytes = (opts.quick ? 256 : 1024) * MiB;
  const repeats = opts.quick ? 1 : REPEATS;
  const shared = opts.cluster ? await opts.cluster() : undefined;
  const cluster: BenchCluster = shared ?? (await startBenchCluster());
  const mounted = await mountCluster(cluster.mdsAddress);
  const client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 1 });
  try {
    const seq = await sequential(client, mounted, sizeBytes, repeats);
    const small = await smallFiles(client, mounted, opts.quick ? 300 : 2_000);
    progress(`small files: library ${small.lib.toFixed(0)} files/s, mount ${small.mount.toFixed(0)} files/s`);
    const op = await overhead(client, cluster.mdsAddress);
    progress(
      `per operation: stat ${op.statUs.toFixed(0)} us (library ${op.libStatUs.toFixed(0)}), 4 KiB read ${op.readUs.toFixed(0)} us (library ${op.libReadUs.toFixed(0)})`,
    );
    const size = `${sizeBytes / MiB} MiB ${LAYOUT_TEXT}`;
    return [
      result(
        'mount.seq-write',
        seq.mountWrite.value,
        'GB/s',
        command,
        { value: seq.libWrite.value, name: `library sequential write, ${size}, same run` },
        `fio 1 MiB writes + end_fsync; mount ${noted(seq.mountWrite.all, 'GB/s')}; library ${noted(seq.libWrite.all, 'GB/s')}`,
      ),
      result(
        'mount.seq-read',
        seq.mountRead.value,
        'GB/s',
        command,
        { value: seq.libRead.value, name: `library sequential read, ${size}, fresh client, same run` },
        `fio 1 MiB reads; mount ${noted(seq.mountRead.all, 'GB/s')}; library ${noted(seq.libRead.all, 'GB/s')}`,
      ),
      result(
        'mount.smallfiles-read',
        small.mount,
        'files/s',
        command,
        { value: small.lib, name: `library readFile of 32 KiB files, ${SMALL_READERS} in flight, same run` },
        `${SMALL_READERS} readers in a child process`,
      ),
      result(
        'mount.op.stat',
        op.statUs,
        'us/op',
        command,
        { value: op.libStatUs, name: 'library stat, same run' },
        'kernel attribute and entry caches off; FUSE overhead = value - baseline',
      ),
      result(
        'mount.op.read-4k-cached',
        op.readUs,
        'us/op',
        command,
        { value: op.libReadUs, name: 'library 4 KiB read from its cache, same run' },
        'O_DIRECT past the page cache; FUSE overhead = value - baseline',
      ),
    ];
  } finally {
    await client.close();
    await mounted.stop();
    if (!shared) await cluster.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await runMountBench({ quick: process.argv.includes('--quick') });
  for (const r of results)
    console.log(
      `${r.id}: ${r.value.toFixed(3)} ${r.unit} (baseline ${r.baseline?.toFixed(3)}, ratio ${r.ratio?.toFixed(2)}) ${r.note ?? ''}`,
    );
}
