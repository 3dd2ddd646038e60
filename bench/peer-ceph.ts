// `npm run bench -- --only peer-ceph`: stripefs beside Ceph 16 on the same
// machine in the same run, through the calls each one's users make. Ceph runs
// as a single-host peer (1 mon, 1 mgr, 4 BlueStore OSDs on loopback) started
// by the shared peers/ceph/cluster.sh; its figures are `rados bench` (16
// operations in flight, one object per operation). stripefs's equivalents run
// on the bench cluster (1 MDS + 6 OSSs, the `npm start` shape) after Ceph is
// stopped: 16 workers in one client, one file per object, a fresh client per
// read phase. Each row is stripefs's figure with Ceph's as its baseline.
// Before its timed phases the fresh stripefs cluster writes and reads 64 KiB
// files of each workload for a few seconds, not counted: V8 compiles a
// process's hot paths in its first seconds of work (TurboFan took 15-28% of
// each process's CPU in the first 12 s of 64 KiB writes, 4-8% from 30 s on),
// which a running cluster has done long before (rados bench's C++ has no such
// start).
//
// Ceph is installed from Debian with apt-get when missing (root only); without
// it, or without the peer script, the suite says SKIPPED and adds no figures.
// The script is found at $STRIPEFS_CEPH_PEER_SCRIPT, else at shared/peers/ceph/
// cluster.sh in a folder above the repository (or above the current folder).
import { execFile, spawnSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Layout, StripeClient } from '../client/index.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { type Cpu, cpuMs } from './cpu.js';
import { type BenchResult, result, type SuiteOptions } from './types.js';

const run = promisify(execFile);
const KiB = 1024;
const MiB = 1024 * KiB;
/** Operations in flight, both systems (`rados bench -t 16`, 16 client workers). */
const IN_FLIGHT = 16;
const COMMAND = 'npm run bench -- --only peer-ceph';
const CEPH_PACKAGES = ['ceph-mon', 'ceph-mgr', 'ceph-osd', 'ceph-common'];

interface Workload {
  /** The pool's and the figure's name. */
  pool: 'rep3' | 'ec21';
  layout: Layout;
}

const WORKLOADS: Workload[] = [
  {
    pool: 'rep3',
    layout: {
      pattern: 'replicated',
      stripeSize: 4 * MiB,
      stripeCount: 1,
      replicas: 3,
      failureDomain: 'host',
    },
  },
  { pool: 'ec21', layout: { pattern: 'ec', stripeSize: 1 * MiB, k: 2, m: 1, failureDomain: 'host' } },
];

/** One workload's figures in MiB/s (both systems report the same list). */
interface Figures {
  write4m: number;
  read4m: number;
  write64k: number;
  randRead64k: number;
  /** stripefs only: 4 MiB reads with `handle.read` into one buffer. */
  read4mHandle?: number;
  /** stripefs only: where the 64 KiB phases' time went (the rows' notes). */
  write64kNote?: string;
  randRead64kNote?: string;
}

