// Shared by the recovery tests: a real cluster (test/client/cluster.ts) with
// fast failure detection, the MDS admin API, and waiting for clean.
import { join } from 'node:path';
import { type Cluster, OSS_SCRIPT, startCluster } from '../client/cluster.js';
import { type StartedProcess, startProcess } from '../helpers/process.js';

export const MiB = 1 << 20;

export interface PgsAnswer {
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

export interface RecoveryAnswer {
  maxBytesPerSec: number;
  maxActivePgs: number;
  paused: boolean;
  totals: { tasksDone: number; bytesCopied: number; objectsCopied: number; objectsRepaired: number };
  progress: PgsAnswer['recovery'];
}

export function adminUrl(cluster: Cluster): string {
  return `http://127.0.0.1:${cluster.mds.ready.adminPort}`;
}

export async function adminJson<T>(
  cluster: Cluster,
  path: string,
  init?: { method: string; body?: unknown },
): Promise<T> {
  const res = await fetch(`${adminUrl(cluster)}${path}`, {
    method: init?.method ?? 'GET',
    ...(init?.body !== undefined
      ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) }
      : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

export const pgs = (cluster: Cluster): Promise<PgsAnswer> => adminJson<PgsAnswer>(cluster, '/api/pgs');

/** Starts a cluster whose OSTs go down 0.6 s and out 1 s after their OSS dies. */
export function startRecoveryCluster(env: Record<string, string> = {}): Promise<Cluster> {
  return startCluster({
    extraEnv: {
      STRIPEFS_MDS_OUT_GRACE_MS: '1000',
      STRIPEFS_MDS_PG_COUNT: '32',
      STRIPEFS_LOG_LEVEL: 'warn',
      ...env,
    },
  });
}

/** Polls /api/pgs until every PG is clean; returns the number of polls. */
export async function waitClean(cluster: Cluster, timeoutMs: number, minEpoch = 0): Promise<PgsAnswer> {
  const deadline = Date.now() + timeoutMs;
  let last: PgsAnswer | undefined;
  for (;;) {
    last = await pgs(cluster).catch(() => last);
    const epoch = (last as { epoch?: number } | undefined)?.epoch ?? 0;
    if (last && last.total > 0 && last.byState.clean === last.total && epoch >= minEpoch) return last;
    if (Date.now() > deadline)
      throw new Error(
        `not clean after ${timeoutMs} ms: ${JSON.stringify(last?.byState)} ${JSON.stringify(last?.recovery)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Waits until the map shows `count` OSTs out. */
export async function waitOut(cluster: Cluster, count: number, timeoutMs = 15_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await adminJson<{ epoch: number; counts: { osts: number; in: number } }>(
      cluster,
      '/api/cluster',
    );
    if (answer.counts.osts - answer.counts.in >= count) return answer.epoch;
    if (Date.now() > deadline) throw new Error(`${count} OSTs not out after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One more OSS process (hosts beyond the cluster's six). */
export function startExtraOss(
  cluster: Cluster,
  opts: { ossId: string; host: string; rack: string; osts?: number },
): Promise<StartedProcess> {
  return startProcess({
    script: OSS_SCRIPT,
    env: {
      STRIPEFS_MDS_HEARTBEAT_INTERVAL_MS: '200',
      STRIPEFS_MDS: cluster.mdsAddress,
      STRIPEFS_OSS_ID: opts.ossId,
      STRIPEFS_OSS_HOST: opts.host,
      STRIPEFS_OSS_RACK: opts.rack,
      STRIPEFS_OSS_DATA_DIR: join(cluster.dir, opts.ossId),
      STRIPEFS_OSS_OSTS: String(opts.osts ?? 2),
      STRIPEFS_LOG_LEVEL: 'warn',
    },
  });
}
