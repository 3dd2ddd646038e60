// An OSS that was stopped (SIGSTOP) while the cluster moved on does not serve
// a stale copy once it runs again. A file is written, the OSS holding one of
// its copies is stopped until the MDS marks its OSTs down, the file is
// overwritten (the write skips those copies and the MDS records it), and a
// read of the stopped OST's copy is sent while it is still stopped. On
// SIGCONT that read is the first thing the OSS sees, before any heartbeat
// answer: its read lease (the send time of its last answered heartbeat plus
// mds.heartbeatTimeoutMs) has lapsed, so it refuses the read. Once the MDS has
// answered it refuses that copy (OBJ_STALE) until the repair, and readers get
// the new bytes throughout. Before the lease the OSS answered that read with
// the old bytes: it kept serving from its earlier list until its next
// heartbeat answer.
import { afterAll, describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { waitCleanPgs, waitForOsts } from '../helpers/cluster.js';
import { errorCode } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery paused-oss-lease seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const REP3 = rep3(1);

describe('a stopped OSS does not serve a stale copy after SIGCONT', () => {
  const fx = recoveryFixture(
    {
      STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0',
      STRIPEFS_MDS_OUT_GRACE_MS: '600000',
    },
    SEED,
  );
  let copies: Copies | undefined;
  let stopped: { child: { kill: (s: NodeJS.Signals) => boolean } } | undefined;
  afterAll(() => {
    stopped?.child.kill('SIGCONT');
    copies?.close();
  });

  it('refuses reads until it has heard from the MDS, then refuses the stale copy', async () => {
    const { cluster, client } = fx;
    const before = seededBytes(UNIT, SEED + 1);
    const after = seededBytes(UNIT, SEED + 2);
    await client.writeFile('/d', before, { layout: REP3 });
    const objectId = (await client.getLayout('/d')).objects[0]!.objectId;
    copies = await Copies.open(cluster);
    const victim = (await copies.locate({ size: 3 }, objectId))[0]!;
    // The bulk connection to the victim exists before it stops (a new one would wait for its accept).
    expect((await copies.read(victim, UNIT)).equals(before)).toBe(true);
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });

    stopped = cluster.oss[cluster.ossIndexOfOst(victim.ostId)]!;
    stopped.child.kill('SIGSTOP');
    await waitForOsts(cluster.mdsAddress, 12, 10);
    const epoch = Number((await cluster.admin<{ epoch: number | string }>('/api/cluster')).epoch);
    await eventually(async () => (await client.getLayout('/d')).mapEpoch >= epoch, {
      timeoutMs: 30_000,
      what: `the client to learn map epoch ${epoch}`,
    });
    const handle = await client.open('/d', 'r+');
    await handle.write(after, 0, UNIT, 0);
    await handle.close();
    const status = await cluster.admin<{ repairs: { ostId: number; objectId: string }[] }>('/api/recovery');
    expect(status.repairs).toContainEqual(expect.objectContaining({ ostId: victim.ostId, objectId }));

    // Sent while the OSS is stopped: waiting in its socket when it runs again.
    const early = copies
      .read(victim, UNIT)
      .then(
        (bytes) =>
          bytes.equals(before) ? 'the old bytes' : bytes.equals(after) ? 'the new bytes' : 'other bytes',
        errorCode,
      );
    await new Promise((resolve) => setImmediate(resolve));
    stopped.child.kill('SIGCONT');
    stopped = undefined;
    expect(['REQ_UNAVAILABLE', 'OBJ_STALE']).toContain(await early);

    await waitForOsts(cluster.mdsAddress, 12);
    const told = await copies!.codeOnceHeard(victim, UNIT, {
      timeoutMs: 30_000,
      what: 'the OSS to hear from the MDS',
    });
    expect(told).toBe('OBJ_STALE');
    expect((await client.readFile('/d')).equals(after)).toBe(true);

    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
    await waitCleanPgs(cluster, { timeoutMs: 120_000 });
    await eventually(async () => (await copies!.read(victim, UNIT)).equals(after), {
      timeoutMs: 60_000,
      what: 'the repaired copy to hold the new bytes',
    });
  });
});