/** $STRIPEFS_CEPH_PEER_SCRIPT, else shared/peers/ceph/cluster.sh in a folder above the build or the current folder. */
function peerScript(): string | undefined {
  const given = process.env.STRIPEFS_CEPH_PEER_SCRIPT;
  if (given) return existsSync(given) ? given : undefined;
  for (const start of [dirname(fileURLToPath(import.meta.url)), process.cwd()]) {
    for (let dir = resolve(start); ; dir = dirname(dir)) {
      const candidate = join(dir, 'shared', 'peers', 'ceph', 'cluster.sh');
      if (existsSync(candidate)) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  return undefined;
}

function hasCeph(): boolean {
  return spawnSync('sh', ['-c', 'command -v ceph-osd && command -v rados'], { stdio: 'ignore' }).status === 0;
}

/** Installs Ceph from Debian when missing and allowed; the reason it cannot run otherwise. */
function ensureCeph(): string | undefined {
  if (hasCeph()) return undefined;
  if (process.getuid?.() !== 0) return 'Ceph is not installed and installing it needs root';
  process.stderr.write(`peer-ceph: installing ${CEPH_PACKAGES.join(' ')} with apt-get\n`);
  // Waits for another apt-get or dpkg instead of failing at once.
  const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];
  const update = spawnSync('apt-get', [...lockWait, 'update'], { stdio: 'inherit' });
  const install = spawnSync(
    'apt-get',
    [...lockWait, 'install', '-y', '--no-install-recommends', ...CEPH_PACKAGES],
    {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    },
  );
  if (update.status !== 0 || install.status !== 0 || !hasCeph()) return 'apt-get could not install Ceph';
  return undefined;
}

/** A `rados bench` summary line's number ("Bandwidth (MB/sec):   338.2"). */
export function radosFigure(output: string, label: string): number {
  const line = output.split('\n').find((l) => l.startsWith(`${label}:`));
  const value = Number(line?.slice(label.length + 1).trim());
  if (!line || !Number.isFinite(value))
    throw new Error(`rados bench printed no "${label}" line:\n${output.slice(-2000)}`);
  return value;
}

class CephPeer {
  private readonly dir = mkdtempSync(join(tmpdir(), 'stripefs-ceph-peer-'));
  private readonly conf = join(this.dir, 'ceph.conf');
  constructor(private readonly script: string) {}

  private env(): NodeJS.ProcessEnv {
    return { ...process.env, CEPH_PEER_DIR: this.dir, NOSD: '4' };
  }

  async start(): Promise<void> {
    await run('bash', [this.script, 'start'], { env: this.env(), timeout: 300_000 });
    const ceph = (...args: string[]) => run('ceph', ['-c', this.conf, ...args], { timeout: 120_000 });
    await ceph('osd', 'pool', 'create', 'rep3', '64', '64', 'replicated');
    await ceph('osd', 'pool', 'set', 'rep3', 'size', '3', '--yes-i-really-mean-it');
    await ceph('osd', 'pool', 'set', 'rep3', 'min_size', '2');
    await ceph('osd', 'erasure-code-profile', 'set', 'k2m1', 'k=2', 'm=1', 'crush-failure-domain=osd');
    await ceph('osd', 'pool', 'create', 'ec21', '64', '64', 'erasure', 'k2m1');
    await ceph('osd', 'pool', 'set', 'ec21', 'min_size', '2');
    // Wait until every PG is active+clean (a bench on peering PGs measures peering).
    for (let i = 0; i < 120; i++) {
      const { stdout } = await ceph('pg', 'stat');
      if (/active\+clean/.test(stdout) && !/peering|creating|unknown|activating/.test(stdout)) return;
      await new Promise((done) => setTimeout(done, 1000));
    }
    throw new Error('Ceph peer: PGs were not active+clean after 120 s');
  }

  private async bench(pool: string, seconds: number, mode: string, extra: string[] = []): Promise<string> {
    const args = [
      '-c',
      this.conf,
      'bench',
      '-p',
      pool,
      String(seconds),
      mode,
      '-t',
      String(IN_FLIGHT),
      ...extra,
    ];
    const { stdout } = await run('rados', args, { timeout: (seconds + 120) * 1000, maxBuffer: 64 * MiB });
    return stdout;
  }

  async figures(pool: string, seconds: number): Promise<Figures> {
    const bw = (out: string) => radosFigure(out, 'Bandwidth (MB/sec)');
    const write4m = bw(await this.bench(pool, seconds, 'write', ['-b', String(4 * MiB), '--no-cleanup']));
    const read4m = bw(await this.bench(pool, seconds, 'seq'));
    await run('rados', ['-c', this.conf, '-p', pool, 'cleanup'], { timeout: 300_000 });
    const write64k = bw(await this.bench(pool, seconds, 'write', ['-b', String(64 * KiB), '--no-cleanup']));
    const randRead64k = bw(await this.bench(pool, seconds, 'rand'));
    await run('rados', ['-c', this.conf, '-p', pool, 'cleanup'], { timeout: 300_000 });
    return { write4m, read4m, write64k, randRead64k };
  }

  async clean(): Promise<void> {
    await run('bash', [this.script, 'clean'], { env: this.env(), timeout: 300_000 }).catch((error: Error) => {
      process.stderr.write(`peer-ceph: cluster.sh clean failed: ${error.message}\n`);
    });
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Runs `work(i)` for i = 0, 1, ... with IN_FLIGHT in flight until `untilMs` passes or `count` are done. */
async function pool(
  count: number,
  untilMs: number,
  work: (i: number) => Promise<void>,
): Promise<{ done: number; meanMs: number }> {
  let next = 0;
  let done = 0;
  let tookMs = 0;
  const worker = async () => {
    while (next < count && performance.now() < untilMs) {
      const started = performance.now();
      await work(next++);
      tookMs += performance.now() - started;
      done++;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return { done, meanMs: done > 0 ? tookMs / done : 0 };
}

/**
 * CPU of the client (this process), the MDS and the OSSs together from now until the returned
 * function is called with the phase's operations and their mean latency: a row's note.
 */
function cpuNote(cluster: BenchCluster): (items: number, meanMs: number) => string {
  const total = (c: Cpu) => c.user + c.system;
  const now = () => ({
    client: total(cpuMs()),
    mds: total(cpuMs(cluster.mds.child.pid)),
    oss: cluster.oss.reduce((sum, p) => sum + total(cpuMs(p.child.pid)), 0),
  });
  const before = now();
  return (items, meanMs) => {
    const after = now();
    const per = (k: keyof typeof before) => ((after[k] - before[k]) / Math.max(items, 1)).toFixed(2);
    return (
      `CPU ms/file: client ${per('client')}, MDS ${per('mds')}, OSSs ${per('oss')}; ` +
      `mean latency ${meanMs.toFixed(1)} ms at ${IN_FLIGHT} in flight; load ${loadavg()[0]?.toFixed(1)}`
    );
  };
}

/** Seconds of 64 KiB writes, then reads, of each workload before the timed phases (not counted). */
const WARM_UP_SECONDS = 3;

async function warmUp(mds: string, seconds: number): Promise<void> {
  const small = randomFillSync(Buffer.alloc(64 * KiB));
  const client = await StripeClient.connect({ mds });
  try {
    for (const w of WORKLOADS) {
      const dir = `/peer-ceph-warm-up/${w.pool}`;
      await client.mkdir(dir, { recursive: true, layout: w.layout });
      const wrote = await pool(Infinity, performance.now() + seconds * 1000, (i) =>
        client.writeFile(`${dir}/${i}`, small),
      );
      if (wrote.done === 0) continue;
      await pool(Infinity, performance.now() + seconds * 1000, async (i) => {
        await client.readFile(`${dir}/${i % wrote.done}`);
      });
    }
  } finally {
    await client.close();
  }
}

const mibPerSec = (bytes: number, startedMs: number) =>
  bytes / MiB / ((performance.now() - startedMs) / 1000);

/** One workload's timed phases on stripefs: writes of a file per operation, and reads of them. */
function timedPhases(cluster: BenchCluster, w: Workload, seconds: number) {
  const dir = `/peer-ceph/${w.pool}`;
  const connect = (cache = true) =>
    StripeClient.connect({
      mds: cluster.mdsAddress,
      ...(cache ? {} : { limits: { cacheBytesMax: 0, readaheadTotalBytesMax: 0 } }),
    });
  const writes = async (name: string, data: Buffer) => {
    const client = await connect();
    await client.mkdir(`${dir}/${name}`, { recursive: true, layout: w.layout });
    const cpu = cpuNote(cluster);
    const started = performance.now();
    const { done, meanMs } = await pool(Infinity, started + seconds * 1000, (i) =>
      client.writeFile(`${dir}/${name}/${i}`, data),
    );
    const mibps = mibPerSec(done * data.length, started);
    const note = cpu(done, meanMs);
    await client.close();
    return { files: done, mibps, note };
  };
  const reads = async (
    files: number,
    count: number,
    read: (c: StripeClient, i: number) => Promise<number>,
    cache = true,
  ) => {
    const client = await connect(cache);
    let bytes = 0;
    const cpu = cpuNote(cluster);
    const started = performance.now();
    const { done, meanMs } = await pool(count, started + seconds * 1000, async (i) => {
      // Not `bytes += await read(...)`: that reads `bytes` before the await and loses the
      // other workers' additions made meanwhile.
      const got = await read(client, i % files);
      bytes += got;
    });
    const mibps = mibPerSec(bytes, started);
    const note = cpu(done, meanMs);
    await client.close();
    return { mibps, note };
  };
  return { dir, writes, reads };
}

/** stripefs's side of one workload: the same four phases as rados bench, plus handle.read. */
async function stripefsFigures(cluster: BenchCluster, w: Workload, seconds: number): Promise<Figures> {
  const { dir, writes, reads } = timedPhases(cluster, w, seconds);
  const wrote4m = await writes('4m', randomFillSync(Buffer.alloc(4 * MiB)));
  const read4m = await reads(
    wrote4m.files,
    wrote4m.files,
    async (c, i) => (await c.readFile(`${dir}/4m/${i}`)).length,
  );
  const into = Buffer.alloc(4 * MiB);
  const read4mHandle = await reads(wrote4m.files, wrote4m.files, async (c, i) => {
    const handle = await c.open(`${dir}/4m/${i}`, 'r');
    try {
      return (await handle.read(into, 0, into.length, 0)).bytesRead;
    } finally {
      await handle.close();
    }
  });
  const wrote64k = await writes('64k', randomFillSync(Buffer.alloc(64 * KiB)));
  // Random 64 KiB reads with nothing cached, for as long as the other phases (rados bench rand).
  let seed = 0x2545f491;
  const nextFile = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed % wrote64k.files;
  };
  const randRead64k = await reads(
    wrote64k.files,
    Infinity,
    async (c) => (await c.readFile(`${dir}/64k/${nextFile()}`)).length,
    false,
  );
  return {
    write4m: wrote4m.mibps,
    read4m: read4m.mibps,
    read4mHandle: read4mHandle.mibps,
    write64k: wrote64k.mibps,
    randRead64k: randRead64k.mibps,
    write64kNote: wrote64k.note,
    randRead64kNote: `client cache and readahead off; ${randRead64k.note}`,
  };
}

function rows(pool: string, ours: Figures, ceph: Figures, cephSeconds: number): BenchResult[] {
  const base = (value: number) => ({ value, name: `Ceph 16 rados bench ${cephSeconds} s -t 16, same run` });
  const row = (id: string, value: number, baseline: number, note?: string) =>
    result(`peer-ceph.${pool}.${id}`, value, 'MiB/s', COMMAND, base(baseline), note);
  return [
    row('write-4m', ours.write4m, ceph.write4m),
    row('read-4m-readFile', ours.read4m, ceph.read4m),
    row('read-4m-handle', ours.read4mHandle ?? 0, ceph.read4m, 'handle.read into one 4 MiB buffer'),
    row('write-64k', ours.write64k, ceph.write64k, ours.write64kNote),
    row(
      'randread-64k-nocache',
      ours.randRead64k,
      ceph.randRead64k,
      ours.randRead64kNote ?? 'client cache and readahead off',
    ),
  ];
}

export async function runPeerCephBench({ quick }: SuiteOptions): Promise<BenchResult[]> {
  const script = peerScript();
  const missing = script
    ? ensureCeph()
    : 'no Ceph peer script: set STRIPEFS_CEPH_PEER_SCRIPT to peers/ceph/cluster.sh';
  if (missing || !script) {
    process.stderr.write(`\n*** peer-ceph: SKIPPED: ${missing}; no figures ***\n\n`);
    return [];
  }
  const seconds = quick ? 5 : 20;
  const ceph = new CephPeer(script);
  const cephFigures = new Map<string, Figures>();
  try {
    process.stderr.write('peer-ceph: starting Ceph (1 mon, 1 mgr, 4 OSDs)\n');
    await ceph.start();
    for (const w of WORKLOADS) {
      process.stderr.write(`peer-ceph: rados bench on ${w.pool}\n`);
      cephFigures.set(w.pool, await ceph.figures(w.pool, seconds));
    }
  } finally {
    await ceph.clean();
  }
  let cluster: BenchCluster | undefined;
  const results: BenchResult[] = [];
  try {
    cluster = await startBenchCluster();
    await warmUp(cluster.mdsAddress, quick ? 1 : WARM_UP_SECONDS);
    for (const w of WORKLOADS) {
      process.stderr.write(`peer-ceph: stripefs on ${w.pool}\n`);
      const ours = await stripefsFigures(cluster, w, seconds);
      results.push(...rows(w.pool, ours, cephFigures.get(w.pool) as Figures, seconds));
    }
  } finally {
    await cluster?.stop();
  }
  return results;
}
