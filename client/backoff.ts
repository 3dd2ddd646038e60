// Capped exponential backoff with seeded "equal jitter": half the capped delay
// is fixed, half random, so retries spread out but never retry at once.
import type { Random } from '../common/random.js';

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
}

/** Delay before retry number `attempt` (0 = the first retry). */
export function backoffMs(attempt: number, policy: BackoffPolicy, random: Random): number {
  if (!Number.isInteger(attempt) || attempt < 0) throw new Error(`bad attempt ${attempt}`);
  const capped = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt, 30));
  const delay = capped / 2 + random.next() * (capped / 2);
  if (delay < 0 || delay > policy.maxMs) throw new Error('backoff out of range');
  return delay;
}

export function sleepMs(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
