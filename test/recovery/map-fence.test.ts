// An OSS cut off from the MDS, while its read lease still holds and before it
// has the map that moved a PG off its OSTs, serves no reader still on the older
// map the bytes from before a write made with the newer one. A file is written;
// the link between the OSS holding one of its copies and the MDS is cut (a
// relay that holds every byte: clients still reach that OSS); both its OSTs are
// marked out, so the PG leaves them; a client that knows the new map overwrites
// the file; then the cut-off copy is read with the map from before. The MDS lets
// writes use the new map only once that OSS has it or its lease (10 s here) has
// lapsed, so the write is held until the lease lapsed and the read is refused
// (REQ_UNAVAILABLE: the lease is gone and the MDS cannot be asked). Once the
// link heals, the OSS has the map and refuses that reader as out of date
// (MAP_STALE). Before, the write was acknowledged at once and the read returned
// the old bytes: the OSS's stale-map rule refuses such reads only once it has
// the newer map (chaos --seed 6 --minutes 3: ost 5 out while oss3 was cut off).
import { afterAll, describe, expect, it } from 'vitest';
import type { StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import type { FenceStatus } from '../../mds/cluster/fences.js';
import { connectReader, overwrite, seededBytes } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster, waitCleanPgs } from '../helpers/cluster.js';
import { errorCode } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { PauseProxy } from '../helpers/pause-proxy.js';
import { freePortRange } from '../helpers/ports.js';
import { Copies, type CopyRef } from './copies.js';
import { rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery map-fence seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
/** The OSS whose link to the MDS is cut. */
const VICTIM = 'oss0';

interface ClusterAnswer {
  epoch: number | string;
  fences?: FenceStatus;
}

describe('a write under a map that moved a PG off a cut-off OSS', () => {
  let cluster: Cluster | undefined;
  let client: StripeClient | undefined;
  let copies: Copies | undefined;
  let proxy: PauseProxy | undefined;
  afterAll(async () => {
    proxy?.heal();
    copies?.close();
    await client?.close();
    await cluster?.stop();
    await proxy?.close();
  });

  it('is held until that OSS has the map or its lease lapsed; its old copy is never served', async () => {
    const mdsPort = await freePortRange(1);
    proxy = new PauseProxy(`127.0.0.1:${mdsPort}`);
    const relayed = await proxy.listen();
    cluster = await startCluster({
      mdsGrpcPort: mdsPort,
      oss: rackLayout(6, 2).map((spec) =>
        spec.id === VICTIM ? { ...spec, env: { STRIPEFS_MDS: relayed } } : spec,
      ),
      pgCount: 32,
      // A 10 s lease: the steps below take far less, so without the fence the read comes while it holds.
      heartbeatIntervalMs: 1000,
      heartbeatsPerTimeout: 10,
      extraEnv: { STRIPEFS_MDS_OUT_GRACE_MS: '600000', STRIPEFS_LOG_LEVEL: 'warn' },
    });
    // A write held by the fence waits up to the lease: a longer request timeout than the default.
    client = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 30_000 });
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
    copies = await Copies.open(cluster);

    const victimOsts = cluster.ostsOf(VICTIM);
    // A file with a copy on the victim's OSTs (each file's object lands in a PG of its own).
    let found: { path: string; victim: CopyRef } | undefined;
    for (let i = 0; !found && i < 30; i++) {
      const path = `/f${i}`;
      await client.writeFile(path, seededBytes(UNIT, SEED + i), { layout: rep3(1) });
      const objectId = (await client.getLayout(path)).objects[0]!.objectId;
      const victim = (await copies.locate({ size: 3 }, objectId)).find((c) => victimOsts.includes(c.ostId));
      if (victim) found = { path, victim };
    }
    if (!found) throw new Error(`no file placed a copy on ${VICTIM}`);
    const { path, victim } = found;
    const before = await client.readFile(path);
    const after = seededBytes(UNIT, SEED + 1000);
    // The bulk connection to the victim exists before the cut; `copies` keeps the map from now on.
    expect((await copies.read(victim, UNIT)).equals(before)).toBe(true);

    proxy.cut();
    let epoch = 0;
    for (const ostId of victimOsts)
      epoch = Number(
        (await cluster.admin<{ mapEpoch: number }>(`/api/osts/${ostId}/out`, { method: 'POST' })).mapEpoch,
      );
    const fenced = await cluster.admin<ClusterAnswer>('/api/cluster');
    await eventually(async () => (await client!.getLayout(path)).mapEpoch >= epoch, {
      timeoutMs: 30_000,
      what: `the client to learn map epoch ${epoch}`,
    });
    const placedNow = await Copies.open(cluster);
    try {
      const members = (await placedNow.locate({ size: 3 }, victim.objectId)).map((c) => c.ostId);
      expect(members.some((id) => victimOsts.includes(id))).toBe(false);
    } finally {
      placedNow.close();
    }
    await overwrite(client, path, after);

    // Read with the map from before the PG left, from the OSS that has not heard of it.
    const stale = await copies
      .read(victim, UNIT)
      .then(
        (bytes) =>
          bytes.equals(before) ? 'the old bytes' : bytes.equals(after) ? 'the new bytes' : 'other bytes',
        errorCode,
      );
    expect(stale).toBe('REQ_UNAVAILABLE');
    expect((await client.readFile(path)).equals(after)).toBe(true);
    // The MDS held the new epochs back from writes for the victim alone.
    expect(Number(fenced.fences?.writableEpoch)).toBeLessThan(epoch);
    expect(fenced.fences?.pending.map((f) => f.oss)).toContainEqual([VICTIM]);

    proxy.heal();
    await eventually(
      async () => {
        const status = (await cluster!.admin<ClusterAnswer>('/api/cluster')).fences;
        return status?.pending.length === 0 && Number(status.writableEpoch) >= epoch;
      },
      { timeoutMs: 60_000, what: 'the fence to lift once the victim hears from the MDS' },
    );
    const told = await copies!.codeOnceHeard(victim, UNIT, {
      timeoutMs: 60_000,
      what: 'the victim to hear from the MDS',
    });
    expect(told).toBe('MAP_STALE');

    for (const ostId of victimOsts) await cluster.admin(`/api/osts/${ostId}/in`, { method: 'POST' });
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
    await waitCleanPgs(cluster, { timeoutMs: 180_000 });
    expect((await client.readFile(path)).equals(after)).toBe(true);
  });
});
