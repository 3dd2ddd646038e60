// Small-operation profile: where a 64 KiB object write or read spends its
// time, in the shapes of the Ceph peer bench (bench/peer-ceph.ts: replicated:3
// and ec 2+1, one file per object, 16 in flight in one client). For each
// layout it writes FILES files through writeFile, then reads them in a seeded
// random order through readFile with a fresh client whose cache and readahead
// are off, and reports per file:
//   - files/s (wall clock: on a shared machine only comparable inside one run);
//   - CPU ms of the client (process.cpuUsage), the MDS and all OSSs together
//     (/proc/<pid>/stat), which does not depend on how busy the machine is;
//   - requests: MDS calls (its request histogram's counts, heartbeats left out),
//     OSS requests by op (its ops counter) and synced MDS group writes.
// Reported, never asserted. `node dist/bench/smallops.js [--quick]` runs it
// alone (its own cluster); `npm run bench -- --only smallops` under the runner.
// STRIPEFS_SMALLOPS_LAYOUTS=rep3 (or ec21) profiles one layout only. Without
// --quick it then compares the OST's two ways of keeping small objects
// (bench/smallops-backends.ts).
// STRIPEFS_SMALLOPS_PROFILE=write (or read) with bench/profile-preload.cjs
// preloaded (see there) writes a CPU profile of every process for that phase.
import { randomFillSync } from 'node:crypto';
import { loadavg } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { type Layout, StripeClient } from '../client/index.js';
import { seededRandom } from '../common/random.js';
import { Semaphore } from '../common/semaphore.js';
import { adminFetch } from '../test/helpers/admin-http.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { type Cpu, cpuMs } from './cpu.js';
import { backendsWanted, compareBackends } from './smallops-backends.js';
import { type BenchResult, result, type SuiteOptions } from './types.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const FILE_BYTES = 64 * KiB;
const IN_FLIGHT = 16;
const PERMUTATION_SEED = 24;
const COMMAND = 'npm run bench -- --only smallops';
/** MDS calls that are the cluster's own, not a client's (left out of the per-file counts). */
const BACKGROUND_MDS_OPS = new Set(['heartbeat', 'registerOss', 'watchMap', 'getMap']);

const REP3: Layout = {
  pattern: 'replicated',
  stripeSize: 4 * MiB,
  stripeCount: 1,
  replicas: 3,
  failureDomain: 'host',
};

export const SMALLOPS_LAYOUTS: { name: 'rep3' | 'ec21' | 'dom'; layout: Layout }[] = [
  { name: 'rep3', layout: REP3 },
  { name: 'ec21', layout: { pattern: 'ec', stripeSize: 1 * MiB, k: 2, m: 1, failureDomain: 'host' } },
  // Data on the MDS: each 64 KiB file whole in the MDS database (issue 25's small files).
  { name: 'dom', layout: { pattern: 'dom', domBytes: 64 * KiB, rest: REP3 } },
];

const addCpu = (a: Cpu, b: Cpu): Cpu => ({ user: a.user + b.user, system: a.system + b.system });
const ZERO_CPU: Cpu = { user: 0, system: 0 };

/** Sums of a Prometheus text's counter or histogram `_count` series by one label's value. */
function seriesByLabel(text: string, metric: string, label: string): Map<string, number> {
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${metric}{`)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const match = new RegExp(`${label}="([^"]*)"`).exec(line);
    if (!match || !Number.isFinite(value)) continue;
    sums.set(match[1] as string, (sums.get(match[1] as string) ?? 0) + value);
  }
  return sums;
}

interface Counts {
  mdsCalls: Map<string, number>;
  ossOps: Map<string, number>;
  groupWrites: number;
  /** The MDS's garbage-collection pauses so far (ms) and its major collections. */
  mdsGcMs: number;
  mdsMajorGcs: number;
  /** The OSSs' mark-compacts (major and incremental collections) so far, all OSSs together. */
  ossMajorGcs: number;
  /** Writes the OSSs' write fences held so far (oss/write-fence.ts), all OSSs together. */
  fenceHolds: number;
}

