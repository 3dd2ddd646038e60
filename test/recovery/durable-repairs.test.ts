// The repair queue survives an MDS restart. A file is written, one OSS holding
// copies of it is SIGKILLed, the file is overwritten (the writes skip the down
// copies and report them), then the MDS is SIGKILLed and started again, and
// only then does the OSS come back. Recovery is paused throughout, so nothing
// is repaired before the restart. The restarted MDS must still know every
// copy that missed the overwrite: it lists them, tells their OST (reads take
// the other copies), and repairs them once recovery resumes, after which every
// copy holds the new bytes. Before the queue was durable the restarted MDS
// knew of none: the returning copies served the old bytes.
import { describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { connectReader, overwrite, seededBytes } from '../helpers/clients.js';
import { waitCleanPgs, waitForOsts } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { pauseAndKillOssOf, type RecoveryAnswer, recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery durable-repairs seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const REP3 = rep3(4);

describe('the repair queue across an MDS restart', () => {
  const fx = recoveryFixture(
    {
      STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0',
      STRIPEFS_MDS_OUT_GRACE_MS: '600000',
    },
    SEED,
  );

  it('keeps every queued repair: the returning copies are refused, then repaired', async () => {
    const { cluster, client } = fx;
    const before = seededBytes(16 * UNIT, SEED + 1);
    const after = seededBytes(16 * UNIT, SEED + 2);
    await client.writeFile('/d', before, { layout: REP3 });
    const objects = (await client.getLayout('/d')).objects;
    const victim = objects[0]?.osts[0] as number;
    const index = await pauseAndKillOssOf(cluster, victim);
    await overwrite(client, '/d', after);
    const queued = await cluster.admin<RecoveryAnswer>('/api/recovery');
    expect(queued.repairsQueued).toBeGreaterThan(0);
    const keyOf = (r: { ostId: number; objectId: string }): string => `${r.ostId}/${r.objectId}`;
    const queuedKeys = queued.repairs.map(keyOf).sort();

    await cluster.killMds();
    await cluster.startMds();
    await cluster.reviveOss(index);
    await waitForOsts(cluster.mdsAddress, 12);
    const restored = await eventually(
      async () => {
        const s = await cluster.admin<RecoveryAnswer>('/api/recovery');
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
        const s = await cluster.admin<RecoveryAnswer>('/api/recovery');
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
