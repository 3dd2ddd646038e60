// Per-PG state from the current map, a pure function so the recovery work
// can extend it (backfilling, recovering) without touching the HTTP layer.
//   clean       complete placement, every member up and in
//   degraded    complete placement, some member down
//   undersized  placement short of the rule's width, but at least min_size (ec: k) members
//   incomplete  fewer members than that: writes (and for ec, reads) cannot proceed
import { type ClusterMap, type Placement, placePg } from '../placement/index.js';
import type { ClusterState, PoolRecord } from './cluster/state.js';

export type PgState = 'clean' | 'degraded' | 'undersized' | 'incomplete';
export const PG_STATES: readonly PgState[] = ['clean', 'degraded', 'undersized', 'incomplete'];
/** Non-clean PGs listed by /api/pgs at most. */
export const NON_CLEAN_LISTED_MAX = 1_000;

export function pgStateOf(map: ClusterMap, pool: PoolRecord, placement: Placement): PgState {
  const width = pool.rule.kind === 'replicated' ? pool.rule.size : pool.rule.k + pool.rule.m;
  const needed = pool.rule.kind === 'replicated' ? pool.minSize : pool.rule.k;
  const members = placement.osts.filter((id) => id >= 0);
  if (members.length < needed) return 'incomplete';
  if (members.length < width || !placement.complete) return 'undersized';
  const byId = new Map(map.osts.map((o) => [o.id, o]));
  if (members.some((id) => !byId.get(id)?.state.up)) return 'degraded';
  return 'clean';
}

export interface PgSummary {
  epoch: number;
  total: number;
  byState: Record<PgState, number>;
  byPool: Record<string, Record<PgState, number>>;
  nonClean: { pool: string; pg: number; state: PgState; osts: number[] }[];
}

function zero(): Record<PgState, number> {
  return { clean: 0, degraded: 0, undersized: 0, incomplete: 0 };
}

export function summarizePgs(state: ClusterState): PgSummary {
  const summary: PgSummary = { epoch: state.map.epoch, total: 0, byState: zero(), byPool: {}, nonClean: [] };
  for (const pool of state.pools) {
    const counts = zero();
    for (let pg = 0; pg < pool.pgCount; pg++) {
      const placement = placePg(state.map, pool, pg);
      const pgState = pgStateOf(state.map, pool, placement);
      counts[pgState]++;
      summary.byState[pgState]++;
      summary.total++;
      if (pgState !== 'clean' && summary.nonClean.length < NON_CLEAN_LISTED_MAX) {
        summary.nonClean.push({ pool: pool.name, pg, state: pgState, osts: placement.osts });
      }
    }
    summary.byPool[pool.name] = counts;
  }
  return summary;
}

// With recovery: a PG whose holders (the OSTs known to hold a complete copy)
// differ from its placement is moving. In order of precedence:
//   unfound      fewer up holders than a rebuild needs (replicated: 1, ec: k)
//   recovering   a copy is being rebuilt and a holder is lost (down or out)
//   backfilling  a copy is being made while the old full set is still up
//   degraded     waiting to rebuild a lost copy
//   remapped     waiting to move, the old full set still up
export type RecoveryPgState = PgState | 'recovering' | 'backfilling' | 'remapped' | 'unfound';
export const RECOVERY_PG_STATES: readonly RecoveryPgState[] = [
  ...PG_STATES,
  'recovering',
  'backfilling',
  'remapped',
  'unfound',
];

export function pgStateWithHolders(
  map: ClusterMap,
  pool: PoolRecord,
  placement: Placement,
  holders: readonly number[] | undefined,
  active: boolean,
): RecoveryPgState {
  if (!holders) return pgStateOf(map, pool, placement);
  const byId = new Map(map.osts.map((o) => [o.id, o]));
  const live = holders.filter((id) => id >= 0 && byId.get(id)?.state.up);
  const needed = pool.rule.kind === 'replicated' ? 1 : pool.rule.k;
  if (live.length < needed) return 'unfound';
  const lost = holders.some((id) => id >= 0 && !(byId.get(id)?.state.up && byId.get(id)?.state.in));
  if (active) return lost ? 'recovering' : 'backfilling';
  return lost ? 'degraded' : 'remapped';
}
