// Shared by the recovery tests: a real cluster (test/helpers/cluster.ts) with
// fast failure detection, writing files a few at a time, waiting for the
// usage to reach the MDS, and the OST weights of every map epoch from the
// MDS's map history.
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll } from 'vitest';
import type { ClientLimits, Layout, StripeClient } from '../../client/index.js';
import { call } from '../../common/grpc.js';
import type { RecoveryStatus } from '../../mds/recovery/admin.js';
import { contract } from '../../proto/index.js';
import { adminFetch } from '../helpers/admin-http.js';
import { signedClientOptions } from '../helpers/auth.js';
import { connectReader } from '../helpers/clients.js';
import { type Cluster, OSS_SCRIPT, startCluster, waitForOsts } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { type StartedProcess, startProcess } from '../helpers/process.js';
import type { Copies } from './copies.js';

export const MiB = 1 << 20;

/** GET /api/recovery's answer (the MDS's own type). */
export type RecoveryAnswer = RecoveryStatus;

/** The unit of the recovery tests' files. */
export const UNIT = 64 * 1024;

/** replicated:3 over `stripeCount` stripes of `stripeSize` bytes, its copies on three hosts. */
export function rep3(stripeCount: number, stripeSize = UNIT): Layout {
  return { pattern: 'replicated', stripeSize, stripeCount, replicas: 3, failureDomain: 'host' };
}

/** Starts a cluster whose OSTs go down 1 s and out 2 s after their OSS dies. */
export function startRecoveryCluster(env: Record<string, string> = {}): Promise<Cluster> {
  return startCluster({
    pgCount: 32,
    extraEnv: { STRIPEFS_MDS_OUT_GRACE_MS: '1000', STRIPEFS_LOG_LEVEL: 'warn', ...env },
  });
}

/** A describe block's cluster and client: started before its tests, stopped after them. */
export interface RecoveryFixture {
  readonly cluster: Cluster;
  readonly client: StripeClient;
}

/**
 * Starts a recovery cluster (startRecoveryCluster with `env`) and a client that caches nothing
 * (connectReader) before the block's tests and stops both after them. Call it in a describe
 * block; read `cluster` and `client` inside the tests.
 */
export function recoveryFixture(
  env: Record<string, string>,
  seed: number,
  limits: Partial<ClientLimits> = {},
): RecoveryFixture {
  const fixture = {} as { cluster: Cluster; client: StripeClient };
  beforeAll(async () => {
    fixture.cluster = await startRecoveryCluster(env);
    fixture.client = await connectReader(fixture.cluster.mdsAddress, seed, limits);
  });
  afterAll(async () => {
    await fixture.client?.close();
    await fixture.cluster?.stop();
  });
  return fixture;
}

/**
 * Pauses recovery, SIGKILLs the OSS of `ostId` and waits until the MDS shows its OSTs down
 * (12 OSTs, 10 up: the recovery cluster's shape); returns that OSS's index.
 */
export async function pauseAndKillOssOf(cluster: Cluster, ostId: number): Promise<number> {
  const index = cluster.ossIndexOfOst(ostId);
  await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
  await cluster.oss[index]?.kill();
  await waitForOsts(cluster.mdsAddress, 12, 10);
  return index;
}

/**
 * Reweights `ostId` and waits until the members of PG `where`, under the newest map `copies`
 * reads, are `settled`; returns them. Recovery is left as it is (pause it first to see a move
 * before any fill).
 */
export async function reweightUntil(
  cluster: Cluster,
  copies: Copies,
  ostId: number,
  weight: number,
  where: { poolId: number; pg: number },
  settled: (members: number[]) => boolean,
  what: string,
): Promise<number[]> {
  await cluster.admin(`/api/osts/${ostId}/reweight`, { method: 'POST', body: { weight } });
  return eventually(
    async () => {
      await copies.refresh();
      const members = copies.pgMembers(where.poolId, where.pg);
      if (settled(members)) return members;
      throw new Error(`PG ${where.poolId}/${where.pg} on ${members.join(',')}`);
    },
    { timeoutMs: 30_000, what },
  );
}

/**
 * Pauses recovery and reweights `ref.ostId` to 0 until PG `ref` is placed off it, so the PG has
 * moved and nothing was filled yet; returns the PG's members then.
 */
export async function moveOffPaused(
  cluster: Cluster,
  copies: Copies,
  ref: { ostId: number; poolId: number; pg: number },
): Promise<number[]> {
  const { ostId, poolId, pg } = ref;
  await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
  return reweightUntil(
    cluster,
    copies,
    ostId,
    0,
    { poolId, pg },
    (now) => !now.includes(ostId),
    `PG ${poolId}/${pg} moved off OST ${ostId}`,
  );
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
      // The next create waits for this one either way; its error reaches its own worker through `opening`.
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

/**
 * Waits until the MDS's usage (counts.usedBytes, fed by heartbeats) equals
 * what the OSSs themselves report (GET /api/osts); returns the MDS's answer.
 */
export function waitUsageReported<T extends { counts: { usedBytes: number } }>(cluster: Cluster): Promise<T> {
  return eventually(
    async () => {
      let stored = 0;
      for (const p of cluster.oss) {
        const res = await adminFetch(`http://127.0.0.1:${p.ready.adminPort}/api/osts`);
        for (const ost of (await res.json()) as { usedBytes: number }[]) stored += ost.usedBytes;
      }
      const answer = await cluster.admin<T>('/api/cluster');
      if (answer.counts.usedBytes === stored) return answer;
      throw new Error(`the MDS shows ${answer.counts.usedBytes} bytes used, the OSSs ${stored}`);
    },
    { timeoutMs: 30_000, what: 'the MDS to show the usage the OSSs report' },
  );
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
    signedClientOptions(),
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
