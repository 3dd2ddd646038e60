// A PG member that is being filled. A replicated:3 file is written, recovery
// is paused, and one OST holding it is reweighted to 0: its PG moves, one
// copy to a new member. The file is then appended to: the append goes to the
// new placement, so the new member creates the object with only the appended
// unit (a hole before it). That copy must not be served until the fill has
// copied the object whole: a read of it directly is refused (OBJ_STALE), and
// a client whose other copies fail gets a coded error, never the zeros of the
// hole. Once recovery runs, every copy is whole. Before fill targets were
// refused, the new member served its copy (zeros for the units written
// before the move), and the fill skipped the object (the same size as its
// source's), so it kept the zeros after the PG was clean.
// The same for an ec:2+2 file whose parity chunk 1 moves: a stripe written
// after the move reaches the new member, whose fill must keep that stripe
// and take the other from the old holder. Before fills merged block by block,
// every copy from the old holder was refused as older than the new member's
// (OBJ_NEWER_COPY) and the PG never became clean.
// And an old holder: a replicated copy whose PG moved off its OST is read
// with the map from before the move, after a write made with the newer map
// (which went to the new members): its OSS refuses the read (MAP_STALE, the
// reader refreshes its map). Before, it served it, as it does for a reader
// that asked where data not yet moved is: the bytes from before the write
// (chaos suite seed 7, read 650: a write acknowledged as ost 4 was
// reweighted to 0, then a read of ost 4 returned the write before it).
import { describe, expect, it } from 'vitest';
import type { Layout } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { connectReader, overwrite, seededBytes } from '../helpers/clients.js';
import { setOstFaults, waitCleanPgs } from '../helpers/cluster.js';
import { errorCode } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { moveOffPaused, recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery fill-target seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const EC22: Layout = { pattern: 'ec', stripeSize: UNIT, k: 2, m: 2, failureDomain: 'host' };
const REP3 = rep3(1);

describe('a PG member being filled', () => {
  const fx = recoveryFixture({ STRIPEFS_MDS_OUT_GRACE_MS: '600000' }, SEED);

  it('is never read before its fill copied the object whole', async () => {
    const { cluster, client } = fx;
    const before = seededBytes(4 * UNIT, SEED);
    const appended = seededBytes(UNIT, SEED + 1);
    await client.writeFile('/f', before, { layout: REP3 });
    const object = (await client.getLayout('/f')).objects[0]!;
    const copies = await Copies.open(cluster);
    try {
      const placed = await copies.locate({ size: 3 }, object.objectId);
      const { poolId, pg } = placed[0]!;
      const moved = placed[0]!.ostId;
      const members = await moveOffPaused(cluster, copies, { ostId: moved, poolId, pg });
      const filling = members.find((ost) => !placed.some((p) => p.ostId === ost)) as number;
      const kept = members.filter((ost) => ost !== filling);
      expect(filling, `a new member among ${members.join(',')}`).toBeDefined();

      // The append reaches the new placement: the filling member creates the object there.
      const handle = await client.open('/f', 'r+');
      await handle.write(appended, 0, UNIT, before.length);
      await handle.close();
      const whole = Buffer.concat([before, appended]);
      const fillingRef = { ostId: filling, objectId: object.objectId, poolId, pg };
      expect((await copies.stat(fillingRef)).size, 'the append created the object there').toBe(whole.length);

      const direct = await copies
        .read(fillingRef, whole.length)
        .then(
          (data) => `served ${data.subarray(0, UNIT).every((b) => b === 0) ? 'zeros' : 'bytes'}`,
          errorCode,
        );
      expect(direct, 'a read of the filling copy').toBe('OBJ_STALE');

      // Only the filling copy answers: the read fails with a code, it never returns the hole.
      for (const ost of kept) await setOstFaults(cluster, ost, { readFailRate: 1 });
      const reader = await connectReader(cluster.mdsAddress, SEED + 2, { retriesMax: 1 });
      try {
        const read = await reader
          .readFile('/f')
          .then((data) => (data.equals(whole) ? 'whole' : 'wrong bytes'), errorCode);
        expect(['whole', 'IO_DEGRADED']).toContain(read);
      } finally {
        await reader.close();
        for (const ost of kept) await setOstFaults(cluster, ost, null);
      }

      await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
      await waitCleanPgs(cluster, { timeoutMs: 120_000 });
      await copies.refresh();
      for (const ost of members) {
        const bytes = await copies.bytes({ ostId: ost, objectId: object.objectId, poolId, pg });
        expect(bytes.equals(whole), `the copy on OST ${ost} is whole`).toBe(true);
      }
      const last = await connectReader(cluster.mdsAddress, SEED + 3);
      try {
        expect((await last.readFile('/f')).equals(whole)).toBe(true);
      } finally {
        await last.close();
      }
    } finally {
      copies.close();
    }
  });

  it('an ec chunk filled after a stripe write keeps it and takes the rest from its old holder', async () => {
    const { cluster, client } = fx;
    const w1 = seededBytes(4 * UNIT, SEED + 10);
    const w2 = seededBytes(2 * UNIT, SEED + 11);
    await client.writeFile('/g', w1, { layout: EC22 });
    const chunkId = (await client.getLayout('/g')).objects[3]!.objectId;
    const copies = await Copies.open(cluster);
    try {
      const [placed] = await copies.locate({ k: 2, m: 2 }, chunkId);
      const { poolId, pg, ostId: moved } = placed!;
      await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
      await cluster.admin(`/api/osts/${moved}/reweight`, { method: 'POST', body: { weight: 0 } });
      await eventually(
        async () => {
          const [now] = await copies.locate({ k: 2, m: 2 }, chunkId);
          if (now!.ostId !== moved) return now;
          throw new Error(`parity chunk 1 still on OST ${moved}`);
        },
        { timeoutMs: 30_000, what: `PG ${poolId}/${pg} moving parity chunk 1 off OST ${moved}` },
      );
      // Stripe 0 is written again: its chunks, parity 1 included, reach the new placement.
      await overwrite(client, '/g', w2);
      const whole = Buffer.concat([w2, w1.subarray(w2.length)]);

      await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
      await waitCleanPgs(cluster, { timeoutMs: 120_000 });
      // Both data chunks unreadable: the file is rebuilt from the parity chunks, the filled one included.
      const layout = await client.getLayout('/g');
      const data = [layout.objects[0]!.osts[0]!, layout.objects[1]!.osts[0]!];
      for (const ost of data) await setOstFaults(cluster, ost, { readFailRate: 1 });
      const reader = await connectReader(cluster.mdsAddress, SEED + 12);
      try {
        expect((await reader.readFile('/g')).equals(whole), 'rebuilt from the parity chunks').toBe(true);
      } finally {
        await reader.close();
        for (const ost of data) await setOstFaults(cluster, ost, null);
      }
    } finally {
      copies.close();
    }
  });

  it('an old holder refuses a read made with the map from before its PG left it', async () => {
    const { cluster, client } = fx;
    const v1 = seededBytes(2 * UNIT, SEED + 20);
    const v2 = seededBytes(UNIT, SEED + 21);
    await client.writeFile('/h', v1, { layout: REP3 });
    const object = (await client.getLayout('/h')).objects[0]!;
    // Its map stays the one from before the move: its reads are made with it.
    const before = await Copies.open(cluster);
    const copies = await Copies.open(cluster);
    try {
      const placed = before.placed(before.poolOf({ size: 3 }), object.objectId);
      const { poolId, pg, ostId: moved } = placed[0]!;
      await moveOffPaused(cluster, copies, { ostId: moved, poolId, pg });
      // Written with the newer map: to the PG's members now, not to its old holder.
      await overwrite(client, '/h', v2);
      const old = { ostId: moved, objectId: object.objectId, poolId, pg };
      const answer = (data: Buffer): string =>
        data.equals(v2) ? 'the new bytes' : 'the bytes from before the write';
      // Its OSS hears of the move by its map stream: until then the old map is still its own.
      const refused = await eventually(
        async () => {
          const got = await before.read(old, UNIT).then(answer, errorCode);
          if (got === 'MAP_STALE') return got;
          throw new Error(`a read of OST ${moved} made with the map from before the move: ${got}`);
        },
        { timeoutMs: 30_000, what: `the old holder OST ${moved} refusing a read with the old map` },
      );
      expect(refused).toBe('MAP_STALE');
      // A reader that knows the PG moved may still read the old holder (data not yet moved is there).
      expect(await copies.read(old, UNIT).then(answer, errorCode)).toBe('the bytes from before the write');
      const reader = await connectReader(cluster.mdsAddress, SEED + 22);
      try {
        const whole = Buffer.concat([v2, v1.subarray(UNIT)]);
        expect((await reader.readFile('/h')).equals(whole), 'a reader gets the write').toBe(true);
      } finally {
        await reader.close();
      }
      await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
      await waitCleanPgs(cluster, { timeoutMs: 120_000 });
    } finally {
      before.close();
      copies.close();
    }
  });
});
