// Whole PGs of an OST whose copies are stale: the MDS stopped recording their
// missed writes one by one (past mds.missedWritesPerPgMax) and will backfill
// them whole, or they are an old copy. Reads of any object of such a PG are
// refused (OBJ_STALE) so readers take another copy. A mark comes from
// MarkStale or from a registration or heartbeat answer, and goes when an
// answer to a call sent after the mark no longer lists it: the MDS dropped
// its record after the mark was made (an answer to an older call may predate
// the record, so it clears nothing made since). In memory: a restarted OSS
// hears them again in its registration answer before it serves a read.
import { StripeError } from '../common/errors.js';
import type { Clock } from '../common/random.js';

export interface PgRef {
  poolId: number;
  pg: number;
}

/** PGs marked per OST at most (the MDS lists each PG of each OST once). */
export const STALE_PGS_PER_OST_MAX = 65_536;

export class StalePgs {
  /** ost -> `${pool}/${pg}` -> when it was marked (monotonic ms). */
  private readonly marks = new Map<number, Map<string, number>>();

  constructor(private readonly clock: Clock) {}

  mark(ostId: number, pgs: readonly PgRef[]): void {
    if (pgs.length === 0) return;
    const now = this.clock.monotonicMs();
    const marks = this.marks.get(ostId) ?? new Map<string, number>();
    this.marks.set(ostId, marks);
    for (const { poolId, pg } of pgs)
      if (marks.size < STALE_PGS_PER_OST_MAX) marks.set(`${poolId}/${pg}`, now);
  }

  /**
   * The MDS's full list for `ostIds`, answering a call sent at `sentAtMs` (monotonic): marks it
   * lists are made or kept; marks made before the call that it no longer lists are cleared.
   */
  replace(
    ostIds: readonly number[],
    listed: readonly { ostId: number; pgs: readonly PgRef[] }[],
    sentAtMs: number,
  ): void {
    for (const ostId of ostIds) {
      const keep = new Set(
        (listed.find((l) => l.ostId === ostId)?.pgs ?? []).map((p) => `${p.poolId}/${p.pg}`),
      );
      const marks = this.marks.get(ostId);
      if (marks) for (const [key, at] of marks) if (!keep.has(key) && at < sentAtMs) marks.delete(key);
    }
    for (const { ostId, pgs } of listed) this.mark(ostId, pgs);
  }

  count(ostId: number): number {
    return this.marks.get(ostId)?.size ?? 0;
  }

  /** Throws OBJ_STALE when the object's PG is marked on this OST. */
  check(ostId: number, ostName: string, ref: { objectId: string; poolId: number; pg: number }): void {
    if (!this.marks.get(ostId)?.has(`${ref.poolId}/${ref.pg}`)) return;
    throw new StripeError(
      'OBJ_STALE',
      `PG ${ref.poolId}/${ref.pg} on ${ostName} missed writes and awaits a full backfill: read another copy`,
      { objectId: ref.objectId, ost: ostName, poolId: ref.poolId, pg: ref.pg },
    );
  }
}
