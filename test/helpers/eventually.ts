// The one way a test waits: probe a counter or a state until it holds, with a
// deadline and a message that says what was awaited and what was last seen.
// Tests never sleep and then check: on a loaded machine any fixed sleep is
// either too short (a flaky failure) or too long (a slow suite).

export interface EventuallyOptions {
  /** Give up after this long (generous: the deadline only bounds a hang, it is never the verdict). */
  timeoutMs: number;
  /** What is awaited, for the failure message ("every PG clean", "OST 3 down"). */
  what: string;
  /** Pause between probes (default 100 ms). */
  intervalMs?: number;
}

/** Thrown by `eventually` when its deadline passes; carries the last thing the probe said. */
export class NotReachedError extends Error {}

/**
 * Calls `probe` until it returns something other than `undefined` or `false`,
 * and returns that. A probe that throws has not succeeded yet: its error is
 * kept and shown if the deadline passes, so a probe can explain what it saw by
 * throwing (`throw new Error('3 of 12 OSTs up')`). A failed `expect` inside a
 * probe is not "not yet": it fails the wait at once.
 */
export async function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  options: EventuallyOptions,
): Promise<T> {
  const intervalMs = options.intervalMs ?? 100;
  const deadline = performance.now() + options.timeoutMs;
  let last = 'the probe never answered';
  let probes = 0;
  for (;;) {
    probes++;
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = `the probe answered ${String(value)}`;
    } catch (err) {
      if (err instanceof Error && err.name === 'AssertionError') throw err;
      last = err instanceof Error ? err.message : String(err);
    }
    if (performance.now() >= deadline)
      throw new NotReachedError(
        `${options.what}: not reached in ${options.timeoutMs} ms (${probes} probes); last: ${last}`,
      );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
