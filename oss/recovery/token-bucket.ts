// A byte-rate limiter: take(n) returns when n more bytes fit the rate since
// the first take, counting the n bytes themselves (no free burst), so a task
// of B bytes lasts at least B / rate and the measured rate never exceeds the
// setting, even for tasks of a single slice.
export class TokenBucket {
  private freeAtMs = 0;

  /** bytesPerSec 0 means unlimited. */
  constructor(private readonly bytesPerSec: number) {}

  async take(bytes: number): Promise<void> {
    if (this.bytesPerSec <= 0 || bytes <= 0) return;
    const now = performance.now();
    const start = Math.max(now, this.freeAtMs);
    this.freeAtMs = start + (bytes * 1000) / this.bytesPerSec;
    const waitMs = this.freeAtMs - now;
    if (waitMs >= 1) await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}
