// Transactions over the group committer. Mutations run one at a time (the
// namespace mutex) but do not wait for the disk while holding it: a finished
// transaction's writes go into an in-memory overlay at once, so the next
// mutation sees them, and leave the overlay when their synced write is done.
// Reads outside mutations (stat, readdir) go to the database only, so they see
// acknowledged state and nothing that could still vanish in a crash.
import { type BatchOp, getRawSync, type MdsDb } from './db.js';

export interface Reader {
  get<T>(key: string): Promise<T | undefined>;
  /** A value put raw (as its bytes; mds/db.ts), or undefined. */
  getRaw(key: string): Promise<Buffer | undefined>;
}

const DELETED = Symbol('deleted');
type Slot = { value: unknown; seq: number };

export class Overlay {
  private readonly slots = new Map<string, Slot>();
  private seq = 0;

  lookup(key: string): { hit: boolean; value: unknown } {
    const slot = this.slots.get(key);
    if (!slot) return { hit: false, value: undefined };
    return { hit: true, value: slot.value === DELETED ? undefined : slot.value };
  }

  apply(ops: BatchOp[]): number {
    const seq = ++this.seq;
    for (const op of ops) this.slots.set(op.key, { value: op.type === 'put' ? op.value : DELETED, seq });
    return seq;
  }

  /** Drops the slots this write set, unless a later write set them again. */
  release(ops: BatchOp[], seq: number): void {
    for (const op of ops) if (this.slots.get(op.key)?.seq === seq) this.slots.delete(op.key);
  }

  /** Keys in [gt, lt) that pending writes put (true) or deleted (false). */
  pendingIn(gt: string, lt: string): Map<string, boolean> {
    const found = new Map<string, boolean>();
    for (const [key, slot] of this.slots) if (key > gt && key < lt) found.set(key, slot.value !== DELETED);
    return found;
  }

  get size(): number {
    return this.slots.size;
  }
}

export class DbReader implements Reader {
  constructor(private readonly db: MdsDb) {}
  async get<T>(key: string): Promise<T | undefined> {
    return (await this.db.get(key)) as T | undefined;
  }
  async getRaw(key: string): Promise<Buffer | undefined> {
    return this.db.get<string, Buffer>(key, { valueEncoding: 'buffer' });
  }
}

/** Iteration bound for emptiness checks: pending deletes plus one live entry. */
const EMPTY_SCAN_EXTRA_MAX = 1;

export class Txn implements Reader {
  readonly ops: BatchOp[] = [];
  private readonly local = new Map<string, unknown>();
  /** Run after the writes entered the overlay (in-memory counters that follow the disk). */
  readonly onApply: (() => void)[] = [];
  /** Run after the writes are on disk (wake background workers). */
  readonly onDurable: (() => void)[] = [];

  constructor(
    private readonly db: MdsDb,
    private readonly overlay: Overlay,
  ) {}

  /** The value as this transaction's pending writes (or earlier ones still syncing) have it. */
  peek(key: string): { hit: boolean; value: unknown } {
    if (this.local.has(key)) {
      const v = this.local.get(key);
      return { hit: true, value: v === DELETED ? undefined : v };
    }
    return this.overlay.lookup(key);
  }

  async get<T>(key: string): Promise<T | undefined> {
    if (this.local.has(key)) {
      const v = this.local.get(key);
      return (v === DELETED ? undefined : v) as T | undefined;
    }
    const pending = this.overlay.lookup(key);
    if (pending.hit) return pending.value as T | undefined;
    // Synchronous: mutations run one at a time, so a hop to the thread pool
    // here would stall every mutation queued behind this one.
    return this.db.getSync(key) as T | undefined;
  }

  /** A raw value (its bytes, not JSON): pending readers see the Buffer, getRaw reads it back. */
  async getRaw(key: string): Promise<Buffer | undefined> {
    const seen = this.peek(key);
    if (seen.hit) return seen.value as Buffer | undefined;
    return getRawSync(this.db, key);
  }

  put(key: string, value: unknown): void {
    this.local.set(key, value);
    this.ops.push({ type: 'put', key, value });
  }

  putRaw(key: string, value: Buffer): void {
    this.local.set(key, value);
    this.ops.push({ type: 'put', key, value, raw: true });
  }

  del(key: string): void {
    this.local.set(key, DELETED);
    this.ops.push({ type: 'del', key });
  }

  /** True when some key in (gt, lt) exists as this transaction would see it. */
  async anyIn(gt: string, lt: string): Promise<boolean> {
    const pending = this.overlay.pendingIn(gt, lt);
    for (const [key, value] of this.local) pending.set(key, value !== DELETED);
    for (const [key, live] of pending) if (live && key > gt && key < lt) return true;
    const deletedCount = [...pending.values()].filter((live) => !live).length;
    const keys = await this.db.keys({ gt, lt, limit: deletedCount + EMPTY_SCAN_EXTRA_MAX }).all();
    return keys.some((key) => pending.get(key) !== false);
  }
}
