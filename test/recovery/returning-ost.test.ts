// An OST that comes back after it was marked out, before recovery moved its
// PGs anywhere, must not keep the writes it missed while down. The file is
// written, one OSS holding copies of it is SIGKILLed, the file is overwritten
// (the writes skip the down OSTs and report them to the MDS), the OSTs are
// marked out (their PGs map elsewhere; recovery is paused, so nothing moves),
// the OSS comes back (its PGs map home again). Once every PG is clean, every
// copy of every object must hold the new bytes.
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
import { Copies } from './copies.js';
import { adminJson, connectReader, startRecoveryCluster, waitClean, waitOut } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery returning-ost seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
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
