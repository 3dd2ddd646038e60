// One chaos run: a real cluster (test/helpers/cluster.ts), the workload, the
// seeded fault schedule, then convergence (faults undone, every PG clean),
// a final read of every file, and the checker over the whole history.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StripeClient } from '../../client/index.js';
import { seededRandom } from '../../common/random.js';
import { connectReader } from '../helpers/clients.js';
import { type Cluster, type OssSpec, rackLayout, startCluster, waitCleanPgs } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { NetNamespace } from '../helpers/netns.js';
import { freePortRange } from '../helpers/ports.js';
import { type CheckResult, checkHistory, describeViolation } from './checker.js';
import { FaultRunner } from './faults.js';
import { History } from './history.js';
import { describeEpisode, type Episode, type FaultAction, planSchedule } from './schedule.js';
import { scrubAll } from './scrub.js';
import { type ChaosFile, chaosFiles, Workload } from './workload.js';

export interface ChaosOptions {
  seed: number;
  /** How long writers, readers and faults run (the set-up and the convergence come on top). */
  durationMs: number;
  /** OSS hosts, two per rack, two OSTs each (4: replicated:3 and ec:2+2; 6 and more: ec:4+2). */
  hosts: number;
  writers: number;
  readers: number;
  /** Where the history goes as JSON lines (default: a file in the temporary folder, printed). */
  historyPath?: string;
  /** Keep only these kinds of fault (all by default): to find which faults a violation needs. */
  only?: FaultAction['kind'][];
  /** Put the last host in its own network namespace for partitions (root only; skipped with a message otherwise). */
  partition: boolean;
  /** Keep every server's log (level info) in this folder, one file per server. */
  logDir?: string;
  log: (line: string) => void;
}

export interface ChaosResult extends CheckResult {
  seed: number;
  historyPath: string;
  schedule: Episode[];
  faultsApplied: number;
  /** Objects the deep scrub after convergence compared. */
  objectsScrubbed: number;
  /** Why partitions were left out, when they were. */
  partitionSkipped?: string;
  /** Every violation as printed (what, then the smallest slice of the history that shows it), then the scrub's findings. */
  report: string[];
}

/**
 * How long convergence (every PG clean after the faults stop) may take before the run fails;
 * STRIPEFS_CHAOS_CLEAN_MS shortens it to look at a cluster that never gets clean sooner.
 */
const CLEAN_TIMEOUT_MS = Number(process.env.STRIPEFS_CHAOS_CLEAN_MS ?? 600_000);
/** How long a client may take to connect to an MDS the faults' undo has just started again. */
const MDS_BACK_TIMEOUT_MS = 60_000;
const FILES_PER_LAYOUT = 3;
const FILE_SIZE_MAX_BYTES = 1024 * 1024;

function layoutsFor(hosts: number): string[] {
  return ['replicated:3:host:2:64K', hosts >= 6 ? 'ec:4+2:host:64K' : 'ec:2+2:host:64K'];
}

async function startChaosCluster(options: ChaosOptions, net: NetNamespace | undefined): Promise<Cluster> {
  const last = `oss${options.hosts - 1}`;
  const oss: OssSpec[] = rackLayout(options.hosts, 2).map((spec) => {
    if (!net) return spec;
    return spec.id === last
      ? { ...spec, netns: net.name, bindHost: net.nsAddress }
      : { ...spec, bindHost: net.hostAddress };
  });
  return startCluster({
    oss,
    mdsGrpcPort: await freePortRange(2),
    ...(net ? { mdsHost: net.hostAddress } : {}),
    pgCount: 16,
    ...(options.logDir ? { logDir: options.logDir, extraEnv: { STRIPEFS_LOG_LEVEL: 'info' } } : {}),
  });
}

/** The run's network namespace for partitions, or why there is none. */
function namespaceFor(options: ChaosOptions): { net?: NetNamespace; partitionSkipped?: string } {
  if (!options.partition) return { partitionSkipped: 'not asked for' };
  const net = new NetNamespace(`sfc-${process.pid}`, `c${process.pid}`, process.pid + 125);
  const why = net.make();
  if (!why) return { net };
  options.log(`partitions left out of the schedule: ${why}`);
  return { partitionSkipped: why };
}

export async function runChaos(options: ChaosOptions): Promise<ChaosResult> {
  const { seed, log } = options;
  const historyPath = options.historyPath ?? join(tmpdir(), `stripefs-chaos-${seed}-${process.pid}.jsonl`);
  const { net, partitionSkipped } = namespaceFor(options);
  // Stopped by a signal: the servers stop with this process (they watch it), the namespace does not.
  const onSignal = (signal: NodeJS.Signals) => {
    net?.remove();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  const cluster = await startChaosCluster(options, net).catch((err) => {
    net?.remove();
    throw err;
  });
  const clients: StripeClient[] = [];
  try {
    const connect = async (n: number) => {
      const client = await connectReader(cluster.mdsAddress, (seed + n) >>> 0, { requestTimeoutMs: 5_000 });
      clients.push(client);
      return client;
    };
    const schedule = planSchedule(seed, {
      oss: cluster.specs.map((s) => ({ id: s.id, osts: cluster.ostsOf(s.id) })),
      ...(net ? { partitionable: `oss${options.hosts - 1}` } : {}),
      durationMs: options.durationMs,
      ...(options.only ? { only: options.only } : {}),
    });
    log(
      `schedule (${schedule.length} episodes):\n${schedule.map((e) => `  ${describeEpisode(e)}`).join('\n')}`,
    );
    const history = new History(historyPath);
    const files = chaosFiles(layoutsFor(options.hosts), FILES_PER_LAYOUT, FILE_SIZE_MAX_BYTES);
    const workload = new Workload(files, history);
    await workload.setup(await connect(0));
    const faults = new FaultRunner(cluster, history, net, log);
    const faultsApplied = await runPhase(options, workload, faults, schedule, connect);
    log('faults stopped');
    const scrub = await converge(cluster, workload, files, () => connect(1_000), log);
    const checked = checkHistory(history.events);
    const report = [
      ...checked.violations.map((v) => describeViolation(history.events, v)),
      ...scrub.problems,
    ];
    return {
      ...checked,
      seed,
      historyPath,
      schedule,
      faultsApplied,
      objectsScrubbed: scrub.objectsScanned,
      ...(net ? {} : { partitionSkipped }),
      report,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined /* the run is over either way */)));
    await cluster.stop();
    net?.remove();
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}

