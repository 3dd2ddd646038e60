// removeOsts (`stripefs ost rm`): OSTs leave the map with the buckets they leave empty. An out
// OST still takes part in a domain's draw (it is then replaced, as Ceph retries), so removing it
// can reorder a replicated PG (its primary) without changing its set of OSTs, and move some ec
// chunks: as with Ceph's purge after `osd out`, a second, smaller move (the MDS backfills it).
import { describe, expect, it } from 'vitest';
import {
  buildTopology,
  type ClusterMap,
  PlacementError,
  type Pool,
  placePg,
  removeOsts,
  setOstState,
  validateMap,
} from '../../placement/index.js';

const PG_COUNT = 256;
const REPLICATED: Pool[] = [
  {
    id: 1,
    name: 'rep3-host',
    pgCount: PG_COUNT,
    rule: { kind: 'replicated', size: 3, failureDomain: 'host' },
  },
  {
    id: 3,
    name: 'rep2-rack',
    pgCount: PG_COUNT,
    rule: { kind: 'replicated', size: 2, failureDomain: 'rack' },
  },
];
const EC: Pool = {
  id: 2,
  name: 'ec42-host',
  pgCount: PG_COUNT,
  rule: { kind: 'erasure', k: 4, m: 2, failureDomain: 'host' },
};

function placements(map: ClusterMap, pool: Pool): number[][] {
  return Array.from({ length: pool.pgCount }, (_, pg) => placePg(map, pool, pg).osts);
}

describe('removeOsts', () => {
  const map = buildTopology({ racks: 3, hostsPerRack: 3, ostsPerHost: 2 });

  // host1 (ost2, ost3) is down and out, then removed.
  const out = setOstState(setOstState(map, 2, { up: false, in: false }), 3, { up: false, in: false });
  const removed = removeOsts(out, [2, 3]);

  it('keeps the set of OSTs of every replicated PG when the removed OSTs are out', () => {
    expect(removed.epoch).toBe(out.epoch + 1);
    for (const pool of REPLICATED) {
      const before = placements(out, pool);
      expect(before.flat()).not.toContain(2);
      const sets = (all: number[][]) => all.map((osts) => [...osts].sort((a, b) => a - b));
      expect(sets(placements(removed, pool)), pool.name).toEqual(sets(before));
    }
  });

  it('moves ec chunks of a minority of PGs only (a second move, as Ceph after out)', () => {
    const before = placements(out, EC);
    const after = placements(removed, EC);
    const moved = before.filter((osts, pg) => osts.some((id, i) => after[pg]![i] !== id)).length;
    // 35 of 256 when written; every chunk stays on an OST that is in.
    expect(moved).toBeLessThan(PG_COUNT / 4);
    expect(after.flat().every((id) => id !== 2 && id !== 3)).toBe(true);
  });

  it('drops the buckets it leaves empty, up to the rack, and the map stays valid', () => {
    const hostOnly = removeOsts(map, [0, 1]);
    expect(hostOnly.buckets.map((b) => b.name)).not.toContain('host0');
    expect(hostOnly.buckets.map((b) => b.name)).toContain('rack0');
    const rackIds = [0, 1, 2, 3, 4, 5];
    const noRack = removeOsts(map, rackIds);
    expect(noRack.buckets.map((b) => b.name)).not.toContain('rack0');
    expect(noRack.osts.map((o) => o.id)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
    expect(() => validateMap(noRack)).not.toThrow();
    expect(noRack.buckets.find((b) => b.name === map.rootName)).toBeDefined();
  });

  it('refuses an id that is not in the map, changing nothing', () => {
    expect(() => removeOsts(map, [99])).toThrow(PlacementError);
    expect(map.osts).toHaveLength(18);
  });
});
