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

/**
 * An ec position placed back on `to` (its holder before) while `from`, placed there meanwhile, was
 * being filled: `from` holds the chunks of the writes made meanwhile, often of part of the PG only,
 * so it is a source of `to`'s fill and nothing else (ecReturning).
 */
export interface FillSource {
  position: number;
  from: number;
  to: number;
}

export interface ReturningPosition extends FillSource {
  poolId: number;
  pg: number;
}

export interface HolderChanges {
  set: [string, number[]][];
  del: string[];
  /** ec positions placed back on a holder they had left, with the member placed meanwhile (ecReturning). */
  returning: ReturningPosition[];
}

/**
 * The holder records a map change needs: a PG that moves and had no record
 * keeps its old placement as holders; a PG that moved back to its holders
 * loses its record, unless a holder coming back missed writes meanwhile
 * (withoutReturning, replicated pools). New pools start with holders = placement.
 */
export function holderChanges(prev: ClusterState, next: ClusterState, holders: HoldersTable): HolderChanges {
  const changes: HolderChanges = { set: [], del: [], returning: [] };
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
        if (pool.rule.kind === 'erasure' && kept !== record)
          for (const { position, from, to } of returningAt(record, was, now))
            changes.returning.push({ poolId: pool.id, pg, position, from, to });
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
 * A PG's holders once members it had left are placed again by this map change (out, then in before
 * the PG's fill was done): the writes made meanwhile went to the members placed instead, not to
 * them. Replicated: the returning holders leave the holder set and are filled again like any new
 * member, from the holders placed before and after (each write acknowledged meanwhile is on one of
 * them that missed none: a skip that would leave none is refused, Repairs.refuseLastCurrent); kept
 * when no holder was placed before and after. ec: see ecReturning. Unchanged (the same array) when
 * none comes back.
 */
function withoutReturning(
  pool: PoolRecord,
  record: readonly number[],
  was: readonly number[],
  now: readonly number[],
): readonly number[] {
  if (pool.rule.kind === 'erasure') return ecReturning(record, was, now);
  const returning = (id: number): boolean => id !== HOLE && now.includes(id) && !was.includes(id);
  if (!record.some(returning)) return record;
  const kept = record.filter((id) => !returning(id));
  // Holders placed before and after took every write: one of them must be left to fill from.
  const throughout = kept.filter((id) => id !== HOLE && was.includes(id) && now.includes(id));
  return throughout.length >= sourcesNeeded(pool) ? kept : record;
}

/**
 * An ec position placed back on its holder after another member was placed there meanwhile: the
 * chunks of the writes made meanwhile are on that member (`from`) alone, the returning holder keeps
 * the chunks from before. Neither is whole, so the position becomes a hole: readers and repairs
 * rebuild it from the other positions (a member whose chunk a reader took as whole served the
 * member's partial, older chunk: chaos --seed 6), and the returning holder is its fill target, so
 * it refuses reads until filled. Its fill takes `from` as a source of that position only
 * (FillSource, recorded beside the holders by the service: holderChanges' `returning`): it lists
 * and copies `from`'s chunks and merges them block by block into the returning holder's
 * (mergePlan keeps the blocks it holds a newer write of), so it ends with the newest of both;
 * groups `from` never got keep the returning holder's chunks. Unchanged (the same array) when no
 * position comes back from another member.
 */
function ecReturning(
  record: readonly number[],
  was: readonly number[],
  now: readonly number[],
): readonly number[] {
  const back = returningAt(record, was, now);
  if (back.length === 0) return record;
  const kept = [...record];
  for (const { position } of back) kept[position] = HOLE;
  return kept;
}

/** The ec positions placed back (`to`) on their holder, each with the member placed there meanwhile (`from`). */
function returningAt(
  record: readonly number[],
  was: readonly number[],
  now: readonly number[],
): { position: number; from: number; to: number }[] {
  return now.flatMap((to, position) => {
    const from = was[position];
    const back = to !== HOLE && record[position] === to && from !== undefined && from !== HOLE && from !== to;
    return back ? [{ position, from, to }] : [];
  });
}

export type FillSourcesTable = ReadonlyMap<string, readonly FillSource[]>;

export interface FillSourceChanges {
  /** PGs whose fill-only sources change: the new list, or null when none is left. */
  changed: [string, FillSource[] | null][];
  /** Members no longer a fill-only source of a PG (their position moved on, or its fill is moot). */
  dropped: { poolId: number; pg: number; from: number }[];
}

/**
 * The fill-only sources (ecReturning) once a map change is applied: those of the positions placed
 * back by it, and the earlier ones whose position is still placed on the returning holder and
 * still a hole in its record (`holdersAfter`: the record after the change, undefined when none).
 */
export function fillSourcesAfter(
  next: ClusterState,
  current: FillSourcesTable,
  returning: readonly ReturningPosition[],
  holdersAfter: (key: string) => readonly number[] | undefined,
): FillSourceChanges {
  const after = new Map<string, FillSource[]>([...current].map(([key, list]) => [key, [...list]]));
  for (const { poolId, pg, position, from, to } of returning) {
    const key = pgKey(poolId, pg);
    after.set(key, [
      ...(after.get(key) ?? []).filter((f) => f.position !== position),
      { position, from, to },
    ]);
  }
  const out: FillSourceChanges = { changed: [], dropped: [] };
  for (const [key, list] of after) {
    const { poolId, pg } = parsePgKey(key);
    const pool = next.pools.find((p) => p.id === poolId);
    const placement = pool && pg < pool.pgCount ? placePg(next.map, pool, pg).osts : [];
    const record = holdersAfter(key);
    const open = (f: FillSource): boolean =>
      placement[f.position] === f.to && record !== undefined && record[f.position] === HOLE;
    const kept = list.filter(open);
    for (const f of list) if (!open(f)) out.dropped.push({ poolId, pg, from: f.from });
    if (JSON.stringify(kept) !== JSON.stringify(current.get(key) ?? []))
      out.changed.push([key, kept.length > 0 ? kept : null]);
  }
  return out;
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

/**
 * Members a map change took a PG from that now hold no part of it: placed before the change, not
 * placed after it, and not among the PG's holders after it (`holdersAfter`: its record once the
 * change is applied, undefined when it has none, and then its holders are its placement). Such a
 * member was being filled (or written to as a member) when its PG moved on, or moved back to its
 * holders before the fill was done: what it was sent is a stale copy to purge, as a former
 * holder's is once a fill completes. Returned as [ostId, poolId, pg].
 */
export function leftMembers(
  prev: ClusterState,
  next: ClusterState,
  holdersAfter: (key: string) => readonly number[] | undefined,
): [number, number, number][] {
  const left: [number, number, number][] = [];
  for (const pool of next.pools) {
    const before = prev.pools.find((p) => p.id === pool.id);
    if (!before) continue;
    for (let pg = 0; pg < pool.pgCount; pg++) {
      const was = placePg(prev.map, before, pg).osts;
      const now = placePg(next.map, pool, pg).osts;
      if (sameMembers(pool.rule, was, now)) continue;
      const holders = holdersAfter(pgKey(pool.id, pg)) ?? now;
      for (const ostId of new Set(was))
        if (ostId !== HOLE && !now.includes(ostId) && !holders.includes(ostId))
          left.push([ostId, pool.id, pg]);
    }
  }
  return left;
}
