// A copy its OSS holds marked as having missed writes, with no repair of it at the MDS, is served
// again once the OSS hears the MDS's list of its copies awaiting repair. Such a mark is left when a
// MarkStale, or a heartbeat answer listing the copy, reaches the OSS after the repair that cleared
// the mark (or after the MDS dropped the repair: the copy's PG moved off its OST and its fill then
// copied it whole). Here the test sends that MarkStale itself, with recovery paused and no repair
// queued. The OSS now forgets a mark made before a heartbeat it sent when the answer leaves the copy
// out. Before, the copy was refused for good (until its OSS restarted): chaos --seed 6 --minutes 3
// never got clean, the repairs of ec PG 2/4 finding 1 of the 2 chunks they need, the third refused
// by a mark the MDS no longer had (7.0.c3 on OST 6).
import { describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { Copies } from './copies.js';
import { type RecoveryAnswer, recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery orphan-mark seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

describe('a copy marked stale with no repair of it at the MDS', () => {
  const fx = recoveryFixture({}, SEED);

  it('is served again once its OSS has heard the MDS', async () => {
    const { cluster, client } = fx;
    const data = seededBytes(UNIT, SEED + 1);
    await client.writeFile('/o', data, { layout: rep3(1) });
    const objectId = (await client.getLayout('/o')).objects[0]!.objectId;
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
    const copies = await Copies.open(cluster);
    try {
      const [ref] = await copies.locate({ size: 3 }, objectId);
      await copies.markStale(ref!);
      expect(
        await copies.codeOnceHeard(ref!, UNIT, { timeoutMs: 10_000, what: 'a read of the marked copy' }),
      ).toBe('OBJ_STALE');
      expect((await cluster.admin<RecoveryAnswer>('/api/recovery')).repairsQueued).toBe(0);
      // Served once a heartbeat sent after the mark is answered (every 200 ms here).
      expect((await copies.bytes(ref!)).equals(data)).toBe(true);
    } finally {
      copies.close();
    }
  });
});