/** What the servers counted so far: MDS calls by method, OSS requests by op, synced MDS writes. */
async function counts(cluster: BenchCluster): Promise<Counts> {
  const text = async (url: string) => {
    const answer = await adminFetch(`${url}/metrics`);
    if (!answer.ok) throw new Error(`${url}/metrics answered ${answer.status}`);
    return answer.text();
  };
  const mdsText = await text(cluster.mdsAdminUrl);
  const ossTexts = await Promise.all(cluster.specs.map((s) => text(cluster.adminUrlOf(s.id))));
  const ossOps = new Map<string, number>();
  let ossMajorGcs = 0;
  let fenceHolds = 0;
  for (const t of ossTexts) {
    const held = t.split('\n').find((l) => /^stripefs_oss_write_fence_held[{ ]/.test(l));
    fenceHolds += Number(held?.slice(held.lastIndexOf(' ') + 1) ?? 0);
    for (const [op, n] of seriesByLabel(t, 'stripefs_oss_ops_total', 'op'))
      ossOps.set(op, (ossOps.get(op) ?? 0) + n);
    const gcs = seriesByLabel(t, 'stripefs_nodejs_gc_duration_seconds_count', 'kind');
    ossMajorGcs += (gcs.get('major') ?? 0) + (gcs.get('incremental') ?? 0);
  }
  const groupLine = mdsText.split('\n').find((l) => l.startsWith('stripefs_mds_group_writes{'));
  return {
    mdsCalls: seriesByLabel(mdsText, 'stripefs_mds_request_seconds_count', 'op'),
    ossOps,
    groupWrites: Number(groupLine?.slice(groupLine.lastIndexOf(' ') + 1) ?? 0),
    mdsGcMs: sumOf(seriesByLabel(mdsText, 'stripefs_nodejs_gc_duration_seconds_sum', 'kind')) * 1000,
    mdsMajorGcs:
      seriesByLabel(mdsText, 'stripefs_nodejs_gc_duration_seconds_count', 'kind').get('major') ?? 0,
    ossMajorGcs,
    fenceHolds,
  };
}

const sumOf = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

/** CPU so far of the client, the MDS and the OSSs together. */
function cpuNow(cluster: BenchCluster): { client: Cpu; mds: Cpu; oss: Cpu } {
  return {
    client: cpuMs(),
    mds: cpuMs(cluster.mds.child.pid),
    oss: cluster.oss.reduce((sum, p) => addCpu(sum, cpuMs(p.child.pid)), ZERO_CPU),
  };
}

export interface PhaseProfile {
  files: number;
  perSec: number;
  cpuMsPerFile: { client: number; mds: number; oss: number; total: number };
  /** The system (kernel) part of each. */
  systemMsPerFile: { client: number; mds: number; oss: number };
  /** The client's garbage-collection pauses (part of its CPU). */
  clientGcMsPerFile: number;
  /** The MDS's garbage-collection pauses (part of its CPU) and its major collections per file. */
  mdsGcMsPerFile: number;
  mdsMajorGcsPerFile: number;
  /** The OSSs' mark-compacts per file, all OSSs together. */
  ossMajorGcsPerFile: number;
  /** Writes held by an OSS's write fence per file. */
  fenceHoldsPerFile: number;
  mdsCallsPerFile: Record<string, number>;
  ossOpsPerFile: Record<string, number>;
  groupWritesPerFile: number;
}

function delta(
  before: Map<string, number>,
  after: Map<string, number>,
  files: number,
  skip = new Set<string>(),
) {
  const out: Record<string, number> = {};
  for (const [key, n] of after) {
    const d = n - (before.get(key) ?? 0);
    if (d > 0 && !skip.has(key)) out[key] = d / files;
  }
  return out;
}

/** Sums the garbage-collection pauses of this process from now until stop(). */
function gcTimer(): { stop(): number } {
  let ms = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) ms += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop: () => {
      for (const entry of observer.takeRecords()) ms += entry.duration;
      observer.disconnect();
      return ms;
    },
  };
}

/** A server counts a request once it has answered, which may be just after the client heard it. */
const COUNTS_SETTLE_MS = 300;

/** Runs `op(i)` for i < files, IN_FLIGHT at a time, and profiles the whole phase. */
export async function profilePhase(
  cluster: BenchCluster,
  files: number,
  op: (i: number) => Promise<unknown>,
  profiled = false,
): Promise<PhaseProfile> {
  const gate = new Semaphore(IN_FLIGHT);
  const run = () => Promise.all(Array.from({ length: files }, (_, i) => gate.run(() => op(i))));
  return (await measured(cluster, files, run, profiled)).profile;
}

/**
 * Runs `work`, `items` operations of some kind, and profiles it per item: rate, CPU of each
 * process, MDS calls and OSS requests (what bounds a small-file workload).
 */
