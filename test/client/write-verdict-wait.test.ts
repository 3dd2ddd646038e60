// A write whose retries run out against an OST the MDS has not yet marked down
// (its OSS hung: SIGSTOP, so it neither answers nor misses a heartbeat for 6 s,
// longer than the client's retries of 500 ms requests) waits for the MDS's
// verdict and then leaves the copy out as min_size allows: the writer pauses, it
// does not fail. A killed OSS is usually marked down at once (its link to the MDS
// closes), but on a loaded host that news can come later than the retries. A
// flush (sync, close) to such a copy waits the same way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';

const SEED = seedFromEnv();
console.log(`write verdict wait seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const REP3: Layout = {
  pattern: 'replicated',
  stripeSize: S,
  stripeCount: 1,
  replicas: 3,
  failureDomain: 'host',
};
const EC42: Layout = { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' };

describe('a write to a copy whose OSS just died waits for the map instead of failing', () => {
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    cluster = await startCluster({ heartbeatIntervalMs: 200, heartbeatsPerTimeout: 30 });
    client = await StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      limits: { cacheBytesMax: 0, readaheadTotalBytesMax: 0, requestTimeoutMs: 500 },
    });
    await client.mkdir('/w', { recursive: true });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  for (const [name, layout] of [
    ['replicated:3', REP3],
    ['ec:4+2', EC42],
  ] as [string, Layout][]) {
    it(`${name}: the OSS of the first copy hangs between two writes; the second write lands`, async () => {
      const path = `/w/${name.replace(/\W/g, '')}`;
      const first = seededBytes(4 * S, SEED + 1);
      const second = seededBytes(4 * S, SEED + 2);
      const handle = await client.open(path, 'w', { layout });
      await handle.write(first, 0, first.length, 0);
      await handle.sync();
      const victimOst = (await client.getLayout(path)).objects[0]?.osts[0] as number;
      const victim = cluster.ossIndexOfOst(victimOst);
      const before = client.stats().mapWaits;
      cluster.oss[victim]?.child.kill('SIGSTOP');
      // For 6 s the map still shows the OST up: every retry times out until the MDS marks it down.
      await handle.write(second, 0, second.length, first.length);
      await handle.close();
      expect(client.stats().mapWaits, 'the write waited for a newer map').toBeGreaterThan(before);
      const back = await client.readFile(path);
      expect(back.equals(Buffer.concat([first, second])), `${path} reads back whole`).toBe(true);
      cluster.oss[victim]?.child.kill('SIGCONT');
      await cluster.restartOss(victim);
    });
  }

  it('replicated:3: the OSS of a copy hangs between a write and its sync; the sync waits for the map and lands', async () => {
    const path = '/w/flush-rep3';
    const data = seededBytes(4 * S, SEED + 3);
    const handle = await client.open(path, 'w', { layout: REP3 });
    // writeLent without `final` sends each unit at once and not durable: the close must flush it.
    await (await handle.writeLent(data, 0)).released;
    const victimOst = (await client.getLayout(path)).objects[0]?.osts[1] as number;
    const victim = cluster.ossIndexOfOst(victimOst);
    const before = client.stats().mapWaits;
    cluster.oss[victim]?.child.kill('SIGSTOP');
    // Every copy is written, none flushed; the flush to the hung OSS times out until the MDS marks it down.
    await handle.close();
    expect(client.stats().mapWaits, 'the flush waited for a newer map').toBeGreaterThan(before);
    const back = await client.readFile(path);
    expect(back.equals(data), `${path} reads back whole`).toBe(true);
    cluster.oss[victim]?.child.kill('SIGCONT');
    await cluster.restartOss(victim);
  });
});
