// Shared by the recovery tests: a real cluster (test/client/cluster.ts) with
// fast failure detection, the MDS admin API, waiting for clean (and for the
// usage to reach the MDS), writing files a few at a time, and the OST
// weights of every map epoch from the MDS's map history.
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { type Layout, StripeClient } from '../../client/index.js';
import { CLIENT_OPTIONS, call } from '../../common/grpc.js';
import { contract } from '../../proto/index.js';
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

/** A client that caches nothing, so every read goes to the OSTs (what the recovery tests check). */
export function connectReader(cluster: Cluster, seed: number): Promise<StripeClient> {
  return StripeClient.connect({ mds: cluster.mdsAddress, seed, limits: { cacheBytesMax: 0 } });
}

/** Files written at once by `writeFiles`: each write waits on its flush and commit, not on the CPU. */
export const WRITES_IN_FLIGHT = 4;

/**
 * Writes every file, WRITES_IN_FLIGHT at a time; resolves once every write
 * was acknowledged. The creates go one after another in the order given, so
 * the files get the inodes (and their objects the PGs) that writing them one
 * by one would give.
 */
export async function writeFiles(
  client: StripeClient,
  files: { path: string; data: Buffer; layout: Layout }[],
): Promise<void> {
  let next = 0;
  let created: Promise<unknown> = Promise.resolve();
  const worker = async (): Promise<void> => {
    for (let i = next++; i < files.length; i = next++) {
      const { path, data, layout } = files[i]!;
      const opening = created.then(() => client.open(path, 'w', { layout }));
      created = opening.catch(() => undefined);
      const handle = await opening;
      try {
        await handle.write(data, 0, data.length, 0);
      } finally {
        await handle.close();
      }
    }
  };
  await Promise.all(Array.from({ length: WRITES_IN_FLIGHT }, worker));
}

/** Polls /api/pgs until every PG is clean; returns the number of polls. */
export async function waitClean(cluster: Cluster, timeoutMs: number, minEpoch = 0): Promise<PgsAnswer> {
  const deadline = Date.now() + timeoutMs;
  let last: PgsAnswer | undefined;
  for (;;) {
    last = await pgs(cluster).catch(() => last);
    const epoch = (last as { epoch?: number } | undefined)?.epoch ?? 0;
    if (last && last.total > 0 && last.byState.clean === last.total && epoch >= minEpoch) return last;
    if (Date.now() > deadline) {
      const recovery = await adminJson(cluster, '/api/recovery').catch(() => undefined);
      throw new Error(
        `not clean after ${timeoutMs} ms: ${JSON.stringify(last?.byState)} ${JSON.stringify(last?.recovery)} ` +
          `recovery: ${JSON.stringify(recovery)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Waits until the MDS's usage (counts.usedBytes, fed by heartbeats) equals
 * what the OSSs themselves report (GET /api/osts); returns the MDS's answer.
 */
export async function waitUsageReported<T extends { counts: { usedBytes: number } }>(
  cluster: Cluster,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let stored = 0;
    for (const p of cluster.oss) {
      const res = await fetch(`http://127.0.0.1:${p.ready.adminPort}/api/osts`);
      for (const ost of (await res.json()) as { usedBytes: number }[]) stored += ost.usedBytes;
    }
    const answer = await adminJson<T>(cluster, '/api/cluster');
    if (answer.counts.usedBytes === stored) return answer;
    if (Date.now() > deadline)
      throw new Error(`the MDS shows ${answer.counts.usedBytes} bytes used, the OSSs ${stored}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
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

/** One map epoch's OST weights. */
export interface EpochWeights {
  epoch: number;
  weights: Map<number, number>;
}

/**
 * The OST weights of every epoch from `fromEpoch` to the current one, read
 * back from the MDS's map history (GetMap by epoch), so a test sees each map
 * change and not only those its polls happen to catch.
 */
export async function weightHistory(cluster: Cluster, fromEpoch: number): Promise<EpochWeights[]> {
  const mds = new (contract().MdsService)(
    cluster.mdsAddress,
    grpc.credentials.createInsecure(),
    CLIENT_OPTIONS,
  );
  try {
    const current = Number((await call(mds, 'GetMap', { epoch: 0 })).map?.epoch ?? 0);
    const history: EpochWeights[] = [];
    for (let epoch = fromEpoch; epoch <= current; epoch++) {
      const map = (await call(mds, 'GetMap', { epoch })).map;
      if (!map) throw new Error(`GetMap returned no map for epoch ${epoch}`);
      history.push({ epoch, weights: new Map(map.osts.map((o) => [o.id, o.weight])) });
    }
    return history;
  } finally {
    mds.close();
  }
}
