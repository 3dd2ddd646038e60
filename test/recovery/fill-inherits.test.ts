// A fill whose source had missed a write to an object passes that missed write on: the filled copy
// is refused to readers until repaired from a copy that took every write. A fill lists the PG's
// objects on its first source and copies each slice from the first source that serves it, at the
// listed version and size; a source whose copy missed a write is listed as it is, and when it
// refuses the slices (its copy is marked) they come from the next source, cut to the first one's
// size. Here a file of one unit is written (replicated:3), the OSS of one copy (S) killed, a second
// unit appended (S's copy is skipped and recorded), S revived; then the OSS of another copy (A) is
// killed and the third copy's OST (T) marked out, so the PG's new member is filled from S first,
// then T. Before, the filled copy held the first unit only and served it as whole once its fill
// was recorded done (readers got zeros for the appended unit: a likely path to chaos --seed 8
// --minutes 3 reading the last unit of /chaos/l0-f1 as zeros, not confirmed from its logs), and a copy filled from a source that served the bytes from
// before a write served them too (chaos --seed 6 --minutes 3). Now the fill's completion queues
// the repair of every object a source missed writes to for the filled copy as well.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { overwrite, seededBytes } from '../helpers/clients.js';
import { waitForOsts, waitOstsState } from '../helpers/cluster.js';
import { errorCode } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { Copies, type CopyRef } from './copies.js';
import { pauseAndKillOssOf, type RecoveryAnswer, recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery fill-inherits seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

/** Reads of the filled copy once its fill is done: 25 heartbeat intervals of the test cluster. */
const READS_AFTER_FILL = 25;
const READ_PAUSE_MS = 200;

interface PgAnswer {
  holders: number[];
  placement: number[];
}

/** What a read of the whole copy gets: its error code, 'short' (not every unit), 'whole' or 'other'. */
async function outcome(copies: Copies, ref: CopyRef, whole: Buffer): Promise<string> {
  try {
    const data = await copies.read(ref, whole.length);
    if (data.length < whole.length) return 'short';
    return data.equals(whole) ? 'whole' : 'other';
  } catch (err) {
    return errorCode(err);
  }
}

describe('a fill from a source whose copy missed a write', () => {
  // Down OSTs stay in; T goes out by hand.
  const fx = recoveryFixture({ STRIPEFS_MDS_OUT_GRACE_MS: '600000' }, SEED);

  it('leaves the filled copy refused until it is repaired', async () => {
    const { cluster, client } = fx;
    const first = seededBytes(UNIT, SEED + 1);
    const second = seededBytes(UNIT, SEED + 2);
    const whole = Buffer.concat([first, second]);
    await client.writeFile('/f', first, { layout: rep3(1) });
    const objectId = (await client.getLayout('/f')).objects[0]!.objectId;
    const copies = await Copies.open(cluster);
    try {
      const [a, s, t] = await copies.locate({ size: 3 }, objectId);
      const sIndex = await pauseAndKillOssOf(cluster, s!.ostId);
      await overwrite(client, '/f', second, UNIT);
      await cluster.reviveOss(sIndex);
      await waitForOsts(cluster.mdsAddress, 12);
      await copies.refresh();
      expect(
        await copies.codeOnceHeard(s!, UNIT, { timeoutMs: 10_000, what: 'a read of the skipped copy' }),
      ).toBe('OBJ_STALE');
      const aIndex = cluster.ossIndexOfOst(a!.ostId);
      await cluster.killOss(aIndex);
      await waitOstsState(cluster.mdsAddress, [a!.ostId], false);
      await cluster.admin(`/api/osts/${t!.ostId}/out`, { method: 'POST' });
      const { poolId, pg } = s!;
      const members = await eventually(
        async () => {
          const answer = await cluster.admin<PgAnswer>(`/api/pgs/${poolId}/${pg}`);
          return answer.placement.includes(t!.ostId) ? undefined : answer.placement;
        },
        { timeoutMs: 10_000, what: `PG ${poolId}/${pg} placed off OST ${t!.ostId}` },
      );
      const filled: CopyRef = { ...s!, ostId: members.find((id) => id !== a!.ostId && id !== s!.ostId)! };
      await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
      await eventually(
        async () => {
          const answer = await cluster.admin<PgAnswer>(`/api/pgs/${poolId}/${pg}`);
          return answer.holders.includes(filled.ostId) || undefined;
        },
        { timeoutMs: 30_000, what: `the fill of OST ${filled.ostId} recorded done` },
      );
      await copies.refresh();
      const seen: string[] = [];
      for (let i = 0; i < READS_AFTER_FILL; i++) {
        seen.push(await outcome(copies, filled, whole));
        await sleep(READ_PAUSE_MS);
      }
      expect(seen.filter((o) => o !== 'OBJ_STALE' && o !== 'REQ_UNAVAILABLE' && o !== 'whole')).toEqual([]);
      const status = await cluster.admin<RecoveryAnswer>('/api/recovery');
      expect(status.missedWrites.inherited).toBeGreaterThan(0);
      // A, which took every write, comes back: the filled copy is repaired from it.
      await cluster.reviveOss(aIndex);
      expect(
        await eventually(
          async () => ((await outcome(copies, filled, whole)) === 'whole' ? 'whole' : undefined),
          {
            timeoutMs: 60_000,
            what: `the filled copy on OST ${filled.ostId} repaired`,
          },
        ),
      ).toBe('whole');
    } finally {
      copies.close();
    }
  });
});
