// A copy its OST cannot make durable is left to repair, as a copy on a down
// OST is. A replicated:3 file is written, then overwritten while one OST's
// fsyncs fail: that copy's flush fails, and every flush of it after, until
// the copy is written whole again (a failed fsync may have dropped pages).
// The overwrite is acknowledged with the other two copies durable, the copy
// is recorded as having missed the write (refused to readers) and repaired
// from a good one, after which writes to the file flush everywhere again.
// Before, the overwrite failed with IO_FAILED, and so did every later write
// to the file that did not cover the whole object (a chaos run's writes to an
// ec file failed for good after one failed fsync).
import { describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { overwrite, seededBytes } from '../helpers/clients.js';
import { setOstFaults, waitCleanPgs } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery not-durable seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const REP3 = rep3(1);

describe('a copy its OST cannot make durable', () => {
  const fx = recoveryFixture({ STRIPEFS_MDS_OUT_GRACE_MS: '600000' }, SEED);

  it('is left to repair: the write is acknowledged, the copy repaired, later writes flush', async () => {
    const { cluster, client } = fx;
    const whole = seededBytes(4 * UNIT, SEED);
    await client.writeFile('/n', whole, { layout: REP3 });
    const object = (await client.getLayout('/n')).objects[0]!;
    const failing = object.osts[0]!;
    await setOstFaults(cluster, failing, { fsyncFailRate: 1 });
    // Paused, so the repair cannot be done (and gone from the list) before the list is read.
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
    const v2 = seededBytes(UNIT, SEED + 1);
    await overwrite(client, '/n', v2, 0);
    v2.copy(whole, 0);
    const queued = await cluster.admin<{ repairs: { ostId: number; objectId: string }[] }>('/api/recovery');
    expect(queued.repairs.map((r) => `${r.objectId}@${r.ostId}`)).toContain(`${object.objectId}@${failing}`);
    await setOstFaults(cluster, failing, null);
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });

    await eventually(
      async () => {
        const s = await cluster.admin<{ repairsQueued: number }>('/api/recovery');
        if (s.repairsQueued === 0) return s;
        throw new Error(`${s.repairsQueued} repairs queued`);
      },
      { timeoutMs: 60_000, what: 'the copy repaired' },
    );
    // The repaired copy flushes again: a write that covers a part of it is acknowledged.
    const v3 = seededBytes(UNIT, SEED + 2);
    await overwrite(client, '/n', v3, 2 * UNIT);
    v3.copy(whole, 2 * UNIT);
    await waitCleanPgs(cluster, { timeoutMs: 60_000 });
    const copies = await Copies.open(cluster);
    try {
      for (const ref of await copies.locate({ size: 3 }, object.objectId))
        expect((await copies.bytes(ref)).equals(whole), `the copy on OST ${ref.ostId}`).toBe(true);
    } finally {
      copies.close();
    }
    expect((await client.readFile('/n')).equals(whole)).toBe(true);
  });
});
