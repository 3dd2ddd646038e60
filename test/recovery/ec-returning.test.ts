// An ec position placed back on the OST it had left before its PG's fill
// elsewhere was done. An ec:2+2 file is written, recovery is paused, the OST
// holding data chunk 0 is reweighted to 0 (chunk 0's PG places that position
// on another member), stripe 0 is written again (its chunk 0 reaches that
// member alone), and the OST is reweighted back before any fill ran. A read
// must return the new stripe, and once recovery has run the returning OST's
// chunk holds it too: the member placed meanwhile holds the position for the
// fill, which merges its blocks into the returning OST's chunk. Before, the
// PG's record was dropped as settled (placed where its holders are) and the
// returning OST served its chunk from before the write (chaos --seed 8
// --minutes 3, suite seed 7: reads of ec files returned stripes replaced
// while the OST was away).
import { describe, expect, it } from 'vitest';
import type { Layout } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { connectReader, overwrite, seededBytes } from '../helpers/clients.js';
import { setOstFaults, waitCleanPgs } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { recoveryFixture, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery ec-returning seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const EC22: Layout = { pattern: 'ec', stripeSize: UNIT, k: 2, m: 2, failureDomain: 'host' };

describe('an ec position placed back on the OST it left', () => {
  const fx = recoveryFixture({ STRIPEFS_MDS_OUT_GRACE_MS: '600000' }, SEED);

  it('serves the stripes written meanwhile, and its chunk takes them once filled', async () => {
    const { cluster, client } = fx;
    const w1 = seededBytes(4 * UNIT, SEED + 1);
    const w2 = seededBytes(2 * UNIT, SEED + 2);
    await client.writeFile('/e', w1, { layout: EC22 });
    const chunkId = (await client.getLayout('/e')).objects[0]!.objectId;
    const copies = await Copies.open(cluster);
    try {
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
      await chunkOn(`moving chunk 0 off OST ${returning}`, (id) => id !== returning);
      // Stripe 0 is written again: its chunk 0 reaches the member placed meanwhile alone.
      await overwrite(client, '/e', w2);
      const whole = Buffer.concat([w2, w1.subarray(w2.length)]);
      await cluster.admin(`/api/osts/${returning}/reweight`, { method: 'POST', body: { weight } });
      await chunkOn(`placing chunk 0 back on OST ${returning}`, (id) => id === returning);

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
