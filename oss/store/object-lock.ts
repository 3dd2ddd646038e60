// Per-object reader/writer lock: a write rewrites data and then its block
// crcs, so a read running between the two would see a false checksum error.
// Writers to one object run one at a time; readers share.

interface LockState {
  readers: number;
  writer: boolean;
  queue: { exclusive: boolean; grant: () => void }[];
}

export class ObjectLocks {
  private readonly states = new Map<string, LockState>();

  async acquire(objectId: string, exclusive: boolean): Promise<() => void> {
    let state = this.states.get(objectId);
    if (!state) {
      state = { readers: 0, writer: false, queue: [] };
      this.states.set(objectId, state);
    }
    const s = state;
    const free = exclusive ? !s.writer && s.readers === 0 : !s.writer && s.queue.length === 0;
    if (free) this.take(s, exclusive);
    else await new Promise<void>((grant) => s.queue.push({ exclusive, grant }));
    let released = false;
    return () => {
      if (released) throw new Error('lock released twice');
      released = true;
      if (exclusive) s.writer = false;
      else s.readers--;
      this.pump(objectId, s);
    };
  }

  private take(s: LockState, exclusive: boolean): void {
    if (exclusive) s.writer = true;
    else s.readers++;
  }

  private pump(objectId: string, s: LockState): void {
    while (s.queue.length > 0) {
      const next = s.queue[0]!;
      const ok = next.exclusive ? !s.writer && s.readers === 0 : !s.writer;
      if (!ok) break;
      s.queue.shift();
      this.take(s, next.exclusive);
      next.grant();
      if (next.exclusive) break;
    }
    if (!s.writer && s.readers === 0 && s.queue.length === 0) this.states.delete(objectId);
  }

  /** Objects with a holder or a waiter (for tests and shutdown). */
  get busyCount(): number {
    return this.states.size;
  }
}
