// Which published checkpoints a retention policy removes: a pure function of
// the steps there are. The newest keepLast stay, and with keepEvery every
// step that is a multiple of it (Orbax's and Lightning's "keep N, and every
// Kth for good"); without keepLast nothing is removed.
import { StripeError } from '../common/errors.js';

export interface Retention {
  /** Keep the newest N checkpoints (N >= 1); older ones go after each save and at gc. */
  keepLast?: number;
  /** Also keep every step that is a multiple of K, however old. */
  keepEvery?: number;
}

export function checkRetention(retention: Retention): Retention {
  const { keepLast, keepEvery } = retention;
  if (keepLast !== undefined && (!Number.isSafeInteger(keepLast) || keepLast < 1))
    throw new StripeError('REQ_INVALID', `keepLast must be a whole number >= 1, got ${keepLast}`);
  if (keepEvery !== undefined && (!Number.isSafeInteger(keepEvery) || keepEvery < 1))
    throw new StripeError('REQ_INVALID', `keepEvery must be a whole number >= 1, got ${keepEvery}`);
  if (keepEvery !== undefined && keepLast === undefined)
    throw new StripeError('REQ_INVALID', 'keepEvery needs keepLast (without keepLast nothing is removed)');
  return retention;
}

/** The steps to remove, oldest first. */
export function stepsToRemove(steps: readonly number[], retention: Retention): number[] {
  const { keepLast, keepEvery } = retention;
  if (keepLast === undefined) return [];
  const sorted = [...new Set(steps)].sort((a, b) => a - b);
  const keep = new Set(sorted.slice(Math.max(0, sorted.length - keepLast)));
  return sorted.filter((step) => !keep.has(step) && !(keepEvery !== undefined && step % keepEvery === 0));
}
