// Deep-scrub scheduling, the pure part: which PGs a scrub task covers, and
// whether a PG can be scrubbed now. Only a settled PG is compared: one without
// a holders record (not moving) whose placement is complete and up; a moving
// or degraded PG is recovery's business and is skipped with its reason.
import { HOLE, placePg } from '../../placement/index.js';
import type { ClusterState, PoolRecord } from '../cluster/state.js';
import { pgStateOf } from '../pgstate.js';
import { type HoldersTable, pgKey } from './holders.js';

export interface ScrubScope {
  poolId: number;
  pg: number;
}

/** Every PG of every pool, or the one PG named. */
export function pgsOfScope(state: ClusterState, scope: ScrubScope | undefined): ScrubScope[] {
  if (scope) return [scope];
  return state.pools.flatMap((pool) =>
    Array.from({ length: pool.pgCount }, (_, pg) => ({ poolId: pool.id, pg })),
  );
}

export interface ScrubMemberPlan {
  ostId: number;
  position: number;
}

export type ScrubPlan =
  | { ok: true; pool: PoolRecord; members: ScrubMemberPlan[] }
  | { ok: false; reason: string };

export function planPgScrub(
  state: ClusterState,
  holders: HoldersTable,
  poolId: number,
  pg: number,
): ScrubPlan {
  const pool = state.pools.find((p) => p.id === poolId);
  if (!pool || pg >= pool.pgCount) return { ok: false, reason: 'no such PG' };
  if (holders.has(pgKey(poolId, pg))) return { ok: false, reason: 'moving (recovery or backfill pending)' };
  const placement = placePg(state.map, pool, pg);
  const pgState = pgStateOf(state.map, pool, placement);
  if (pgState !== 'clean') return { ok: false, reason: pgState };
  const members = placement.osts.flatMap((ostId, position) => (ostId === HOLE ? [] : [{ ostId, position }]));
  return { ok: true, pool, members };
}
