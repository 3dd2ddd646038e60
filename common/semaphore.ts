// Bounded concurrency: every fan-out in stripefs goes through a semaphore
// with a named limit instead of an unbounded Promise.all.

export class Semaphore {
  private available: number;
  private readonly waiters: (() => void)[] = [];

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
    const next = this.waiters.shift();
    if (next) next();
    else this.available++;
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
}
