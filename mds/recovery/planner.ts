// The recovery planner: a pure function of (cluster state, holders, what is
// running, settings, now) -> the tasks to start. One PG is one unit of
// concurrency (Ceph's osd_max_backfills, here cluster-wide); all of a PG's
// missing copies start together. PGs with the fewest spare up holders go
// first, so a PG one failure away from unfound recovers before a backfill.
import { HOLE, placePg } from '../../placement/index.js';
import type { ClusterState, PoolRecord } from '../cluster/state.js';
import {
  type FillSource,
  type HoldersTable,
  type PgTarget,
  parsePgKey,
  pgKey,
  sourcesNeeded,
  targetsOf,
  upHolders,
} from './holders.js';

export type RecoverMode = 'absent' | 'absent-or-size' | 'all';

export interface TaskSource {
  ostId: number;
  position: number;
  inPlacement: boolean;
}

export interface RecoveryTask {
  poolId: number;
  pg: number;
  target: PgTarget;
  sources: TaskSource[];
  mode: RecoverMode;
  /** A holder is down or out: rebuilding redundancy (recovery), not moving data (backfill). */
  lost: boolean;
  /** Repairs name their objects; recovery copies the whole PG. */
  objectIds: string[];
}

export function taskKey(task: { poolId: number; pg: number; target: PgTarget }): string {
  return `${task.poolId}/${task.pg}/${task.target.ostId}/${task.target.position}`;
}

export interface PlanInput {
  state: ClusterState;
  holders: HoldersTable;
  /** PGs with a task running. */
  activePgs: ReadonlySet<string>;
  maxActivePgs: number;
  paused: boolean;
  /** Task keys that failed recently, with the time before which they are not retried. */
  notBeforeMs: ReadonlyMap<string, number>;
  nowMs: number;
  /** Copies of `ostId` in the PG awaiting the repair of a missed write (sources without come first). */
  missedWrites?: (ostId: number, poolId: number, pg: number) => number;
  /** ec members that are a source of one fill only (holders.ts, ecReturning). */
  fillSources?: (poolId: number, pg: number) => readonly FillSource[] | undefined;
}

export function staleKey(ostId: number, poolId: number, pg: number): string {
  return `${ostId}/${poolId}/${pg}`;
}

/**
 * Sources for one target: up holders other than the target, those in the placement first, and
 * among equals those with no copy awaiting a missed write's repair in the PG: the target lists the
 * PG's objects on its first source, and a copy that missed an object's creation lacks it.
 */
export function sourcesFor(
  state: ClusterState,
  pool: PoolRecord,
  pg: number,
  holders: readonly number[],
  placement: readonly number[],
  target: PgTarget,
  missedWrites: (ostId: number, poolId: number, pg: number) => number = () => 0,
): TaskSource[] {
  const members = new Set(placement.filter((id) => id !== HOLE));
  const sources = upHolders(state.map, holders)
    .filter((h) => h.ostId !== target.ostId)
    .map((h) => ({ ...h, inPlacement: members.has(h.ostId) }));
  // ec: the old holder of the same position can be copied instead of decoded.
  const rank = (s: TaskSource): number =>
    pool.rule.kind === 'erasure' && s.position === target.position ? 0 : s.inPlacement ? 1 : 2;
  const missed = (s: TaskSource): number => (missedWrites(s.ostId, pool.id, pg) > 0 ? 1 : 0);
  return sources.sort((a, b) => rank(a) - rank(b) || missed(a) - missed(b) || a.position - b.position);
}

/**
 * Every object of the PG is copied to a target ('all'): a target receives client writes from the
 * moment the PG is placed on it, so an object it holds may be one such a write created (a hole
 * before the written range) or left from an earlier time it held the PG; neither its presence nor
 * its size says it is whole. Its reads are refused until the copy is done (fillTargets in
 * service.ts), and a copy never lands on a newer write (the target's version guard).
 */
const FILL_MODE: RecoverMode = 'all';

interface Candidate {
  key: string;
  spare: number;
  tasks: RecoveryTask[];
}

function candidateOf(
  input: PlanInput,
  pool: PoolRecord,
  pg: number,
  holders: readonly number[],
): Candidate | null {
  const { state } = input;
  const placement = placePg(state.map, pool, pg).osts;
  const up = new Set(state.map.osts.filter((o) => o.state.up).map((o) => o.id));
  const live = upHolders(state.map, holders);
  // Fewer up holders than a rebuild needs: unfound, except for a returning ec holder whose fill
  // merges the member placed meanwhile into its own chunk (fillOnly), which needs no rebuild.
  const spare = live.length - sourcesNeeded(pool);
  const byId = new Map(state.map.osts.map((o) => [o.id, o]));
  const lost = holders.some((id) => id !== HOLE && !(byId.get(id)?.state.up && byId.get(id)?.state.in));
  const tasks: RecoveryTask[] = [];
  for (const target of targetsOf(pool.rule, holders, placement)) {
    if (!up.has(target.ostId)) continue;
    const task = { poolId: pool.id, pg, target };
    if ((input.notBeforeMs.get(taskKey(task)) ?? 0) > input.nowMs) continue;
    const fills = fillOnly(input, pool.id, pg, target, up);
    if (spare < 0 && fills.length === 0) continue;
    const sources = [
      ...fills,
      ...sourcesFor(state, pool, pg, holders, placement, target, input.missedWrites),
    ];
    const direct = sources.some((s) => s.position === target.position) || pool.rule.kind === 'replicated';
    if (!direct && sources.length < sourcesNeeded(pool)) continue;
    if (sources.length === 0) continue;
    tasks.push({ ...task, sources, mode: FILL_MODE, lost, objectIds: [] });
  }
  return tasks.length > 0 ? { key: pgKey(pool.id, pg), spare, tasks } : null;
}

/**
 * The member placed at an ec position meanwhile, for the fill of the holder it returned to: the
 * first source, so the fill lists and copies its chunks and merges them into the target's own
 * (ecReturning in holders.ts). For that target only: merged into a member without the chunks from
 * before, the blocks it never got would be holes.
 */
function fillOnly(
  input: PlanInput,
  poolId: number,
  pg: number,
  target: PgTarget,
  up: ReadonlySet<number>,
): TaskSource[] {
  return (input.fillSources?.(poolId, pg) ?? []).flatMap((f) =>
    f.position === target.position && f.to === target.ostId && up.has(f.from)
      ? [{ ostId: f.from, position: f.position, inPlacement: false }]
      : [],
  );
}

export function planRecovery(input: PlanInput): RecoveryTask[] {
  if (input.paused) return [];
  let room = input.maxActivePgs - input.activePgs.size;
  if (room <= 0) return [];
  const candidates: Candidate[] = [];
  for (const [key, holders] of input.holders) {
    if (input.activePgs.has(key)) continue;
    const { poolId, pg } = parsePgKey(key);
    const pool = input.state.pools.find((p) => p.id === poolId);
    if (!pool || pg >= pool.pgCount) continue;
    const candidate = candidateOf(input, pool, pg, holders);
    if (candidate) candidates.push(candidate);
  }
  candidates.sort((a, b) => a.spare - b.spare || a.key.localeCompare(b.key, 'en', { numeric: true }));
  const tasks: RecoveryTask[] = [];
  for (const candidate of candidates) {
    if (room-- <= 0) break;
    tasks.push(...candidate.tasks);
  }
  return tasks;
}
