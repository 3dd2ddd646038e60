// The benches' shared cluster on real processes: every get() returns the one
// cluster the first started; a suite handed it leaves it running; an OSS that
// a bench killed comes back on its own data (same OST ids, every OST up and
// in, a file written before the kill reads back whole); stop() ends every
// process and removes the folder.
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type BenchCluster, sharedCluster } from '../../bench/cluster.js';
import { runSmallFilesBench } from '../../bench/smallfiles.js';
import { StripeClient } from '../../client/index.js';
import { MdsClient } from '../../client/mds-client.js';
import { seededBytes } from '../helpers/clients.js';
import { waitForOsts } from '../helpers/cluster.js';

const MiB = 1 << 20;

async function ostIds(mdsAddress: string): Promise<{ all: number[]; upAndIn: number[] }> {
  const mds = new MdsClient(mdsAddress);
  try {
    const osts = [...(await mds.refreshMap()).osts.entries()];
    return {
      all: osts.map(([id]) => id).sort((a, b) => a - b),
      upAndIn: osts
        .filter(([, o]) => o.up && o.in)
        .map(([id]) => id)
        .sort((a, b) => a - b),
    };
  } finally {
    mds.close();
  }
}

describe('bench shared cluster', () => {
  const shared = sharedCluster();
  afterAll(() => shared.stop());

  it('is started once, outlives a suite that used it, and takes back a killed OSS', async () => {
    const [first, second] = await Promise.all([shared.get(), shared.get()]);
    expect(second).toBe(first);
    const cluster = first as BenchCluster;
    const before = await ostIds(cluster.mdsAddress);
    expect(before.all.length).toBe(12);
    expect(before.upAndIn).toEqual(before.all);

    const results = await runSmallFilesBench({ quick: true, files: 50, cluster: shared.get });
    expect(results.length).toBeGreaterThan(0);
    expect(await shared.get()).toBe(cluster);
    expect(cluster.oss.every((p) => p.child.exitCode === null && p.child.signalCode === null)).toBe(true);

    const client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 1 });
    try {
      const data = seededBytes(8 * MiB, 3);
      await client.writeFile('/kept', data, {
        layout: { pattern: 'ec', stripeSize: MiB, k: 4, m: 2, failureDomain: 'host' },
      });
      const victim = cluster.ossIndexOfOst((await client.getLayout('/kept')).objects[0]?.osts[0] as number);
      await cluster.oss[victim]?.kill('SIGKILL');
      await waitForOsts(cluster.mdsAddress, 12, 10); // its two OSTs marked down
      await cluster.restartOss(victim);
      const after = await ostIds(cluster.mdsAddress);
      expect(after.all).toEqual(before.all);
      expect(after.upAndIn).toEqual(before.all);
      const reader = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 2 });
      try {
        expect((await reader.readFile('/kept')).equals(data)).toBe(true);
      } finally {
        await reader.close();
      }
    } finally {
      await client.close();
    }

    await shared.stop();
    expect(cluster.oss.every((p) => p.child.exitCode !== null || p.child.signalCode !== null)).toBe(true);
    expect(cluster.mds.child.exitCode !== null || cluster.mds.child.signalCode !== null).toBe(true);
    expect(existsSync(cluster.dir)).toBe(false);
  });
});
