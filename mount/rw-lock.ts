// Many readers or one writer, in arrival order (a waiting writer holds back
// later readers, so writes are not starved by a stream of reads). The kernel
// sends reads of one file in parallel (readahead), and they may share the
// handle; writes, truncates and flushes change its state and go alone.

type Waiter = { shared: boolean; grant: () => void };

export class RwLock {
  private readers = 0;
  private writer = false;
  private readonly queue: Waiter[] = [];

  async shared<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire(true);
    try {
      return await work();
    } finally {
      this.readers--;
      this.pump();
    }
  }

  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire(false);
    try {
      return await work();
    } finally {
      this.writer = false;
      this.pump();
    }
  }

  private acquire(shared: boolean): Promise<void> {
    return new Promise((grant) => {
      this.queue.push({ shared, grant });
      this.pump();
    });
  }

  private pump(): void {
    for (;;) {
      const next = this.queue[0];
      if (!next || this.writer) return;
      if (next.shared) this.readers++;
      else if (this.readers > 0) return;
      else this.writer = true;
      this.queue.shift();
      next.grant();
    }
  }
}
