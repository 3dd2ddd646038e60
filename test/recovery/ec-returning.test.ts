// An ec position placed back on the OST it had left before its PG's fill
// elsewhere was done. An ec:2+2 file is written, recovery is paused, the OST
// holding data chunk 0 is reweighted to 0 (chunk 0's PG places that position
// on another member), stripe 0 is written again (its chunk 0 reaches that
// member alone), and the OST is reweighted back before any fill ran. A read
// must return the new stripe, and once recovery has run the returning OST's
// chunk holds it too: the position is a hole that readers rebuild, and the
// returning OST's fill merges the chunks of the member placed meanwhile into
// its own (ecReturning in mds/recovery/holders.ts). Before, the PG's record
// was dropped as settled (placed where its holders are) and the returning OST
// served its chunk from before the write (chaos --seed 8 --minutes 3, suite
// seed 7: reads of ec files returned stripes replaced while the OST was away).
import { describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { connectReader, overwrite, seededBytes } from '../helpers/clients.js';
import { type Cluster, setOstFaults, waitCleanPgs, waitOstsState } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { recoveryFixture, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery ec-returning seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const EC22: Layout = { pattern: 'ec', stripeSize: UNIT, k: 2, m: 2, failureDomain: 'host' };

/** What placedBack did: the file's bytes after the overwrite, chunk 0's PG, its returning OST and the member placed meanwhile. */
interface PlacedBack {
  whole: Buffer;
  poolId: number;
  pg: number;
  returning: number;
  meanwhile: number;
}

/**
 * Writes `/e` (ec:2+2, two stripes), pauses recovery, reweights the OST of chunk 0 to 0 until its
 * PG places that position elsewhere, overwrites stripe 0 (its chunk 0 reaches the member placed
 * meanwhile alone) and reweights the OST back until the position is placed on it again, before any
 * fill ran. Recovery stays paused.
 */
async function placedBack(cluster: Cluster, client: StripeClient, copies: Copies): Promise<PlacedBack> {
  const w1 = seededBytes(4 * UNIT, SEED + 1);
  const w2 = seededBytes(2 * UNIT, SEED + 2);
  await client.writeFile('/e', w1, { layout: EC22 });
  const chunkId = (await client.getLayout('/e')).objects[0]!.objectId;
  const [placed] = await copies.locate({ k: 2, m: 2 }, chunkId);
  const { poolId, pg, ostId: returning } = placed!;
  const map = await cluster.admin<{ map: { osts: { id: number; weight: number }[] } }>('/api/cluster');
  const weight = map.map.osts.find((o) => o.id === returning)!.weight;
  await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
  const chunkOn = (what: string, holds: (ostId: number) => boolean) =>
    eventually(
      async () => {
        const [now] = await copies.locate({ k: 2, m: 2 }, chunkId);
        if (holds(now!.ostId)) return now!.ostId;
        throw new Error(`chunk 0 on OST ${now!.ostId}`);
      },
      { timeoutMs: 30_000, what: `PG ${poolId}/${pg} ${what}` },
    );
  await cluster.admin(`/api/osts/${returning}/reweight`, { method: 'POST', body: { weight: 0 } });
  const meanwhile = await chunkOn(`moving chunk 0 off OST ${returning}`, (id) => id !== returning);
  // Stripe 0 is written again: its chunk 0 reaches the member placed meanwhile alone.
  await overwrite(client, '/e', w2);
  await cluster.admin(`/api/osts/${returning}/reweight`, { method: 'POST', body: { weight } });
  await chunkOn(`placing chunk 0 back on OST ${returning}`, (id) => id === returning);
  return { whole: Buffer.concat([w2, w1.subarray(w2.length)]), poolId, pg, returning, meanwhile };
}

describe('an ec position placed back on the OST it left', () => {
  const fx = recoveryFixture({ STRIPEFS_MDS_OUT_GRACE_MS: '600000' }, SEED);

  it('serves the stripes written meanwhile, and its chunk takes them once filled', async () => {
    const { cluster, client } = fx;
    const copies = await Copies.open(cluster);
    try {
      const { whole, returning } = await placedBack(cluster, client, copies);
      const reader = await connectReader(cluster.mdsAddress, SEED + 3);
      try {
        expect((await reader.readFile('/e')).equals(whole), 'read once placed back').toBe(true);
        await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
        await waitCleanPgs(cluster, { timeoutMs: 120_000 });
        // Data chunk 1 and parity chunk 3 unreadable: stripe 0 is decoded from the returning OST's
        // chunk 0 and parity 2, which must hold the same write.
        const layout = await client.getLayout('/e');
        const failing = [layout.objects[1]!.osts[0]!, layout.objects[3]!.osts[0]!];
        expect(failing).not.toContain(returning);
        for (const ost of failing) await setOstFaults(cluster, ost, { readFailRate: 1 });
        try {
          expect((await reader.readFile('/e')).equals(whole), 'read from the filled chunk').toBe(true);
        } finally {
          for (const ost of failing) await setOstFaults(cluster, ost, null);
        }
      } finally {
        await reader.close();
      }
    } finally {
      copies.close();
    }
  });
});

// The same, then the OSSs of the parity positions' holders stop: the PG's record keeps fewer up
// holders than the k = 2 a rebuild needs (the returning position is a hole; a position the
// reweight moved and moved back is a hole too). The returning OST's fill needs no rebuild (it
// merges the chunks of the member placed meanwhile into its own), so it runs, and the file reads
// whole from the data chunks. Before, the planner skipped a PG with fewer up holders than k as
// unfound without counting that member (`spare < 0` in mds/recovery/planner.ts): the returning
// OST refused reads until filled, nothing could rebuild chunk 0, and every read failed until the
// stopped OSSs came back.
describe('an ec position placed back while its PG has fewer up holders than k', () => {
  const fx = recoveryFixture({ STRIPEFS_MDS_OUT_GRACE_MS: '600000' }, SEED);

  it('is filled from the member placed meanwhile, and the file reads from the data chunks', async () => {
    const { cluster, client } = fx;
    const copies = await Copies.open(cluster);
    try {
      const { whole, returning, meanwhile, poolId, pg } = await placedBack(cluster, client, copies);
      const { holders } = await cluster.admin<{ holders: number[] }>(`/api/pgs/${poolId}/${pg}`);
      expect(holders[0]).toBe(-1);
      // Every holder of a parity position is one the reweight did not move (a moved one came back
      // as a hole), so neither the returning OST nor the member placed meanwhile shares its OSS.
      const parityHolders = holders.slice(2).filter((id) => id >= 0);
      const stopped = [...new Set(parityHolders.map((ost) => cluster.ossIndexOfOst(ost)))];
      for (const ost of [returning, meanwhile]) expect(stopped).not.toContain(cluster.ossIndexOfOst(ost));
      expect(holders.filter((id) => id >= 0).length - parityHolders.length).toBeLessThan(2);
      for (const index of stopped) await cluster.killOss(index);
      if (parityHolders.length > 0) await waitOstsState(cluster.mdsAddress, parityHolders, false);
      await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
      const reader = await connectReader(cluster.mdsAddress, SEED + 3);
      try {
        await eventually(
          async () => {
            if (!(await reader.readFile('/e')).equals(whole))
              throw new Error('the read returned other bytes');
            return true;
          },
          { timeoutMs: 90_000, what: `a read of /e, OST ${returning} filled from OST ${meanwhile}` },
        );
      } finally {
        await reader.close();
      }
    } finally {
      copies.close();
    }
  });
});
