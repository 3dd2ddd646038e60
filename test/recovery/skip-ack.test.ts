// A write that skips a copy is acknowledged only once the MDS recorded the
// skip. A file is written, the OSS holding one of its copies is SIGKILLed (the
// MDS marks its OSTs down), then the MDS is SIGKILLed and the file is
// overwritten while it is away: the copies on the up OSTs take the write, the
// skip cannot be recorded, and the write waits. The MDS starts again, the
// write finishes and the close commits: the restarted MDS lists a repair of
// every skipped copy, and once the OSS is back and repaired every copy holds
// the new bytes. Before, the skip report was sent once and its failure
// ignored: the write and close were acknowledged, the restarted MDS knew of no
// stale copy, and the returning OST served the old bytes.
import { afterAll, describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { waitCleanPgs, waitForOsts } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { type RecoveryAnswer, recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery skip-ack seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const REP3 = rep3(2);

describe('a skipped copy is recorded before the write is acknowledged', () => {
  const fx = recoveryFixture(
    {
      STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0',
      STRIPEFS_MDS_OUT_GRACE_MS: '600000',
    },
    SEED,
  );
  let copies: Copies | undefined;
  afterAll(() => {
    copies?.close();
  });

  it('waits for the MDS to record the skip, across an MDS restart', async () => {
    const { cluster, client } = fx;
    const before = seededBytes(2 * UNIT, SEED + 1);
    const after = seededBytes(2 * UNIT, SEED + 2);
    await client.writeFile('/d', before, { layout: REP3 });
    const objects = (await client.getLayout('/d')).objects;
    const victim = objects[0]?.osts[0] as number;
    const skippedObjects = objects.filter((o) => o.osts.includes(victim)).map((o) => o.objectId);
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
    copies = await Copies.open(cluster);
    const others = await Promise.all(
      objects.map(async (o) =>
        (await copies!.locate({ size: 3 }, o.objectId)).filter((r) => r.ostId !== victim),
      ),
    );
    const versionsBefore = await Promise.all(
      others.map((refs) => Promise.all(refs.map((r) => copies!.stat(r)))),
    );
    await cluster.oss[cluster.ossIndexOfOst(victim)]?.kill();
    await waitForOsts(cluster.mdsAddress, 12, 10);
    const handle = await client.open('/d', 'r+');
    // The client's map must show the OSTs down, so its write skips them instead of failing.
    const epoch = Number((await cluster.admin<{ epoch: number | string }>('/api/cluster')).epoch);
    await eventually(async () => (await client.getLayout('/d')).mapEpoch >= epoch, {
      timeoutMs: 30_000,
      what: `the client to learn map epoch ${epoch}`,
    });

    await cluster.killMds();
    // write() alone may hold whole units in the client until a flush (write runs), so the write is
    // synced: the units go out now, and the sync waits for the skip to be recorded.
    const writing = handle.write(after, 0, after.length, 0).then(() => handle.sync());
    // The up copies take the write while the MDS is away (their versions, asked of their OSTs: with
    // the MDS away their read leases lapse, so their bytes are checked once it is back).
    await eventually(
      async () => {
        for (const [i, refs] of others.entries())
          for (const [j, ref] of refs.entries())
            if ((await copies!.stat(ref)).version <= versionsBefore[i]![j]!.version) return false;
        return true;
      },
      { timeoutMs: 30_000, what: 'the up copies to hold the new bytes' },
    );
    await cluster.startMds();
    await writing;
    await handle.close();

    const queued = await cluster.admin<RecoveryAnswer>('/api/recovery');
    const listed = queued.repairs.filter((r) => r.ostId === victim).map((r) => r.objectId);
    expect(listed.sort()).toEqual([...skippedObjects].sort());

    await cluster.reviveOss(cluster.ossIndexOfOst(victim));
    await waitForOsts(cluster.mdsAddress, 12);
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
    await waitCleanPgs(cluster, { timeoutMs: 120_000 });
    await eventually(
      async () => {
        const s = await cluster.admin<RecoveryAnswer>('/api/recovery');
        return s.repairsQueued === 0 ? s : undefined;
      },
      { timeoutMs: 120_000, what: 'every repair done' },
    );
    for (const [i, object] of objects.entries()) {
      const refs = await copies.locate({ size: 3 }, object.objectId);
      for (const ref of refs)
        expect(
          (await copies.bytes(ref)).equals(after.subarray(i * UNIT, (i + 1) * UNIT)),
          `${ref.objectId} on OST ${ref.ostId}`,
        ).toBe(true);
    }
  });
});
