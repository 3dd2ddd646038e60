// The fault suite's cluster: 1 MDS on fixed ports (so it can be SIGKILLed and
// started again where the OSSs and clients expect it) and OSS child processes
// laid out in hosts and racks as the launcher does (one OSS per host). Each
// OSS can be killed and revived with its data, started inside a network
// namespace, or given its own configuration (a small quota).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MdsClient } from '../../client/mds-client.js';
import { type StartedProcess, startProcess } from '../helpers/process.js';

export const MDS_SCRIPT = 'dist/mds/main.js';
export const OSS_SCRIPT = 'dist/oss/main.js';
const READY_TIMEOUT_MS = 40_000;
const MAP_WAIT_MS = 40_000;

export interface OssSpec {
  id: string;
  host: string;
  rack: string;
  osts: number;
  /** Extra environment (e.g. STRIPEFS_OSS_OST_CAPACITY_BYTES). */
  env?: Record<string, string>;
  /** Run inside this network namespace (`ip netns exec`), binding and advertising `bindHost`. */
  netns?: string;
  bindHost?: string;
}

export interface FaultClusterOptions {
  oss: OssSpec[];
  mdsGrpcPort: number;
  /** The MDS binds here and everyone reaches it here (default 127.0.0.1). */
  mdsHost?: string;
  heartbeatIntervalMs?: number;
  extraEnv?: Record<string, string>;
}

export interface FaultCluster {
  readonly mdsAddress: string;
  readonly mdsAdminUrl: string;
  readonly dir: string;
  mds: StartedProcess;
  readonly oss: Map<string, StartedProcess | undefined>;
  readonly specs: OssSpec[];
  ostCount(): number;
  killOss(id: string, signal?: NodeJS.Signals): Promise<void>;
  reviveOss(id: string): Promise<void>;
  killMds(): Promise<void>;
  startMds(): Promise<void>;
  /** OST ids served by an OSS (from its ready line), and the OSS of an OST. */
  ostsOf(ossId: string): number[];
  ossOfOst(ostId: number): OssSpec;
  /** Folder holding an OST's object files (<oss data>/ostN/objects). */
  objectsDirOf(ostId: number): string;
  adminUrlOf(ossId: string): string;
  stop(): Promise<void>;
}

/** The launcher's shape: hosts h0..h(n-1), `perRack` hosts per rack, one OSS per host. */
export function rackLayout(hosts: number, perRack: number, osts = 2): OssSpec[] {
  return Array.from({ length: hosts }, (_, i) => ({
    id: `oss${i}`,
    host: `h${i}`,
    rack: `r${Math.floor(i / perRack)}`,
    osts,
  }));
}

/** startProcess through `ip netns exec` (which execs node, so the pid is node's). */
function startInNamespace(netns: string, env: Record<string, string>): Promise<StartedProcess> {
  return startProcess({
    script: OSS_SCRIPT,
    env,
    execVia: ['ip', 'netns', 'exec', netns],
    readyTimeoutMs: 20_000,
  });
}

