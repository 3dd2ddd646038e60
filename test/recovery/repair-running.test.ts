// A copy that missed a write is refused to readers for as long as its repair runs, not only while
// the repair waits in the queue. The MDS's registration and heartbeat answers list the copies of an
// OSS that await repair, and the OSS forgets a mark the list leaves out; a repair taken off the
// queue to run was left out, so the copy was served with the bytes from before the write during
// every attempt at its repair (and after a failed one, until the next answer). Here a file is
// written (replicated:3), the OSS of one copy killed, the file overwritten (the copy is skipped and
// recorded), that OSS revived, and the other two copies' OSTs made to hang every request: the repair
// starts and waits on its sources. Reads of the skipped copy meanwhile must never return the old
// bytes; before, they did within a heartbeat (200 ms here) of the repair's start: chaos --seed 6
// --minutes 3, a fill that copied 3.0 from ost 0 while its repair ran, the filled copy then served
// the bytes from before a write acknowledged seconds earlier.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { overwrite, seededBytes } from '../helpers/clients.js';
import { setOstFaults, waitForOsts } from '../helpers/cluster.js';
import { errorCode } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { pauseAndKillOssOf, type RecoveryAnswer, recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery repair-running seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

/** Reads of the skipped copy while its repair hangs: 25 heartbeat intervals of the test cluster. */
const READS_DURING_REPAIR = 25;
const READ_PAUSE_MS = 200;

describe('a copy whose missed-write repair is running', () => {
  // Down OSTs stay in: no PG moves, the skipped copy is repaired where it is.
  const fx = recoveryFixture({ STRIPEFS_MDS_OUT_GRACE_MS: '600000' }, SEED);

  it('is refused to readers until the repair has rewritten it', async () => {
    const { cluster, client } = fx;
    const before = seededBytes(UNIT, SEED + 1);
    const after = seededBytes(UNIT, SEED + 2);
    await client.writeFile('/r', before, { layout: rep3(1) });
    const objectId = (await client.getLayout('/r')).objects[0]!.objectId;
    const copies = await Copies.open(cluster);
    try {
      const [a, b, skipped] = await copies.locate({ size: 3 }, objectId);
      const index = await pauseAndKillOssOf(cluster, skipped!.ostId);
      await overwrite(client, '/r', after);
      await cluster.reviveOss(index);
      await waitForOsts(cluster.mdsAddress, 12);
      await copies.refresh(); // a read with the map from before the OSS came back is not served
      expect(
        await copies.codeOnceHeard(skipped!, UNIT, { timeoutMs: 10_000, what: 'a read of the skipped copy' }),
      ).toBe('OBJ_STALE');
      // The repair's sources hang every request: it runs and waits.
      for (const ref of [a!, b!]) await setOstFaults(cluster, ref.ostId, { hang: true });
      await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
      await eventually(
        async () => {
          const status = await cluster.admin<RecoveryAnswer>('/api/recovery');
          return (
            status.active.some((t) => t.kind === 'repair' && t.targetOst === skipped!.ostId) || undefined
          );
        },
        { timeoutMs: 10_000, what: 'the repair of the skipped copy running' },
      );
      const seen: string[] = [];
      for (let i = 0; i < READS_DURING_REPAIR; i++) {
        const outcome = await copies
          .read(skipped!, UNIT)
          .then(
            (data) => (data.equals(before) ? 'the bytes from before' : data.equals(after) ? 'new' : 'other'),
            errorCode,
          );
        seen.push(outcome);
        await sleep(READ_PAUSE_MS);
      }
      expect(seen.filter((s) => s !== 'OBJ_STALE' && s !== 'REQ_UNAVAILABLE')).toEqual([]);
      for (const ref of [a!, b!]) await setOstFaults(cluster, ref.ostId, null);
      // Once repaired, the copy serves the write it missed.
      expect((await copies.bytes(skipped!)).equals(after)).toBe(true);
    } finally {
      copies.close();
    }
  });
});
