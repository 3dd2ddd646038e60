// An OST that comes back after it was marked out, before recovery moved its
// PGs anywhere, must not keep the writes it missed while down. The file is
// written, one OSS holding copies of it is SIGKILLed, the file is overwritten
// (the writes skip the down OSTs and report them to the MDS), the OSTs are
// marked out (their PGs map elsewhere; recovery is paused, so nothing moves),
// the OSS comes back (its PGs map home again). Before any repair the file
// reads back new (the OST refuses the copies it was told are stale); once
// every PG is clean, every copy of every object must hold the new bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import {
  type Cluster,
  clusterAvailable,
  ossIndexOfOst,
  seededBytes,
  waitForOsts,
} from '../client/cluster.js';
import { runCli } from '../helpers/cli.js';
import { Copies } from './copies.js';
import {
  adminJson,
  adminUrl,
  connectReader,
  type RecoveryAnswer,
  startRecoveryCluster,
  waitClean,
  waitOut,
} from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery returning-ost seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const EC42: Layout = { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' };
const REP3: Layout = {
  pattern: 'replicated',
  stripeSize: S,
  stripeCount: 4,
  replicas: 3,
  failureDomain: 'host',
};

describe.skipIf(!clusterAvailable())('an OST back before recovery moved its PGs', () => {
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    cluster = await startRecoveryCluster({ STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0' });
    client = await connectReader(cluster, SEED);
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  it('keeps none of the writes it missed: every copy holds the new bytes once clean', async () => {
    const before = seededBytes(16 * S, SEED + 1);
    const after = seededBytes(16 * S, SEED + 2);
    await client.writeFile('/f', before, { layout: REP3 });
    const objects = (await client.getLayout('/f')).objects;
    const victim = objects[0]?.osts[0] as number;
    const index = await ossIndexOfOst(cluster, victim);
    await adminJson(cluster, '/api/recovery', { method: 'PUT', body: { paused: true } });
    await cluster.oss[index]?.kill();
    await waitForOsts(cluster.mdsAddress, 12, 10);
    const handle = await client.open('/f', 'r+');
    await handle.write(after, 0, after.length, 0);
    await handle.close();
    await waitOut(cluster, 2);
    await cluster.restartOss(index);
    // Recovery is still paused, so nothing is repaired yet; once the MDS has told the OST which
    // copies missed writes, reads take the other copies and return the new bytes.
    for (let polls = 0; ; polls++) {
      const status = await adminJson<{ repairsQueued: number; repairsAnnounced: number }>(
        cluster,
        '/api/recovery',
      );
      if (status.repairsQueued > 0 && status.repairsAnnounced === status.repairsQueued) break;
      if (polls > 100) throw new Error(`repairs not announced: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const health = await runCli(['health', '--mds', cluster.mdsAddress, '--admin', adminUrl(cluster)]);
    expect(health.stdout).toMatch(/HEALTH_WARN/);
    expect(health.stdout).toMatch(/\d+ copies await repair/);
    const early = await connectReader(cluster, SEED);
    expect((await early.readFile('/f')).equals(after), 'read before the repair').toBe(true);
    await early.close();
    // The OSS restarts (its list of stale copies is in memory): the MDS tells it again, on its
    // new address even if it was never seen down, and reads again take the other copies.
    await cluster.restartOss(index);
    let again = false;
    for (let polls = 0; polls < 50 && !again; polls++) {
      const reader = await connectReader(cluster, SEED);
      again = (await reader.readFile('/f')).equals(after);
      await reader.close();
      if (!again) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(again, 'read after the OSS restarted, before the repair').toBe(true);
    await adminJson(cluster, '/api/recovery', { method: 'PUT', body: { paused: false } });
    await waitClean(cluster, 60_000);
    console.log('recovery after the return:', JSON.stringify(await adminJson(cluster, '/api/recovery')));
    const copies = await Copies.open(cluster);
    try {
      for (const object of objects) {
        const refs = await copies.locate({ size: 3 }, object.objectId);
        const bodies = await Promise.all(refs.map((ref) => copies.bytes(ref)));
        const first = bodies[0] as Buffer;
        for (const [i, body] of bodies.entries())
          expect(
            body.equals(first),
            `${object.objectId} on OST ${refs[i]?.ostId} against OST ${refs[0]?.ostId}`,
          ).toBe(true);
      }
    } finally {
      copies.close();
    }
    expect((await client.readFile('/f')).equals(after)).toBe(true);
  }, 120_000);
});

// The OSTs must stay in (placed) while the file is written: an out host would leave five of the
// six hosts an ec:4+2 host layout needs.
describe.skipIf(!clusterAvailable())('an ec chunk skipped while its host was down', () => {
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    cluster = await startRecoveryCluster({
      STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0',
      STRIPEFS_MDS_OUT_GRACE_MS: '600000',
    });
    client = await connectReader(cluster, SEED);
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  it('an ec:4+2 file written with one host down leaves its chunk there to the MDS, which writes it once the host is back', async () => {
    const index = 0;
    await cluster.oss[index]?.kill();
    await waitForOsts(cluster.mdsAddress, 12, 10);
    // Six hosts, one chunk on each: one chunk's OST is down. k + 1 members up is enough to write.
    const data = seededBytes(4 * 8 * S + 5, SEED + 3);
    await client.writeFile('/ec', data, { layout: EC42 });
    expect((await client.readFile('/ec')).equals(data)).toBe(true);
    const repairedBefore = (await adminJson<RecoveryAnswer>(cluster, '/api/recovery')).totals.objectsRepaired;
    await cluster.restartOss(index);
    await waitClean(cluster, 60_000);
    const repaired = (await adminJson<RecoveryAnswer>(cluster, '/api/recovery')).totals.objectsRepaired;
    expect(repaired - repairedBefore).toBe(1);
    // Every chunk is on its OST now, all of one size: the skipped one was rebuilt there.
    const copies = await Copies.open(cluster);
    try {
      const chunks = (await client.getLayout('/ec')).objects;
      const sizes = await Promise.all(
        chunks.map(
          async (c) => (await copies.stat({ ...(await copies.locate({ k: 4, m: 2 }, c.objectId))[0]! })).size,
        ),
      );
      expect(new Set(sizes).size).toBe(1);
    } finally {
      copies.close();
    }
    // Two other hosts killed: the four chunks left, the rewritten one among them, must give the bytes.
    await cluster.oss[1]?.kill();
    await cluster.oss[2]?.kill();
    await waitForOsts(cluster.mdsAddress, 12, 8);
    expect((await client.readFile('/ec')).equals(data)).toBe(true);
  }, 120_000);
});
