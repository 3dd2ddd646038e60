// A real local cluster for client tests and benches: 1 MDS + 6 OSS child
// processes (2 OSTs each, hosts h0..h5 in racks r0..r2) on 127.0.0.1, port 0,
// in a fresh temporary folder. Ready when the MDS map shows all 12 OSTs up.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MdsClient } from '../../client/mds-client.js';
import { type StartedProcess, startProcess } from '../helpers/process.js';

export const MDS_SCRIPT = 'dist/mds/main.js';
export const OSS_SCRIPT = 'dist/oss/main.js';
const OSS_COUNT = 6;
const OSTS_PER_OSS = 2;
const READY_TIMEOUT_MS = 30_000;

export function clusterAvailable(): boolean {
  return existsSync(MDS_SCRIPT) && existsSync(OSS_SCRIPT);
}

export interface Cluster {
  mdsAddress: string;
  mds: StartedProcess;
  oss: StartedProcess[];
  dir: string;
  stop(): Promise<void>;
  /** Starts OSS `index` again (same id, host and data folder) and waits until every OST is up and in. */
  restartOss(index: number): Promise<void>;
}

/** The MDS first, then the six OSSs side by side (about 5 s here against 8.5 s one after another). */
export async function startCluster(
  options: {
    heartbeatIntervalMs?: number;
    heartbeatsPerTimeout?: number;
    extraEnv?: Record<string, string>;
  } = {},
): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-client-'));
  const heartbeatMs = options.heartbeatIntervalMs ?? 200;
  const common = {
    STRIPEFS_MDS_HEARTBEAT_INTERVAL_MS: String(heartbeatMs),
    // Five missed heartbeats (1 s): on a loaded 2-core host an OSS can miss three and flap
    // down and up, which degrades reads and moves PGs in suites that test neither.
    STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: String(heartbeatMs * (options.heartbeatsPerTimeout ?? 5)),
    ...options.extraEnv,
  };
  const mds = await startProcess({
    script: MDS_SCRIPT,
    env: {
      ...common,
      STRIPEFS_MDS_GRPC_PORT: '0',
      STRIPEFS_MDS_ADMIN_PORT: '0',
      STRIPEFS_MDS_DATA_DIR: join(dir, 'mds'),
    },
  });
  const mdsAddress = `127.0.0.1:${mds.ready.grpcPort}`;
  const ossEnv = (i: number) => ({
    ...common,
    STRIPEFS_MDS: mdsAddress,
    STRIPEFS_OSS_ID: `oss${i}`,
    STRIPEFS_OSS_HOST: `h${i}`,
    STRIPEFS_OSS_RACK: `r${Math.floor(i / 2)}`,
    STRIPEFS_OSS_DATA_DIR: join(dir, `oss${i}`),
    STRIPEFS_OSS_OSTS: String(OSTS_PER_OSS),
  });
  const oss: StartedProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(oss.map((p) => p.stop()));
    await mds.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const started = await Promise.allSettled(
      Array.from({ length: OSS_COUNT }, (_, i) => startProcess({ script: OSS_SCRIPT, env: ossEnv(i) })),
    );
    for (const s of started) if (s.status === 'fulfilled') oss.push(s.value);
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    await waitForOsts(mdsAddress, OSS_COUNT * OSTS_PER_OSS);
  } catch (err) {
    await stop();
    throw err;
  }
  const restartOss = async (index: number): Promise<void> => {
    if (index < 0 || index >= OSS_COUNT) throw new Error(`no OSS ${index} in the cluster`);
    await oss[index]?.kill();
    oss[index] = await startProcess({ script: OSS_SCRIPT, env: ossEnv(index) });
    await waitForOsts(mdsAddress, OSS_COUNT * OSTS_PER_OSS);
  };
  return { mdsAddress, mds, oss, dir, stop, restartOss };
}

/** Polls the map until `count` OSTs are up and in (or `count` OSTs are up when down ones are expected: see `upCount`). */
export async function waitForOsts(mdsAddress: string, count: number, upCount = count): Promise<void> {
  const mds = new MdsClient(mdsAddress);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      const view = await mds.refreshMap().catch(() => undefined);
      if (view) {
        const osts = [...view.osts.values()];
        if (osts.length >= count && osts.filter((o) => o.up && o.in).length === upCount) return;
      }
      if (Date.now() > deadline)
        throw new Error(`cluster not ready: expected ${upCount} of ${count} OSTs up`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    mds.close();
  }
}

/** The OSS process (index into cluster.oss) that serves OST `ostId`, found through the map's gRPC address. */
export async function ossIndexOfOst(cluster: Cluster, ostId: number): Promise<number> {
  const mds = new MdsClient(cluster.mdsAddress);
  try {
    const view = await mds.refreshMap();
    const address = view.osts.get(ostId)?.grpcAddress ?? '';
    const port = Number(address.slice(address.lastIndexOf(':') + 1));
    const index = cluster.oss.findIndex((p) => p.ready.grpcPort === port);
    if (index < 0) throw new Error(`no OSS process serves OST ${ostId} (${address})`);
    return index;
  } finally {
    mds.close();
  }
}

/** Sets (or with null clears) the fault knobs of one OST through its OSS admin API. */
export async function setOstFaults(
  cluster: Cluster,
  ostId: number,
  knobs: Record<string, number | boolean> | null,
): Promise<void> {
  const oss = cluster.oss[await ossIndexOfOst(cluster, ostId)] as StartedProcess;
  const url = `http://127.0.0.1:${oss.ready.adminPort}/api/osts/${ostId}/faults`;
  const res = await fetch(url, {
    method: knobs ? 'PUT' : 'DELETE',
    ...(knobs ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(knobs) } : {}),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
}

/** Bytes a client fetched from the OSSs, summed over every OST (its `stats()`, or their JSON form). */
export function fetchedBytes(stats: { bytesReadPerOst: Record<string | number, number> }): number {
  return Object.values(stats.bytesReadPerOst).reduce((a, b) => a + b, 0);
}

/** n pseudo-random bytes from a seed (xorshift32 over 32-bit words: fast enough for hundreds of MiB). */
export function seededBytes(n: number, seed: number): Buffer {
  const words = new Uint32Array(Math.ceil(n / 4));
  let x = (seed ^ 0x9e3779b9) >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return Buffer.from(words.buffer, 0, n);
}