export async function measured<T>(
  cluster: BenchCluster,
  items: number,
  work: () => Promise<T>,
  profiled = false,
): Promise<{ value: T; profile: PhaseProfile }> {
  const countsBefore = await counts(cluster);
  if (profiled) signalAll(cluster);
  const gc = gcTimer();
  const cpuBefore = cpuNow(cluster);
  const started = performance.now();
  const value = await work();
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuNow(cluster);
  const clientGcMs = gc.stop();
  if (profiled) signalAll(cluster);
  await new Promise((resolve) => setTimeout(resolve, COUNTS_SETTLE_MS));
  const countsAfter = await counts(cluster);
  const per = (a: number, b: number) => (b - a) / items;
  const perCpu = (a: Cpu, b: Cpu) => per(a.user + a.system, b.user + b.system);
  const cpu = {
    client: perCpu(cpuBefore.client, cpuAfter.client),
    mds: perCpu(cpuBefore.mds, cpuAfter.mds),
    oss: perCpu(cpuBefore.oss, cpuAfter.oss),
  };
  const profile: PhaseProfile = {
    files: items,
    perSec: items / seconds,
    cpuMsPerFile: { ...cpu, total: cpu.client + cpu.mds + cpu.oss },
    clientGcMsPerFile: clientGcMs / items,
    mdsGcMsPerFile: per(countsBefore.mdsGcMs, countsAfter.mdsGcMs),
    mdsMajorGcsPerFile: per(countsBefore.mdsMajorGcs, countsAfter.mdsMajorGcs),
    ossMajorGcsPerFile: per(countsBefore.ossMajorGcs, countsAfter.ossMajorGcs),
    fenceHoldsPerFile: per(countsBefore.fenceHolds, countsAfter.fenceHolds),
    systemMsPerFile: {
      client: per(cpuBefore.client.system, cpuAfter.client.system),
      mds: per(cpuBefore.mds.system, cpuAfter.mds.system),
      oss: per(cpuBefore.oss.system, cpuAfter.oss.system),
    },
    mdsCallsPerFile: delta(countsBefore.mdsCalls, countsAfter.mdsCalls, items, BACKGROUND_MDS_OPS),
    ossOpsPerFile: delta(countsBefore.ossOps, countsAfter.ossOps, items),
    groupWritesPerFile: per(countsBefore.groupWrites, countsAfter.groupWrites),
  };
  return { value, profile };
}

/** What bounds a phase, per item, in a line a bench note can carry. */
export function boundsOf(p: PhaseProfile, item = 'file'): string {
  const c = p.cpuMsPerFile;
  const sumOf = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  return (
    `CPU ms/${item}: client ${c.client.toFixed(2)}, MDS ${c.mds.toFixed(2)}, OSSs ${c.oss.toFixed(2)}; ` +
    `GC ms/${item}: client ${p.clientGcMsPerFile.toFixed(2)}, MDS ${p.mdsGcMsPerFile.toFixed(2)} (${(p.mdsMajorGcsPerFile * 1000).toFixed(1)} MDS major collections per 1,000; OSSs ${(p.ossMajorGcsPerFile * 1000).toFixed(1)}); ` +
    `MDS calls/${item} ${sumOf(p.mdsCallsPerFile).toFixed(2)}, OSS requests/${item} ${sumOf(p.ossOpsPerFile).toFixed(2)}; ` +
    `load ${loadavg()[0]?.toFixed(1)}`
  );
}

/** Starts or stops the CPU profile of every process (bench/profile-preload.cjs). */
function signalAll(cluster: BenchCluster): void {
  for (const p of [cluster.mds, ...cluster.oss]) p.child.kill('SIGUSR2');
  process.kill(process.pid, 'SIGUSR2');
}

