// Group commit: a synced LevelDB write costs about as much for one key as for
// thousands, so concurrent operations' batches are merged into one synced
// batch. Each submit() resolves when the write holding its ops is on disk.
// While one write is in flight the next group accumulates; an idle committer
// starts its write at the end of the current event-loop turn (setImmediate),
// so the items of one CreateMany, or calls that arrived together, share the
// first write instead of the first one going alone.
//
// A failed write is fatal: operations after it were decided on state that may
// not exist on disk, so the process must restart from what the disk holds.
import { type BatchOp, levelOps, type MdsDb } from './db.js';

/** Ops in one synced batch at most; a larger backlog is split over several writes. */
export const GROUP_OPS_MAX = 20_000;

interface Waiter {
  ops: BatchOp[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class GroupCommitter {
  private pending: Waiter[] = [];
  private writing = false;
  private failure: unknown = null;
  /** Synced writes done and ops written, for metrics and the bench. */
  writes = 0;
  opsWritten = 0;

  constructor(
    private readonly db: MdsDb,
    private readonly onFatal: (err: unknown) => void,
  ) {}

  submit(ops: BatchOp[]): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (ops.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ ops, resolve, reject });
      if (this.writing) return;
      this.writing = true;
      setImmediate(() => void this.drain());
    });
  }

  /** Resolves once every submitted batch is written. */
  async idle(): Promise<void> {
    while (this.writing || this.pending.length > 0) await new Promise((r) => setTimeout(r, 1));
  }

  private takeGroup(): Waiter[] {
    let count = 0;
    let taken = 0;
    while (
      taken < this.pending.length &&
      (taken === 0 || count + this.pending[taken]!.ops.length <= GROUP_OPS_MAX)
    ) {
      count += this.pending[taken]!.ops.length;
      taken++;
    }
    return this.pending.splice(0, taken);
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0 && !this.failure) {
      const group = this.takeGroup();
      const ops = group.flatMap((w) => w.ops);
      try {
        await this.db.batch(levelOps(ops), { sync: true });
        this.writes++;
        this.opsWritten += ops.length;
        for (const w of group) w.resolve();
      } catch (err) {
        this.failure = err;
        for (const w of [...group, ...this.pending.splice(0)]) w.reject(err);
        this.onFatal(err);
      }
    }
    this.writing = false;
  }
}
