// The one real cluster of the tests and benches: an MDS and OSS child
// processes on 127.0.0.1, laid out in hosts and racks as the launcher does
// (one OSS per host), in a fresh temporary folder. Ready when the map shows
// every OST up and in. By default six hosts h0..h5 in racks r0..r2 with two
// OSTs each, the MDS on port 0; a fixed MDS port lets a test SIGKILL the MDS
// and start it again where the OSSs and clients expect it. An OSS can be
// killed and revived on its data, started inside a network namespace, or
// given its own configuration (a small quota).
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { MdsClient } from '../../client/mds-client.js';
import { ensureKeyring, OSS_SERVICE_NAME } from '../../common/auth/keyring.js';
import { type TlsSettings, tlsSettingsOf } from '../../common/tls.js';
import type { TlsFiles } from '../../common/tls-files.js';
import { adminFetch, trustAdminOrigin } from './admin-http.js';
import { eventually } from './eventually.js';
import { type StartedProcess, startProcess } from './process.js';

export const MDS_SCRIPT = 'dist/mds/main.js';
export const OSS_SCRIPT = 'dist/oss/main.js';
/** Starting a server on a loaded 2-core host can take a minute and more; the deadline only bounds a hang. */
const READY_TIMEOUT_MS = 180_000;
const MAP_WAIT_MS = 120_000;

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

export interface ClusterOptions {
  /** The OSS processes (default `rackLayout(6, 2)`: six hosts, two per rack, two OSTs each). */
  oss?: OssSpec[];
  /** 0 (default): any free port, kept for a restarted MDS. */
  mdsGrpcPort?: number;
  /** The MDS binds here and everyone reaches it here (default 127.0.0.1). */
  mdsHost?: string;
  heartbeatIntervalMs?: number;
  /** Missed heartbeats before an OST is down (default 5). */
  heartbeatsPerTimeout?: number;
  /** PGs per pool (the MDS's default unless set; fsck lists every PG of every OST, so fewer is faster). */
  pgCount?: number;
  extraEnv?: Record<string, string>;
  /**
   * TLS on every gRPC and bulk port (common/tls.ts): the processes get these files (made by
   * common/tls-files.ts), and the helper's own clients check the servers with their CA.
   */
  tls?: TlsFiles;
  /**
   * Append every server's log (its stderr) to `<logDir>/<mds|oss id>.log` as well (a chaos run's
   * --logs); STRIPEFS_TEST_LOG_DIR sets it for every cluster a test starts (the level stays warn
   * at the level the test runs its servers at: warn unless it says otherwise).
   */
  logDir?: string;
}

export interface Cluster {
  readonly mdsAddress: string;
  readonly mdsAdminUrl: string;
  readonly dir: string;
  mds: StartedProcess;
  /** The latest process of each OSS, in the order of `specs` (a killed one stays until revived). */
  readonly oss: StartedProcess[];
  readonly specs: OssSpec[];
  /** What a client checks the servers with when the cluster runs TLS (options.tls). */
  readonly tls: TlsSettings | undefined;
  ostCount(): number;
  /** Kills an OSS (by id or index into `oss`); `reviveOss` starts it again on its data. */
  killOss(which: string | number, signal?: NodeJS.Signals): Promise<void>;
  reviveOss(which: string | number): Promise<void>;
  /** Kills OSS `index` and starts it again (same id, host and folder); waits until every OST is up and in. */
  restartOss(index: number): Promise<void>;
  killMds(): Promise<void>;
  startMds(): Promise<void>;
  /** The running process of an OSS by id. */
  ossById(id: string): StartedProcess;
  /** OST ids served by an OSS (from its ready line), and the OSS serving an OST. */
  ostsOf(ossId: string): number[];
  ossOfOst(ostId: number): OssSpec;
  /** Index into `oss` of the process serving OST `ostId`. */
  ossIndexOfOst(ostId: number): number;
  /** Folder holding an OST's object files (<oss data>/ostN/objects). */
  objectsDirOf(ostId: number): string;
  adminUrlOf(ossId: string): string;
  /** JSON from the MDS admin API (`path` such as '/api/pgs'); a non-2xx answer throws. */
  admin<T = unknown>(path: string, init?: { method: string; body?: unknown }): Promise<T>;
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

function ossEnv(spec: OssSpec, common: Record<string, string>, mdsAddress: string, dir: string) {
  return {
    ...common,
    STRIPEFS_KEYRING: join(dir, 'oss.keyring'),
    STRIPEFS_MDS: mdsAddress,
    STRIPEFS_OSS_ID: spec.id,
    STRIPEFS_OSS_HOST: spec.host,
    STRIPEFS_OSS_RACK: spec.rack,
    STRIPEFS_OSS_DATA_DIR: join(dir, spec.id),
    STRIPEFS_OSS_OSTS: String(spec.osts),
    ...(spec.bindHost ? { STRIPEFS_OSS_BIND_HOST: spec.bindHost } : {}),
    ...spec.env,
  };
}

/** The environment every process of a cluster shares. */
function commonEnv(options: ClusterOptions): Record<string, string> {
  const heartbeatMs = options.heartbeatIntervalMs ?? 200;
  return {
    STRIPEFS_MDS_HEARTBEAT_INTERVAL_MS: String(heartbeatMs),
    // Five missed heartbeats (1 s): on a loaded 2-core host an OSS can miss three and flap
    // down and up, which degrades reads and moves PGs in suites that test neither.
    STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: String(heartbeatMs * (options.heartbeatsPerTimeout ?? 5)),
    ...(options.pgCount ? { STRIPEFS_MDS_PG_COUNT: String(options.pgCount) } : {}),
    ...(options.tls
      ? {
          STRIPEFS_TLS_CA: options.tls.caFile,
          STRIPEFS_TLS_CERT: options.tls.certFile,
          STRIPEFS_TLS_KEY: options.tls.keyFile,
        }
      : {}),
    ...options.extraEnv,
  };
}

class RunningCluster implements Cluster {
  readonly mdsAddress: string;
  readonly mdsAdminUrl: string;
  readonly oss: StartedProcess[] = [];
  private readonly ostIds = new Map<string, number[]>();

