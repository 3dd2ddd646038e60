// Members a PG leaves before their fill is recorded (mds/recovery/holders.ts,
// leftMembers), on the pure cluster state: an OST out, then back in before
// its PGs were filled elsewhere, leaves the members placed meanwhile holding
// whatever they were sent. They hold no part of the PG any more (not placed,
// not holders; ec: but the member placed at OST 0's own position, a source of
// OST 0's fill until it is done), so each is named as a stale copy to purge; nothing
// placed or holding is. Before, such copies had no record at all and stayed for good
// (fsck: orphans "not-placed" after a rack came back, test/faults/01).
// Then on a real cluster: a replicated:3 file's PG moves off an OST
// (reweighted to 0, recovery paused), an append creates the object on the new
// member, and the OST is reweighted back before any fill ran. Once recovery
// runs, the new member's copy is purged (its OST holds no object of the PG)
// and every placed copy holds the appended bytes.
import { describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { adminSetIn, type ClusterState } from '../../mds/cluster/state.js';
import { holderChanges, leftMembers, pgKey } from '../../mds/recovery/holders.js';
import { HOLE, placePg } from '../../placement/index.js';
import { seededBytes } from '../helpers/clients.js';
import { waitCleanPgs } from '../helpers/cluster.js';
import { pureCluster } from '../helpers/cluster-state.js';
import { errorCode } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { moveOffPaused, recoveryFixture, rep3, reweightUntil, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery left-members seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

function cluster(hosts: number): ClusterState {
  return pureCluster(hosts, [
    { rule: { kind: 'replicated', size: 3, failureDomain: 'host' }, pgCount: 64 },
    { rule: { kind: 'erasure', k: 2, m: 2, failureDomain: 'host' }, pgCount: 64 },
  ]);
}

/** Applies a map change to a holders table; returns the members it left. */
function change(
  prev: ClusterState,
  next: ClusterState,
  table: Map<string, number[]>,
): [number, number, number][] {
  const changes = holderChanges(prev, next, table);
  const set = new Map(changes.set);
  const del = new Set(changes.del);
  // A member that is a fill's source only (holders.ts, ecReturning) is kept as RecoveryService does.
  const fillOnly = new Map<string, number[]>();
  for (const r of changes.returning)
    fillOnly.set(pgKey(r.poolId, r.pg), [...(fillOnly.get(pgKey(r.poolId, r.pg)) ?? []), r.from]);
  const left = leftMembers(prev, next, (key) => {
    const holders = del.has(key) ? undefined : (set.get(key) ?? table.get(key));
    return holders && [...holders, ...(fillOnly.get(key) ?? [])];
  });
  for (const [key, holders] of changes.set) table.set(key, holders);
  for (const key of changes.del) table.delete(key);
  return left;
}

describe('members a PG leaves', () => {
  const base = cluster(8);
  const out = adminSetIn(base, 0, false);
  const back = adminSetIn(out, 0, true);

  it('none when a PG moves the first time: its old placement holds it', () => {
    expect(change(base, out, new Map())).toEqual([]);
  });

  it('every member placed while OST 0 was out, once it is back before the fills were done', () => {
    const table = new Map<string, number[]>();
    change(base, out, table);
    const left = change(out, back, table);
    const expected: [number, number, number][] = [];
    for (const pool of back.pools)
      for (let pg = 0; pg < pool.pgCount; pg++) {
        const was = placePg(out.map, pool, pg).osts;
        const now = placePg(back.map, pool, pg).osts;
        for (const [position, ostId] of was.entries()) {
          if (ostId === HOLE || now.includes(ostId)) continue;
          // ec: the member placed at OST 0's position meanwhile is a source of OST 0's fill (it alone
          // has the writes made meanwhile): not left until that fill is done.
          if (pool.rule.kind === 'erasure' && now[position] === 0) continue;
          expected.push([ostId, pool.id, pg]);
        }
      }
    expect(expected.length, 'PGs moved and came back').toBeGreaterThan(0);
    expect(left.sort()).toEqual(expected.sort());
    // None of them is placed or holds its PG now.
    for (const [ostId, poolId, pg] of left) {
      const pool = back.pools.find((p) => p.id === poolId)!;
      expect(placePg(back.map, pool, pg).osts).not.toContain(ostId);
      expect(table.get(pgKey(poolId, pg)) ?? []).not.toContain(ostId);
    }
  });

  it('none when the PGs were filled elsewhere first: the old holders are what a completed fill lets go', () => {
    // Fills done: no records left, the placement with OST 0 out holds every PG.
    expect(change(out, back, new Map())).toEqual([]);
  });
});

describe('a member its PG left before its fill', () => {
  const fx = recoveryFixture({ STRIPEFS_MDS_OUT_GRACE_MS: '600000' }, SEED);

  it('is purged once recovery runs, and the placed copies hold every write', async () => {
    const { cluster, client } = fx;
    const layout = rep3(1);
    const before = seededBytes(2 * UNIT, SEED);
    const appended = seededBytes(UNIT, SEED + 1);
    await client.writeFile('/f', before, { layout });
    const object = (await client.getLayout('/f')).objects[0]!;
    const copies = await Copies.open(cluster);
    try {
      const placed = await copies.locate({ size: 3 }, object.objectId);
      const { poolId, pg } = placed[0]!;
      const moved = placed[0]!.ostId;
      const members = await moveOffPaused(cluster, copies, { ostId: moved, poolId, pg });
      const left = members.find((ost) => !placed.some((p) => p.ostId === ost)) as number;
      expect(left, `a new member among ${members.join(',')}`).toBeDefined();
      // The append reaches the new placement: the new member creates the object there.
      const handle = await client.open('/f', 'r+');
      await handle.write(appended, 0, UNIT, before.length);
      await handle.close();
      const whole = Buffer.concat([before, appended]);
      const leftRef = { ostId: left, objectId: object.objectId, poolId, pg };
      expect((await copies.stat(leftRef)).size).toBe(whole.length);

      // Back before any fill ran: the PG is placed where it was, and the new member left.
      await reweightUntil(
        cluster,
        copies,
        moved,
        1,
        { poolId, pg },
        (now) => now.includes(moved) && !now.includes(left),
        `PG ${poolId}/${pg} back on OST ${moved}`,
      );
      await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
      await waitCleanPgs(cluster, { timeoutMs: 120_000 });
      const gone = await eventually(() => copies.stat(leftRef).then(() => undefined, errorCode), {
        timeoutMs: 60_000,
        what: `the copy on OST ${left}, which its PG left, purged`,
      });
      expect(gone).toBe('OBJ_NOT_FOUND');
      for (const ost of placed.map((p) => p.ostId)) {
        const bytes = await copies.bytes({ ostId: ost, objectId: object.objectId, poolId, pg });
        expect(bytes.equals(whole), `the copy on OST ${ost} holds the append`).toBe(true);
      }
      expect((await client.readFile('/f')).equals(whole)).toBe(true);
    } finally {
      copies.close();
    }
  });
});