export async function startFaultCluster(options: FaultClusterOptions): Promise<FaultCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-faults-'));
  const heartbeat = options.heartbeatIntervalMs ?? 200;
  const common: Record<string, string> = {
    STRIPEFS_MDS_HEARTBEAT_INTERVAL_MS: String(heartbeat),
    STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: String(heartbeat * 5),
    // Fewer PGs than the default 128: fsck lists every PG of every OST.
    STRIPEFS_MDS_PG_COUNT: '32',
    ...options.extraEnv,
  };
  const mdsHost = options.mdsHost ?? '127.0.0.1';
  const mdsAddress = `${mdsHost}:${options.mdsGrpcPort}`;
  const mdsEnv = {
    ...common,
    STRIPEFS_MDS_BIND_HOST: mdsHost,
    STRIPEFS_MDS_GRPC_PORT: String(options.mdsGrpcPort),
    STRIPEFS_MDS_ADMIN_PORT: String(options.mdsGrpcPort + 1),
    STRIPEFS_MDS_DATA_DIR: join(dir, 'mds'),
  };
  const startMdsProcess = (): Promise<StartedProcess> =>
    startProcess({ script: MDS_SCRIPT, env: mdsEnv, readyTimeoutMs: READY_TIMEOUT_MS });
  const mds = await startMdsProcess();
  const oss = new Map<string, StartedProcess | undefined>();
  const readyOsts = new Map<string, number[]>();
  const ossEnv = (spec: OssSpec): Record<string, string> => ({
    ...common,
    STRIPEFS_MDS: mdsAddress,
    STRIPEFS_OSS_ID: spec.id,
    STRIPEFS_OSS_HOST: spec.host,
    STRIPEFS_OSS_RACK: spec.rack,
    STRIPEFS_OSS_DATA_DIR: join(dir, spec.id),
    STRIPEFS_OSS_OSTS: String(spec.osts),
    ...(spec.bindHost ? { STRIPEFS_OSS_BIND_HOST: spec.bindHost } : {}),
    ...spec.env,
  });
  const startOss = async (spec: OssSpec): Promise<void> => {
    const env = ossEnv(spec);
    const started = spec.netns
      ? await startInNamespace(spec.netns, env)
      : await startProcess({ script: OSS_SCRIPT, env, readyTimeoutMs: READY_TIMEOUT_MS });
    oss.set(spec.id, started);
    const osts = (started.ready.osts as { id: number | null }[]).map((o) => o.id ?? -1);
    readyOsts.set(spec.id, osts);
  };
  const cluster: FaultCluster = {
    mdsAddress,
    mdsAdminUrl: `http://${mdsHost}:${options.mdsGrpcPort + 1}`,
    dir,
    mds,
    oss,
    specs: options.oss,
    ostCount: () => options.oss.reduce((n, s) => n + s.osts, 0),
    async killOss(id, signal = 'SIGKILL') {
      await oss.get(id)?.kill(signal);
      oss.set(id, undefined);
    },
    async reviveOss(id) {
      const spec = options.oss.find((s) => s.id === id);
      if (!spec) throw new Error(`no OSS ${id}`);
      await startOss(spec);
    },
    async killMds() {
      await cluster.mds.kill('SIGKILL');
    },
    async startMds() {
      cluster.mds = await startMdsProcess();
    },
    ostsOf: (ossId) => readyOsts.get(ossId) ?? [],
    ossOfOst(ostId) {
      const spec = options.oss.find((s) => readyOsts.get(s.id)?.includes(ostId));
      if (!spec) throw new Error(`no OSS serves OST ${ostId}`);
      return spec;
    },
    objectsDirOf(ostId) {
      const spec = cluster.ossOfOst(ostId);
      const local = (readyOsts.get(spec.id) ?? []).indexOf(ostId);
      return join(dir, spec.id, `ost${local}`, 'objects');
    },
    adminUrlOf(ossId) {
      const started = oss.get(ossId);
      if (!started) throw new Error(`OSS ${ossId} is not running`);
      const spec = options.oss.find((s) => s.id === ossId);
      return `http://${spec?.bindHost ?? '127.0.0.1'}:${started.ready.adminPort}`;
    },
    async stop() {
      await Promise.all([...oss.values()].map((p) => p?.stop()));
      await cluster.mds.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    // Two at a time: the machine has two cores and each start loads node and the databases.
    for (let i = 0; i < options.oss.length; i += 2)
      await Promise.all(options.oss.slice(i, i + 2).map((spec) => startOss(spec)));
    await waitForMap(mdsAddress, (osts) => osts.filter((o) => o.up && o.in).length === cluster.ostCount());
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  return cluster;
}

export interface OstSeen {
  id: number;
  up: boolean;
  in: boolean;
}

/** Polls the MDS map until `done(osts)` holds; returns the map epoch. */
export async function waitForMap(
  mdsAddress: string,
  done: (osts: OstSeen[]) => boolean,
  timeoutMs = MAP_WAIT_MS,
): Promise<number> {
  const mds = new MdsClient(mdsAddress);
  const deadline = Date.now() + timeoutMs;
  let last = '';
  try {
    for (;;) {
      const view = await mds.refreshMap().catch(() => undefined);
      if (view) {
        const osts = [...view.osts.values()].map((o) => ({ id: o.id, up: o.up, in: o.in }));
        if (done(osts)) return view.epoch;
        last = osts.map((o) => `${o.id}:${o.up ? 'up' : 'down'}/${o.in ? 'in' : 'out'}`).join(' ');
      }
      if (Date.now() > deadline) throw new Error(`map did not settle in ${timeoutMs} ms: ${last}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    mds.close();
  }
}

/** Waits until these OSTs are down (or up) in the map. */
export function waitOstsState(mdsAddress: string, osts: number[], up: boolean): Promise<number> {
  return waitForMap(mdsAddress, (seen) => osts.every((id) => seen.find((o) => o.id === id)?.up === up));
}

/** GET an admin URL as JSON. */
export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Sets (null clears) the fault knobs of an OST through its OSS's admin API. */
export async function setFaults(
  cluster: FaultCluster,
  ostId: number,
  knobs: Record<string, number | boolean> | null,
): Promise<void> {
  const url = `${cluster.adminUrlOf(cluster.ossOfOst(ostId).id)}/api/osts/${ostId}/faults`;
  const res = await fetch(url, {
    method: knobs ? 'PUT' : 'DELETE',
    ...(knobs ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(knobs) } : {}),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
}

/** Waits until every PG of the cluster is clean (convergence after faults stop). */
export async function waitForCleanPgs(cluster: FaultCluster, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    last = await getJson<{ total: number; byState: Record<string, number> }>(
      `${cluster.mdsAdminUrl}/api/pgs`,
    );
    const summary = last as { total: number; byState: Record<string, number> };
    if ((summary.byState.clean ?? 0) === summary.total) return;
    if (Date.now() > deadline) throw new Error(`PGs not clean in ${timeoutMs} ms: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