  constructor(
    readonly dir: string,
    readonly specs: OssSpec[],
    public mds: StartedProcess,
    private readonly mdsEnv: Record<string, string>,
    private readonly common: Record<string, string>,
    mdsHost: string,
    readonly tls: TlsSettings | undefined,
    private readonly logDir?: string,
  ) {
    // A restarted MDS comes back on the ports the first one got.
    mdsEnv.STRIPEFS_MDS_GRPC_PORT = String(mds.ready.grpcPort);
    mdsEnv.STRIPEFS_MDS_ADMIN_PORT = String(mds.ready.adminPort);
    if (typeof mds.ready.framePort === 'number' && mds.ready.framePort > 0)
      mdsEnv.STRIPEFS_MDS_FRAME_PORT = String(mds.ready.framePort);
    this.mdsAddress = `${mdsHost}:${mds.ready.grpcPort}`;
    this.mdsAdminUrl = `${tls ? 'https' : 'http'}://${mdsHost}:${mds.ready.adminPort}`;
    if (tls) trustAdminOrigin(this.mdsAdminUrl, tls);
  }

  private indexOf(which: string | number): number {
    const index = typeof which === 'number' ? which : this.specs.findIndex((s) => s.id === which);
    if (!this.specs[index]) throw new Error(`no OSS ${which} in the cluster`);
    return index;
  }

  async startOss(index: number): Promise<void> {
    const spec = this.specs[index] as OssSpec;
    const proc = await startProcess({
      script: OSS_SCRIPT,
      env: ossEnv(spec, this.common, this.mdsAddress, this.dir),
      readyTimeoutMs: READY_TIMEOUT_MS,
      ...(spec.netns ? { execVia: ['ip', 'netns', 'exec', spec.netns] } : {}),
      ...logTo(this.logDir, spec.id),
    });
    this.oss[index] = proc;
    this.ostIds.set(
      spec.id,
      (proc.ready.osts as { id: number | null }[]).map((o) => o.id ?? -1),
    );
  }

  ostCount(): number {
    return this.specs.reduce((n, s) => n + s.osts, 0);
  }

  async killOss(which: string | number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.oss[this.indexOf(which)]?.kill(signal);
  }

  reviveOss(which: string | number): Promise<void> {
    return this.startOss(this.indexOf(which));
  }

  async restartOss(index: number): Promise<void> {
    await this.killOss(index);
    await this.reviveOss(index);
    await waitForOsts(this.mdsAddress, this.ostCount(), undefined, this.tls);
  }

  async killMds(): Promise<void> {
    await this.mds.kill('SIGKILL');
  }

  async startMds(): Promise<void> {
    this.mds = await startProcess({
      script: MDS_SCRIPT,
      env: this.mdsEnv,
      readyTimeoutMs: READY_TIMEOUT_MS,
      ...logTo(this.logDir, 'mds'),
    });
  }

