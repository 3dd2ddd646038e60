// A write that skipped a copy is acknowledged only once that copy's OSS refuses reads of it. A
// writer skips a copy whose OST its map shows down; when its map is behind (the OSS is back and
// serving), the MDS records the skip and the writer acknowledges, while the OSS still serves the
// copy from before the write until MarkStale or its next heartbeat answer arrives. Here a file is
// written (replicated:3), recovery paused, the OSS of a copy of its second object SIGSTOPped and
// that copy's skip reported (the MDS's MarkStale to it hangs, and with it every other MarkStale
// sent from the recovery tick); then a copy of the first object on a running OSS is reported
// skipped, as a writer with an older map would, and read from its OSS as soon as the MDS answers.
// Heartbeats come once a second (a lease of 10 s), so a heartbeat answer rarely lands in between.
// The MDS now answers once MarkStale reached that OSS (or its read lease lapsed): the read is
// refused (OBJ_STALE). Before, it answered at once and the read was served the old copy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MdsClient } from '../../client/mds-client.js';
import { seedFromEnv } from '../../common/random.js';
import { connectReader, seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { errorCode } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { type RecoveryAnswer, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery skip-told seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

describe('a copy a write skipped while its OSS serves reads', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({
      pgCount: 32,
      heartbeatIntervalMs: 1000,
      heartbeatsPerTimeout: 10,
      extraEnv: { STRIPEFS_MDS_OUT_GRACE_MS: '600000', STRIPEFS_LOG_LEVEL: 'warn' },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('is refused by that OSS once the MDS has answered the skip', async () => {
    const client = await connectReader(cluster.mdsAddress, SEED);
    const copies = await Copies.open(cluster);
    const mds = new MdsClient(cluster.mdsAddress);
    let stopped: number | undefined;
    try {
      await client.writeFile('/s', seededBytes(2 * UNIT, SEED + 1), { layout: rep3(2) });
      const [first, second] = (await client.getLayout('/s')).objects.map((o) => o.objectId);
      const copiesOf = (objectId: string) => copies.locate({ size: 3 }, objectId);
      await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
      const read = (await copiesOf(first!))[0]!;
      const ossOfRead = cluster.ossIndexOfOst(read.ostId);
      const hung = (await copiesOf(second!)).find((c) => cluster.ossIndexOfOst(c.ostId) !== ossOfRead)!;
      stopped = cluster.ossIndexOfOst(hung.ostId);
      cluster.oss[stopped]!.child.kill('SIGSTOP');
      const hungReport = mds
        .reportBadChunk(hung.ostId, hung.objectId, 'WRITE_SKIPPED', hung.poolId, hung.pg)
        .catch(errorCode);
      await eventually(
        async () => (await cluster.admin<RecoveryAnswer>('/api/recovery')).repairsQueued >= 1 || undefined,
        { timeoutMs: 30_000, what: `the skip of ${hung.objectId} on OST ${hung.ostId} recorded` },
      );
      await mds.reportBadChunk(read.ostId, read.objectId, 'WRITE_SKIPPED', read.poolId, read.pg);
      const code = await copies.read(read, UNIT).then(() => 'served', errorCode);
      expect(code, `${read.objectId} on OST ${read.ostId} right after its skip was answered`).toBe(
        'OBJ_STALE',
      );
      cluster.oss[stopped]!.child.kill('SIGCONT');
      stopped = undefined;
      expect(await hungReport).toBeUndefined();
    } finally {
      if (stopped !== undefined) cluster.oss[stopped]!.child.kill('SIGCONT');
      mds.close();
      copies.close();
      await client.close();
    }
  });
});
