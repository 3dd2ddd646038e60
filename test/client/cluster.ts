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
}

export async function startCluster(
  options: { heartbeatIntervalMs?: number; extraEnv?: Record<string, string> } = {},
): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-client-'));
  const heartbeat = String(options.heartbeatIntervalMs ?? 200);
  const common = {
    STRIPEFS_MDS_HEARTBEAT_INTERVAL_MS: heartbeat,
    STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: String(Number(heartbeat) * 3),
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
  const oss: StartedProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(oss.map((p) => p.stop()));
    await mds.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < OSS_COUNT; i++) {
      oss.push(
        await startProcess({
          script: OSS_SCRIPT,
          env: {
            ...common,
            STRIPEFS_MDS: mdsAddress,
            STRIPEFS_OSS_ID: `oss${i}`,
            STRIPEFS_OSS_HOST: `h${i}`,
            STRIPEFS_OSS_RACK: `r${Math.floor(i / 2)}`,
            STRIPEFS_OSS_DATA_DIR: join(dir, `oss${i}`),
            STRIPEFS_OSS_OSTS: String(OSTS_PER_OSS),
          },
        }),
      );
    }
    await waitForOsts(mdsAddress, OSS_COUNT * OSTS_PER_OSS);
  } catch (err) {
    await stop();
    throw err;
  }
  return { mdsAddress, mds, oss, dir, stop };
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
