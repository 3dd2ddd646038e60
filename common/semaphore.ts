// Bounded concurrency: every fan-out in stripefs goes through a semaphore
// with a named limit instead of an unbounded Promise.all.

/** Waiters let go of from the queue's front before it is compacted (a shift per release was O(n)). */
const COMPACT_AFTER_WAITERS = 1024;

export class Semaphore {
  private available: number;
  /** Waiters in arrival order, from `head` on (the ones before it were let go). */
  private waiters: ((() => void) | undefined)[] = [];
  private head = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`semaphore limit must be >= 1, got ${limit}`);
    this.available = limit;
  }

  async acquire(): Promise<void> {
    if (this.available > 0) {
      this.available--;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.head < this.waiters.length ? this.waiters[this.head] : undefined;
    if (next) {
      this.waiters[this.head++] = undefined;
      // Array.shift moved every waiter behind: with 20,000 queued it was a quarter of a client's CPU.
      if (this.head === this.waiters.length) {
        this.waiters = [];
        this.head = 0;
      } else if (this.head >= COMPACT_AFTER_WAITERS && this.head * 2 >= this.waiters.length) {
        this.waiters = this.waiters.slice(this.head);
        this.head = 0;
      }
      next();
      return;
    }
    this.available++;
    if (this.available > this.limit) throw new Error('semaphore released more than acquired');
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  get inUse(): number {
    return this.limit - this.available;
  }

  /** Callers waiting for a slot. */
  get waiting(): number {
    return this.waiters.length - this.head;
  }
}
