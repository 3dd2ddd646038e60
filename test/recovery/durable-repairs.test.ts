// The repair queue survives an MDS restart. A file is written, one OSS holding
// copies of it is SIGKILLed, the file is overwritten (the writes skip the down
// copies and report them), then the MDS is SIGKILLed and started again, and
// only then does the OSS come back. Recovery is paused throughout, so nothing
// is repaired before the restart. The restarted MDS must still know every
// copy that missed the overwrite: it lists them, tells their OST (reads take
// the other copies), and repairs them once recovery resumes, after which every
// copy holds the new bytes. Before the queue was durable the restarted MDS
// knew of none: the returning copies served the old bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { connectReader, seededBytes } from '../helpers/clients.js';
import { type Cluster, waitCleanPgs, waitForOsts } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { startRecoveryCluster } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery durable-repairs seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const REP3: Layout = {
  pattern: 'replicated',
  stripeSize: S,
  stripeCount: 4,
  replicas: 3,
  failureDomain: 'host',
};

interface RecoveryStatus {
  repairsQueued: number;
  repairsAnnounced: number;
  repairs: { ostId: number; objectId: string }[];
}

describe('the repair queue across an MDS restart', () => {
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    cluster = await startRecoveryCluster({
      STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0',
      STRIPEFS_MDS_OUT_GRACE_MS: '600000',
    });
    client = await connectReader(cluster.mdsAddress, SEED);
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  it('keeps every queued repair: the returning copies are refused, then repaired', async () => {
    const before = seededBytes(16 * S, SEED + 1);
    const after = seededBytes(16 * S, SEED + 2);
    await client.writeFile('/d', before, { layout: REP3 });
    const objects = (await client.getLayout('/d')).objects;
    const victim = objects[0]?.osts[0] as number;
    const index = cluster.ossIndexOfOst(victim);
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
    await cluster.oss[index]?.kill();
    await waitForOsts(cluster.mdsAddress, 12, 10);
    const handle = await client.open('/d', 'r+');
    await handle.write(after, 0, after.length, 0);
    await handle.close();
    const queued = await cluster.admin<RecoveryStatus>('/api/recovery');
    expect(queued.repairsQueued).toBeGreaterThan(0);
    const keyOf = (r: { ostId: number; objectId: string }): string => `${r.ostId}/${r.objectId}`;
    const queuedKeys = queued.repairs.map(keyOf).sort();

    await cluster.killMds();
    await cluster.startMds();
    await cluster.reviveOss(index);
    await waitForOsts(cluster.mdsAddress, 12);
    const restored = await eventually(
      async () => {
        const s = await cluster.admin<RecoveryStatus>('/api/recovery');
        if (s.repairsQueued > 0 && s.repairsAnnounced === s.repairsQueued) return s;
        throw new Error(JSON.stringify(s));
      },
      { timeoutMs: 60_000, what: 'the restarted MDS listing and announcing the queued repairs' },
    );
    expect(restored.repairs.map(keyOf).sort()).toEqual(queuedKeys);
    const early = await connectReader(cluster.mdsAddress, SEED);
    try {
      expect((await early.readFile('/d')).equals(after), 'a read before the repair').toBe(true);
    } finally {
      await early.close();
    }

    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
    await waitCleanPgs(cluster, { timeoutMs: 120_000 });
    await eventually(
      async () => {
        const s = await cluster.admin<RecoveryStatus>('/api/recovery');
        if (s.repairsQueued === 0) return s;
        throw new Error(JSON.stringify(s));
      },
      { timeoutMs: 120_000, what: 'every repair done' },
    );
    const copies = await Copies.open(cluster);
    try {
      for (const object of objects) {
        const refs = await copies.locate({ size: 3 }, object.objectId);
        const bodies = await Promise.all(refs.map((ref) => copies.bytes(ref)));
        for (const [i, body] of bodies.entries())
          expect(body.equals(bodies[0] as Buffer), `${object.objectId} on OST ${refs[i]?.ostId}`).toBe(true);
      }
    } finally {
      copies.close();
    }
    expect((await client.readFile('/d')).equals(after)).toBe(true);
  });
});