/** Every file once, in a seeded random order (a loader's permutation; no two reads of one file share a fetch). */
export function permutation(files: number): number[] {
  const random = seededRandom(PERMUTATION_SEED);
  const order = Array.from({ length: files }, (_, i) => i);
  for (let i = files - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

export async function profileLayout(
  cluster: BenchCluster,
  name: string,
  layout: Layout,
  files: number,
): Promise<{ write: PhaseProfile; read: PhaseProfile }> {
  const dir = `/smallops/${name}-${Date.now()}`;
  const data = randomFillSync(Buffer.alloc(FILE_BYTES));
  const writer = await StripeClient.connect({ mds: cluster.mdsAddress });
  let write: PhaseProfile;
  try {
    await writer.mkdir(dir, { recursive: true, layout });
    write = await profilePhase(
      cluster,
      files,
      (i) => writer.writeFile(`${dir}/${i}`, data),
      process.env.STRIPEFS_SMALLOPS_PROFILE === 'write',
    );
  } finally {
    await writer.close();
  }
  const reader = await StripeClient.connect({
    mds: cluster.mdsAddress,
    limits: { cacheBytesMax: 0, readaheadTotalBytesMax: 0 },
  });
  const order = permutation(files);
  try {
    const read = await profilePhase(
      cluster,
      files,
      async (n) => {
        const got = await reader.readFile(`${dir}/${order[n]}`);
        if (got.length !== FILE_BYTES) throw new Error(`read ${got.length} bytes of ${FILE_BYTES}`);
      },
      process.env.STRIPEFS_SMALLOPS_PROFILE === 'read',
    );
    return { write, read };
  } finally {
    await reader.close();
  }
}

function describe(p: PhaseProfile): string {
  const calls = (r: Record<string, number>) =>
    Object.entries(r)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ');
  const c = p.cpuMsPerFile;
  const s = p.systemMsPerFile;
  return (
    `CPU ms/file (system part) client ${c.client.toFixed(2)} (${s.client.toFixed(2)}; GC ${p.clientGcMsPerFile.toFixed(2)}), ` +
    `MDS ${c.mds.toFixed(2)} (${s.mds.toFixed(2)}), OSSs ${c.oss.toFixed(2)} (${s.oss.toFixed(2)}); ` +
    `MDS calls/file: ${calls(p.mdsCallsPerFile)}; OSS requests/file: ${calls(p.ossOpsPerFile)}; ` +
    `synced MDS writes/file ${p.groupWritesPerFile.toFixed(2)}; ` +
    `writes held by a write fence/file ${p.fenceHoldsPerFile.toFixed(2)}; ` +
    `mark-compacts per 1,000 files: MDS ${(p.mdsMajorGcsPerFile * 1000).toFixed(1)}, OSSs ${(p.ossMajorGcsPerFile * 1000).toFixed(1)}; ` +
    `load ${loadavg()[0]?.toFixed(1)}`
  );
}

const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

function rows(name: string, phase: 'write' | 'read', p: PhaseProfile): BenchResult[] {
  const id = `smallops.${name}.${phase}-64k`;
  return [
    result(id, p.perSec, 'files/s', COMMAND, undefined, describe(p)),
    result(`${id}.cpu-client`, p.cpuMsPerFile.client, 'ms/file', COMMAND),
    result(`${id}.cpu-mds`, p.cpuMsPerFile.mds, 'ms/file', COMMAND),
    result(`${id}.cpu-oss`, p.cpuMsPerFile.oss, 'ms/file', COMMAND),
    result(`${id}.mds-calls`, sum(p.mdsCallsPerFile), 'calls/file', COMMAND),
    result(`${id}.oss-requests`, sum(p.ossOpsPerFile), 'requests/file', COMMAND),
  ];
}

export async function runSmallOpsBench({
  quick,
  cluster: shared,
  files = quick ? 500 : 2_000,
}: SuiteOptions & { files?: number }): Promise<BenchResult[]> {
  const out = await profileLayouts(shared, files);
  // After the layouts' cluster is stopped (when it is the suite's own): the comparison starts two more.
  if (backendsWanted(quick)) out.push(...(await compareBackends(Math.min(files, 1_000), BACKEND_ROUNDS)));
  return out;
}

/** Rounds of each side of the backend comparison (bench/smallops-backends.ts). */
const BACKEND_ROUNDS = 5;

async function profileLayouts(shared: SuiteOptions['cluster'], files: number): Promise<BenchResult[]> {
  const own = shared ? undefined : await startBenchCluster();
  const cluster = own ?? (await (shared as () => Promise<BenchCluster>)());
  try {
    const out: BenchResult[] = [];
    const only = process.env.STRIPEFS_SMALLOPS_LAYOUTS?.split(',');
    for (const { name, layout } of SMALLOPS_LAYOUTS.filter((l) => !only || only.includes(l.name))) {
      const { write, read } = await profileLayout(cluster, name, layout, files);
      process.stderr.write(
        `smallops ${name} write: ${write.perSec.toFixed(0)} files/s; ${describe(write)}\n`,
      );
      process.stderr.write(`smallops ${name} read: ${read.perSec.toFixed(0)} files/s; ${describe(read)}\n`);
      out.push(...rows(name, 'write', write), ...rows(name, 'read', read));
    }
    return out;
  } finally {
    await own?.stop();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await runSmallOpsBench({ quick: process.argv.includes('--quick') });
  for (const r of results) process.stdout.write(`${r.id} ${r.value.toFixed(2)} ${r.unit}\n`);
}
