// A byte budget shared by the writes in flight (common/semaphore.ts counts
// requests; a 1 KiB PUT and a 5 GiB one hold very different memory). A
// request waits for its bytes in arrival order; past a bounded queue it is
// refused at once (SlowDown), so memory stays bounded under any load.
import { s3Error } from './errors.js';

export class ByteBudget {
  private available: number;
  private readonly waiters: { bytes: number; resolve: () => void }[] = [];

  constructor(
    readonly limitBytes: number,
    private readonly queuedMax: number,
  ) {
    this.available = limitBytes;
  }

  get inUseBytes(): number {
    return this.limitBytes - this.available;
  }

  async acquire(bytes: number): Promise<number> {
    const granted = Math.min(Math.max(1, bytes), this.limitBytes);
    if (this.waiters.length === 0 && this.available >= granted) {
      this.available -= granted;
      return granted;
    }
    if (this.waiters.length >= this.queuedMax)
      throw s3Error('SlowDown', `${this.waiters.length} uploads are waiting for memory already: retry later`);
    await new Promise<void>((resolve) => this.waiters.push({ bytes: granted, resolve }));
    return granted;
  }

  release(granted: number): void {
    this.available += granted;
    if (this.available > this.limitBytes) throw new Error('byte budget released more than acquired');
    while (this.waiters.length > 0 && this.available >= (this.waiters[0] as { bytes: number }).bytes) {
      const next = this.waiters.shift()!;
      this.available -= next.bytes;
      next.resolve();
    }
  }

  async run<T>(bytes: number, task: () => Promise<T>): Promise<T> {
    const granted = await this.acquire(bytes);
    try {
      return await task();
    } finally {
      this.release(granted);
    }
  }
}