  ossById(id: string): StartedProcess {
    const proc = this.oss[this.indexOf(id)];
    if (!proc) throw new Error(`OSS ${id} was never started`);
    return proc;
  }

  ostsOf(ossId: string): number[] {
    return this.ostIds.get(ossId) ?? [];
  }

  ossOfOst(ostId: number): OssSpec {
    const spec = this.specs.find((s) => this.ostIds.get(s.id)?.includes(ostId));
    if (!spec) throw new Error(`no OSS serves OST ${ostId}`);
    return spec;
  }

  ossIndexOfOst(ostId: number): number {
    return this.indexOf(this.ossOfOst(ostId).id);
  }

  objectsDirOf(ostId: number): string {
    const spec = this.ossOfOst(ostId);
    const local = this.ostsOf(spec.id).indexOf(ostId);
    return join(this.dir, spec.id, `ost${local}`, 'objects');
  }

  adminUrlOf(ossId: string): string {
    const spec = this.specs[this.indexOf(ossId)] as OssSpec;
    const url = `${this.tls ? 'https' : 'http'}://${spec.bindHost ?? '127.0.0.1'}:${this.ossById(ossId).ready.adminPort}`;
    if (this.tls) trustAdminOrigin(url, this.tls);
    return url;
  }

  admin<T = unknown>(path: string, init?: { method: string; body?: unknown }): Promise<T> {
    return adminJson<T>(`${this.mdsAdminUrl}${path}`, init);
  }

