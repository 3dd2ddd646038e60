// A byte-rate limiter: take(n) returns when n more bytes fit the rate since
// the bucket was made, counting the n bytes themselves, so a task of B bytes
// lasts at least (B - credit) / rate.
//
// By default time the bucket was not waited on is lost (no free burst): the
// measured rate never exceeds the setting, even for tasks of a single slice.
// Recovery passes a lag allowance: time spent on other things (listing the
// PG, a slow slice) is made up afterwards, up to that much, and a credit: bytes
// the cluster-wide pace owes this task for the gap before it started
// (mds/recovery/pacer.ts). Both are bounded, so a stall never turns into a
// burst of more than lagMsMax worth of bytes.
export interface TokenBucketOptions {
  /** Bytes that may go at once when the bucket is made (only up to lagMsMax worth counts). */
  creditBytes?: number;
  /** How far the bucket's clock may fall behind now and still be caught up. */
  lagMsMax?: number;
  /** The time and the wait (a test's clock moves only when the bucket waits). */
  clock?: WaitClock;
}

export interface WaitClock {
  monotonicMs(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: WaitClock = {
  monotonicMs: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

export class TokenBucket {
  private freeAtMs: number;
  private readonly lagMsMax: number;
  private readonly clock: WaitClock;

  /** bytesPerSec 0 means unlimited. */
  constructor(
    private readonly bytesPerSec: number,
    opts: TokenBucketOptions = {},
  ) {
    this.lagMsMax = Math.max(0, opts.lagMsMax ?? 0);
    this.clock = opts.clock ?? realClock;
    const creditMs = bytesPerSec > 0 ? ((opts.creditBytes ?? 0) * 1000) / bytesPerSec : 0;
    this.freeAtMs = this.clock.monotonicMs() - creditMs;
  }

  async take(bytes: number): Promise<void> {
    if (this.bytesPerSec <= 0 || bytes <= 0) return;
    const now = this.clock.monotonicMs();
    const start = Math.max(now - this.lagMsMax, this.freeAtMs);
    this.freeAtMs = start + (bytes * 1000) / this.bytesPerSec;
    const waitMs = this.freeAtMs - now;
    if (waitMs >= 1) await this.clock.sleep(waitMs);
  }
}
