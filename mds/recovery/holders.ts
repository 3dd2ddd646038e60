// Holders: per (pool, PG), the OSTs known to hold a complete copy (replicated:
// a set) or chunk position (ec: positional, -1 for a position nobody holds).
// Only PGs whose holders differ from their current placement have a record;
// a PG without one is held where it is placed. Everything here is pure.
import { type ClusterMap, HOLE, placePg, type RuleSpec } from '../../placement/index.js';
import type { ClusterState, PoolRecord } from '../cluster/state.js';

export type HoldersTable = ReadonlyMap<string, readonly number[]>;

export function pgKey(poolId: number, pg: number): string {
  return `${poolId}/${pg}`;
}

export function parsePgKey(key: string): { poolId: number; pg: number } {
  const [pool, pg] = key.split('/');
  return { poolId: Number(pool), pg: Number(pg) };
}

/** Replicated: the same set of OSTs; ec: the same OST at every position. */
export function sameMembers(rule: RuleSpec, a: readonly number[], b: readonly number[]): boolean {
  if (rule.kind === 'erasure') return a.length === b.length && a.every((id, i) => id === b[i]);
  const setA = new Set(a.filter((id) => id !== HOLE));
  const setB = new Set(b.filter((id) => id !== HOLE));
  return setA.size === setB.size && [...setA].every((id) => setB.has(id));
}

/** What the placement has that the holders do not: the copies to make. */
export interface PgTarget {
  ostId: number;
  /** ec: chunk position; replicated: the rank in the placement. */
  position: number;
}

export function targetsOf(
  rule: RuleSpec,
  holders: readonly number[],
  placement: readonly number[],
): PgTarget[] {
  if (rule.kind === 'erasure') {
    return placement.flatMap((ostId, position) =>
      ostId !== HOLE && holders[position] !== ostId ? [{ ostId, position }] : [],
    );
  }
  return placement.flatMap((ostId, position) =>
    ostId !== HOLE && !holders.includes(ostId) ? [{ ostId, position }] : [],
  );
}

export interface HolderChanges {
  set: [string, number[]][];
  del: string[];
}

/**
 * The holder records a map change needs: a PG that moves and had no record
 * keeps its old placement as holders; a PG that moved back to its holders
 * loses its record, unless a holder coming back missed writes meanwhile
 * (returningHolders). New pools start with holders = placement.
 */
export function holderChanges(prev: ClusterState, next: ClusterState, holders: HoldersTable): HolderChanges {
  const changes: HolderChanges = { set: [], del: [] };
  for (const pool of next.pools) {
    const before = prev.pools.find((p) => p.id === pool.id);
    if (!before) continue;
    for (let pg = 0; pg < pool.pgCount; pg++) {
      const key = pgKey(pool.id, pg);
      const now = placePg(next.map, pool, pg).osts;
      const was = placePg(prev.map, before, pg).osts;
      const record = holders.get(key);
      if (record) {
        const kept = withoutReturning(pool, record, was, now);
        if (sameMembers(pool.rule, kept, now)) changes.del.push(key);
        else if (kept !== record) changes.set.push([key, [...kept]]);
        continue;
      }
      if (!sameMembers(pool.rule, was, now)) changes.set.push([key, [...was]]);
    }
  }
  return changes;
}

/**
 * A PG's holders without those placed again by this map change after they were not (out, then in
 * before the PG's fill was done): the writes made meanwhile went to the members placed instead, not
 * to them, so they are filled again like any new member (ec: their positions become holes, rebuilt
 * from the others). Unchanged (the same array) when none comes back, or when too few holders placed
 * before and after would be left to fill from (replicated: none; ec: fewer than k).
 */
function withoutReturning(
  pool: PoolRecord,
  record: readonly number[],
  was: readonly number[],
  now: readonly number[],
): readonly number[] {
  const returning = (id: number, position: number): boolean =>
    id !== HOLE &&
    (pool.rule.kind === 'erasure'
      ? now[position] === id && was[position] !== id
      : now.includes(id) && !was.includes(id));
  if (!record.some(returning)) return record;
  const kept =
    pool.rule.kind === 'erasure'
      ? record.map((id, position) => (returning(id, position) ? HOLE : id))
      : record.filter((id, position) => !returning(id, position));
  // Holders placed before and after took every write: enough of them must be left to fill from.
  const throughout = kept.filter(
    (id, position) =>
      id !== HOLE &&
      (pool.rule.kind === 'erasure'
        ? was[position] === id && now[position] === id
        : was.includes(id) && now.includes(id)),
  );
  return throughout.length >= sourcesNeeded(pool) ? kept : record;
}

export interface DoneResult {
  /** The new holders, or null when they now equal the placement (record removed). */
  holders: number[] | null;
  /** Former holders no longer in the placement whose copies can go (only when complete). */
  stale: number[];
}

/** Records that `target` now holds its copy (or chunk position). */
export function applyDone(
  rule: RuleSpec,
  holders: readonly number[],
  placement: readonly number[],
  target: PgTarget,
): DoneResult {
  let next: number[];
  if (rule.kind === 'erasure') {
    next = [...holders];
    while (next.length < placement.length) next.push(HOLE);
    next[target.position] = target.ostId;
  } else {
    next = holders.includes(target.ostId) ? [...holders] : [...holders, target.ostId];
  }
  if (targetsOf(rule, next, placement).length > 0) return { holders: next, stale: [] };
  const members = new Set(placement.filter((id) => id !== HOLE));
  const stale = [...new Set(holders.filter((id) => id !== HOLE && !members.has(id)))];
  return { holders: null, stale };
}

/** Holders that can serve data now: up OSTs (ec: with their positions). */
export function upHolders(
  map: ClusterMap,
  holders: readonly number[],
): { ostId: number; position: number }[] {
  const up = new Set(map.osts.filter((o) => o.state.up).map((o) => o.id));
  return holders.flatMap((ostId, position) => (ostId !== HOLE && up.has(ostId) ? [{ ostId, position }] : []));
}

/** Copies that must be up to rebuild anything: one for replicated, k for ec. */
export function sourcesNeeded(pool: PoolRecord): number {
  return pool.rule.kind === 'erasure' ? pool.rule.k : 1;
}