  async stop(): Promise<void> {
    await Promise.all(this.oss.map((p) => p?.stop()));
    await this.mds.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * The admin keyring every process of these clusters signs with. Tests have one from
 * test/global-setup.ts; a bench run started outside vitest gets one here, once per process.
 */
export function ensureRunKeyring(): void {
  if (process.env.STRIPEFS_KEYRING) return;
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-keyring-'));
  const path = join(dir, 'admin.keyring');
  ensureKeyring(path, 'admin');
  process.env.STRIPEFS_KEYRING = path;
  // The run's servers are stopped (or exit with their spawner) by the time it exits: nothing left in /tmp.
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
}

/** What a client of a cluster with TLS checks its servers with: the CA of `files`. */
export function clientTlsOf(files: TlsFiles | undefined): TlsSettings | undefined {
  return (
    files &&
    tlsSettingsOf({ 'tls.ca': files.caFile, 'tls.cert': '', 'tls.key': '', 'tls.serverName': 'stripefs' })
  );
}

/** A server's log file under `logDir` (appended across its restarts), or nothing without one. */
function logTo(logDir: string | undefined, name: string): { logTo?: NodeJS.WritableStream } {
  if (!logDir) return {};
  mkdirSync(logDir, { recursive: true });
  return { logTo: createWriteStream(join(logDir, `${name}.log`), { flags: 'a' }) };
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  ensureRunKeyring();
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-cluster-'));
  const logDir = options.logDir ?? process.env.STRIPEFS_TEST_LOG_DIR;
  if (logDir !== undefined) options = { ...options, logDir: join(logDir, basename(dir)) };
  // The OSSs sign as a service identity of their own, as `stripefs cluster up` has them do.
  const ossKeyring = join(dir, 'oss.keyring');
  ensureKeyring(ossKeyring, OSS_SERVICE_NAME);
  const common = commonEnv(options);
  const mdsHost = options.mdsHost ?? '127.0.0.1';
  const mdsEnv: Record<string, string> = {
    ...common,
    STRIPEFS_AUTH_OSS_KEYRING: ossKeyring,
    STRIPEFS_MDS_BIND_HOST: mdsHost,
    STRIPEFS_MDS_GRPC_PORT: String(options.mdsGrpcPort ?? 0),
    STRIPEFS_MDS_ADMIN_PORT: String(options.mdsGrpcPort ? options.mdsGrpcPort + 1 : 0),
    STRIPEFS_MDS_DATA_DIR: join(dir, 'mds'),
  };
  const mds = await startProcess({
    script: MDS_SCRIPT,
    env: mdsEnv,
    readyTimeoutMs: READY_TIMEOUT_MS,
    ...logTo(options.logDir, 'mds'),
  });
  const specs = options.oss ?? rackLayout(6, 2);
  const cluster = new RunningCluster(
    dir,
    specs,
    mds,
    mdsEnv,
    common,
    mdsHost,
    clientTlsOf(options.tls),
    options.logDir,
  );
  try {
    const results = await Promise.allSettled(specs.map((_, i) => cluster.startOss(i)));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    await waitForOsts(cluster.mdsAddress, cluster.ostCount(), undefined, cluster.tls);
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

/** Waits until `done(osts)` holds for the MDS's map; returns the map epoch. */
export async function waitForMap(
  mdsAddress: string,
  done: (osts: OstSeen[]) => boolean,
  options: { what?: string; timeoutMs?: number; tls?: TlsSettings } = {},
): Promise<number> {
  const mds = new MdsClient(mdsAddress, options.tls ? { tls: options.tls } : {});
  try {
    return await eventually(
      async () => {
        const view = await mds.refreshMap();
        const osts = [...view.osts.values()].map((o) => ({ id: o.id, up: o.up, in: o.in }));
        if (done(osts)) return view.epoch;
        throw new Error(
          `epoch ${view.epoch}: ${osts.map((o) => `${o.id}:${o.up ? 'up' : 'down'}/${o.in ? 'in' : 'out'}`).join(' ')}`,
        );
      },
      { timeoutMs: options.timeoutMs ?? MAP_WAIT_MS, what: options.what ?? 'the map to settle' },
    );
  } finally {
    mds.close();
  }
}

/** Waits until `count` OSTs are in the map and `upCount` of them up and in. */
export function waitForOsts(
  mdsAddress: string,
  count: number,
  upCount = count,
  tls?: TlsSettings,
): Promise<number> {
  return waitForMap(
    mdsAddress,
    (osts) => osts.length >= count && osts.filter((o) => o.up && o.in).length === upCount,
    { what: `${upCount} of ${count} OSTs up and in`, ...(tls ? { tls } : {}) },
  );
}

/** Waits until these OSTs are down (or up) in the map. */
export function waitOstsState(mdsAddress: string, osts: number[], up: boolean): Promise<number> {
  return waitForMap(mdsAddress, (seen) => osts.every((id) => seen.find((o) => o.id === id)?.up === up), {
    what: `OSTs ${osts.join(',')} ${up ? 'up' : 'down'}`,
  });
}

/** Waits until `count` OSTs are out of the map. */
export function waitOut(mdsAddress: string, count: number, tls?: TlsSettings): Promise<number> {
  return waitForMap(mdsAddress, (seen) => seen.filter((o) => !o.in).length >= count, {
    what: `${count} OSTs out`,
    ...(tls ? { tls } : {}),
  });
}

/** GET (or another method with a JSON body) on an admin URL, as JSON; a non-2xx answer throws. */
export async function adminJson<T>(url: string, init?: { method: string; body?: unknown }): Promise<T> {
  const res = await adminFetch(url, {
    method: init?.method ?? 'GET',
    signal: AbortSignal.timeout(30_000),
    ...(init?.body !== undefined
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) }
      : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

export interface PgsAnswer {
  epoch?: number;
  total: number;
  byState: Record<string, number>;
  nonClean: { pool: string; pg: number; state: string; osts: number[]; holders?: number[] }[];
  recovery: {
    activePgs: number;
    pendingPgs: number;
    bytesLeft: number;
    rateBytesPerSec: number;
    etaSeconds: number | null;
  };
}

/** Waits until every PG is clean (convergence after faults stop), at `minEpoch` or later. */
export function waitCleanPgs(
  cluster: Pick<Cluster, 'mdsAdminUrl'>,
  options: { timeoutMs?: number; minEpoch?: number } = {},
): Promise<PgsAnswer> {
  return eventually(
    async () => {
      const pgs = await adminJson<PgsAnswer>(`${cluster.mdsAdminUrl}/api/pgs`);
      if (pgs.total > 0 && pgs.byState.clean === pgs.total && (pgs.epoch ?? 0) >= (options.minEpoch ?? 0))
        return pgs;
      const recovery = await adminJson(`${cluster.mdsAdminUrl}/api/recovery`);
      throw new Error(
        `${JSON.stringify(pgs.byState)} epoch ${pgs.epoch}; recovery ${JSON.stringify(recovery)}`,
      );
    },
    { timeoutMs: options.timeoutMs ?? 60_000, what: 'every PG clean', intervalMs: 200 },
  );
}

/** Sets (or with null clears) the fault knobs of one OST through its OSS's admin API. */
export async function setOstFaults(
  cluster: Cluster,
  ostId: number,
  knobs: Record<string, number | boolean> | null,
): Promise<void> {
  const url = `${cluster.adminUrlOf(cluster.ossOfOst(ostId).id)}/api/osts/${ostId}/faults`;
  await adminJson(url, knobs ? { method: 'PUT', body: knobs } : { method: 'DELETE' });
}
