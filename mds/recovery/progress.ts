// Recovery progress: bytes copied over a sliding window (the rate), and the
// PG summary with the recovery states, bytes left and an estimate of the time
// to clean. Pure apart from the rate window's clock, which the caller passes.
import { placePg } from '../../placement/index.js';
import type { ClusterState } from '../cluster/state.js';
import { pgStateWithHolders, RECOVERY_PG_STATES, type RecoveryPgState } from '../pgstate.js';
import { type HoldersTable, pgKey } from './holders.js';

/** The rate is measured over this window. */
export const RATE_WINDOW_MS = 10_000;
/** Completions kept for the rate. */
const RATE_SAMPLES_MAX = 10_000;
/** Non-clean PGs listed by /api/pgs at most. */
export const RECOVERY_NON_CLEAN_LISTED_MAX = 1_000;

export class RateWindow {
  private readonly samples: { atMs: number; bytes: number }[] = [];
  private busySinceMs: number | undefined;

  /** Marks when recovery had work, so the rate of a young recovery is not diluted by the idle window. */
  busy(isBusy: boolean, nowMs: number): void {
    if (!isBusy) this.busySinceMs = undefined;
    else this.busySinceMs ??= nowMs;
  }

  add(bytes: number, nowMs: number): void {
    this.samples.push({ atMs: nowMs, bytes });
    if (this.samples.length > RATE_SAMPLES_MAX) this.samples.shift();
  }

  bytesPerSec(nowMs: number): number {
    while (this.samples.length > 0 && nowMs - this.samples[0]!.atMs > RATE_WINDOW_MS) this.samples.shift();
    const bytes = this.samples.reduce((sum, s) => sum + s.bytes, 0);
    const since = this.busySinceMs ?? nowMs - RATE_WINDOW_MS;
    const spanMs = Math.max(1_000, Math.min(RATE_WINDOW_MS, nowMs - since));
    return (bytes * 1000) / spanMs;
  }
}

export interface RecoveryProgress {
  activePgs: number;
  pendingPgs: number;
  bytesLeft: number;
  /** Targets whose size is not estimated yet (bytesLeft is then a lower bound). */
  unestimatedTargets: number;
  rateBytesPerSec: number;
  /** null when nothing is moving, or nothing moved in the window yet. */
  etaSeconds: number | null;
}

/** `scrubbing`: a clean PG whose copies a deep scrub is comparing now. */
export type SummaryPgState = RecoveryPgState | 'scrubbing';
export const SUMMARY_PG_STATES: readonly SummaryPgState[] = [...RECOVERY_PG_STATES, 'scrubbing'];
/** States in which a PG holds every copy where it is placed (health counts them as clean). */
export const SETTLED_PG_STATES: readonly SummaryPgState[] = ['clean', 'scrubbing'];

export interface RecoveryPgSummary {
  epoch: number;
  total: number;
  byState: Record<SummaryPgState, number>;
  byPool: Record<string, Record<SummaryPgState, number>>;
  nonClean: { pool: string; pg: number; state: SummaryPgState; osts: number[]; holders?: number[] }[];
  recovery: RecoveryProgress;
}

function zero(): Record<SummaryPgState, number> {
  return Object.fromEntries(SUMMARY_PG_STATES.map((s) => [s, 0])) as Record<SummaryPgState, number>;
}

/** Every PG clean or scrubbing. */
export function settled(summary: Pick<RecoveryPgSummary, 'byState' | 'total'>): boolean {
  return summary.byState.clean + summary.byState.scrubbing === summary.total;
}

export function summarizeRecoveryPgs(
  state: ClusterState,
  holders: HoldersTable,
  activePgs: ReadonlySet<string>,
  progress: RecoveryProgress,
  scrubbing: ReadonlySet<string> = new Set(),
  /** PGs with object repairs queued, and with one running (Repairs.pgs). */
  repairs: { queued: ReadonlySet<string>; active: ReadonlySet<string> } = {
    queued: new Set(),
    active: new Set(),
  },
): RecoveryPgSummary {
  const summary: RecoveryPgSummary = {
    epoch: state.map.epoch,
    total: 0,
    byState: zero(),
    byPool: {},
    nonClean: [],
    recovery: progress,
  };
  for (const pool of state.pools) {
    const counts = zero();
    for (let pg = 0; pg < pool.pgCount; pg++) {
      const placement = placePg(state.map, pool, pg);
      const key = pgKey(pool.id, pg);
      const record = holders.get(key);
      const recoveryState = pgStateWithHolders(state.map, pool, placement, record, activePgs.has(key));
      // A copy known to have missed writes (or to be bad) keeps a clean PG from being clean until it
      // is repaired.
      let pgState: SummaryPgState = recoveryState;
      if (recoveryState === 'clean') {
        if (repairs.active.has(key)) pgState = 'recovering';
        else if (repairs.queued.has(key)) pgState = 'degraded';
        else if (scrubbing.has(key)) pgState = 'scrubbing';
      }
      counts[pgState]++;
      summary.byState[pgState]++;
      summary.total++;
      if (!SETTLED_PG_STATES.includes(pgState) && summary.nonClean.length < RECOVERY_NON_CLEAN_LISTED_MAX) {
        summary.nonClean.push({
          pool: pool.name,
          pg,
          state: pgState,
          osts: placement.osts,
          ...(record ? { holders: [...record] } : {}),
        });
      }
    }
    summary.byPool[pool.name] = counts;
  }
  return summary;
}
