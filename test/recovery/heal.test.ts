// Recovery restores redundancy: write replicated and ec files, SIGKILL one
// host, wait until every PG is clean again, then SIGKILL a host in another
// rack. Layouts are chosen so that two host failures without recovery would
// lose data (2 replicas; ec 4+1): every byte reading back proves the rebuild.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { connectReader, seededBytes } from '../helpers/clients.js';
import { type Cluster, type PgsAnswer, waitCleanPgs, waitOut } from '../helpers/cluster.js';
import { MiB, type RecoveryAnswer, startRecoveryCluster } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery heal seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const LAYOUTS: Record<string, Layout> = {
  rep2: { pattern: 'replicated', stripeSize: S, stripeCount: 4, replicas: 2, failureDomain: 'host' },
  rep3: { pattern: 'replicated', stripeSize: S, stripeCount: 2, replicas: 3, failureDomain: 'host' },
  ec41: { pattern: 'ec', stripeSize: S, k: 4, m: 1, failureDomain: 'host' },
  ec22: { pattern: 'ec', stripeSize: S, k: 2, m: 2, failureDomain: 'host' },
};
const FILES_PER_LAYOUT = 12;

describe('recovery after losing a host', () => {
  let cluster: Cluster;
  let client: StripeClient;
  const files = new Map<string, Buffer>();

  beforeAll(async () => {
    cluster = await startRecoveryCluster({ STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0' });
    client = await connectReader(cluster.mdsAddress, SEED);
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  const readAll = async (when: string): Promise<void> => {
    for (const [path, data] of files) {
      const back = await client.readFile(path);
      expect(back.equals(data), `${path} reads back ${when}`).toBe(true);
    }
  };

  it('kill a host, wait for clean, kill a host in another rack: every byte reads', async () => {
    let n = 0;
    for (const [name, layout] of Object.entries(LAYOUTS)) {
      await client.mkdir(`/${name}`, { recursive: true });
      for (let i = 0; i < FILES_PER_LAYOUT; i++) {
        const data = seededBytes(((n * 7919) % (3 * MiB)) + 1 + i * 1000, SEED + n++);
        const path = `/${name}/f${i}`;
        await client.writeFile(path, data, { layout });
        files.set(path, data);
      }
    }
    expect((await cluster.admin<PgsAnswer>('/api/pgs')).byState.clean).toBe(
      (await cluster.admin<PgsAnswer>('/api/pgs')).total,
    );

    await cluster.oss[0]!.kill('SIGKILL'); // h0 in r0
    const outEpoch = await waitOut(cluster.mdsAddress, 2);
    const during = await cluster.admin<PgsAnswer>('/api/pgs');
    expect(during.byState.clean).toBeLessThan(during.total);
    await readAll('while recovering');
    const clean = await waitCleanPgs(cluster, { timeoutMs: 90_000, minEpoch: outEpoch });
    expect(clean.byState.clean).toBe(clean.total);
    const recovery = await cluster.admin<RecoveryAnswer>('/api/recovery');
    expect(recovery.totals.bytesCopied).toBeGreaterThan(0);
    console.log(`recovered ${recovery.totals.objectsCopied} objects, ${recovery.totals.bytesCopied} bytes`);

    await cluster.oss[2]!.kill('SIGKILL'); // h2 in r1
    await readAll('after the second host failure');
  });
});