/**
 * After the faults: the units whose last write failed are written once more (as a writer retries a
 * failed write), then every PG clean, a deep scrub, a final read of every file. The retry comes
 * first: a failed ec stripe write may leave the stripe's readable chunks holding two writes, and a
 * chunk that missed a write is rebuilt only from k chunks of one write (the write hole,
 * docs/ARCHITECTURE.md), so its repair waits for the stripe to be written again. A cluster that
 * does not get clean is a finding too (the history is still checked; the scrub and final reads are
 * left out).
 */
async function converge(
  cluster: Cluster,
  workload: Workload,
  files: ChaosFile[],
  connect: () => Promise<StripeClient>,
  log: (line: string) => void,
): Promise<{ objectsScanned: number; problems: string[] }> {
  // The MDS may have been started again just now (a kill-mds episode undone by healAll), and this
  // process's channel to it may still be backing off: ask again for a while, as a client would.
  const fresh = await eventually(connect, {
    timeoutMs: MDS_BACK_TIMEOUT_MS,
    what: 'a client connected to the MDS after the faults',
    intervalMs: 500,
  });
  const settled = await workload.settle(fresh);
  log(
    `${settled} files written once more where a failed write left its units; waiting for every PG to be clean`,
  );
  try {
    await waitCleanPgs(cluster, { timeoutMs: CLEAN_TIMEOUT_MS });
  } catch (err) {
    const problems = [`convergence: ${(err as Error).message.slice(0, 2000)}`];
    problems.push(
      ...(await unclean(cluster).catch((e) => [`convergence: no PG details (${(e as Error).message})`])),
    );
    return { objectsScanned: 0, problems };
  }
  log('every PG clean; a deep scrub of every copy, then a final read of every file');
  const scrub = await scrubAll(cluster);
  for (const f of files) await workload.readOnce(fresh, f, 0, true);
  return { ...scrub, problems: scrub.problems.map((p) => `scrub after clean: ${p}`) };
}

/** What a cluster that never got clean shows: its OSTs' states and each PG left unclean, with its record. */
async function unclean(cluster: Cluster): Promise<string[]> {
  const { map } = await cluster.admin<{
    map: { osts?: { id: number; state: unknown }[]; pools?: { id: number; name: string }[] };
  }>('/api/cluster');
  const pgs = await cluster.admin<{ nonClean: { pool: string; pg: number; state: string }[] }>('/api/pgs');
  const lines = [`convergence: osts ${JSON.stringify(map.osts?.map((o) => [o.id, o.state]))}`];
  for (const pg of pgs.nonClean) {
    const poolId = map.pools?.find((p) => p.name === pg.pool)?.id;
    const detail = await cluster
      .admin(`/api/pgs/${poolId}/${pg.pg}`)
      .catch((e) => `(${(e as Error).message})`);
    lines.push(`convergence: ${pg.pool} pg ${poolId}/${pg.pg} ${pg.state}: ${JSON.stringify(detail)}`);
  }
  return lines;
}

/** Writers, readers and faults for `durationMs`, with a progress line every few seconds; returns the faults applied. */
async function runPhase(
  options: ChaosOptions,
  workload: Workload,
  faults: FaultRunner,
  schedule: Episode[],
  connect: (n: number) => Promise<StripeClient>,
): Promise<number> {
  const workers: Promise<void>[] = [];
  for (let i = 0; i < options.writers; i++)
    workers.push(workload.writer(await connect(10 + i), seededRandom((options.seed + 101 * (i + 1)) >>> 0)));
  for (let i = 0; i < options.readers; i++)
    workers.push(workload.reader(await connect(100 + i), seededRandom((options.seed + 307 * (i + 1)) >>> 0)));
  const startedAtMs = performance.now();
  const faulting = faults.run(schedule, startedAtMs);
  const progress = setInterval(() => {
    const seconds = ((performance.now() - startedAtMs) / 1000).toFixed(0);
    options.log(`${seconds}s: ${workload.progress()}; faults applied ${faults.applied}`);
  }, 10_000);
  await new Promise((resolve) => setTimeout(resolve, options.durationMs));
  workload.stopped = true;
  faults.stop();
  clearInterval(progress);
  await Promise.all(workers);
  await faulting;
  await faults.healAll();
  return faults.applied;
}
