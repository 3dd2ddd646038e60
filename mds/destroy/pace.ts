// How hard the destroy worker may run: pure. The namespace comes first, so
// while mutations are arriving a pass takes few records and passes are spaced
// out (deletes are outgoing RPCs that cost the MDS CPU); once the namespace
// has been quiet for DESTROY_QUIET_MS a pass takes a full budget at once.

/** The namespace counts as busy while its last mutation is younger than this. */
export const DESTROY_QUIET_MS = 200;
/** Records one pass takes at most: while the namespace is quiet, and while it is busy. */
export const DESTROY_RECORDS_PER_PASS_MAX = 256;
export const DESTROY_BUSY_RECORDS_PER_PASS_MAX = 32;
/** While the namespace is busy, a pass starts at most this long after the previous one started. */
export const DESTROY_BUSY_PASS_GAP_MS = 500;

export interface PassPlan {
  /** Wait this long before the pass (0: now). */
  waitMs: number;
  /** Records the pass may take. */
  recordsMax: number;
}

export function planPass(nowMs: number, lastMutationMs: number, lastPassMs: number): PassPlan {
  const busy = nowMs - lastMutationMs < DESTROY_QUIET_MS;
  if (!busy) return { waitMs: 0, recordsMax: DESTROY_RECORDS_PER_PASS_MAX };
  return {
    waitMs: Math.max(0, lastPassMs + DESTROY_BUSY_PASS_GAP_MS - nowMs),
    recordsMax: DESTROY_BUSY_RECORDS_PER_PASS_MAX,
  };
}
