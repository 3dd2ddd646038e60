// Inode numbers reserved ahead, per folder and layout, so a writeFile writes its objects first and
// then creates and commits the file in one MDS call (PublishMany), instead of a create before its
// writes and a commit after. Reservations are asked for in rounds that grow while a folder keeps
// taking them (RESERVE_INODES_FIRST doubling up to RESERVE_INODES_MAX), all the callers waiting in
// one turn sharing one ReserveInodes call. An inode is handed out only in the first half of its
// lease, so its file has the second half to be written and published; the ones not used by then
// are left to the MDS, which collects them when the lease ends. A folder the caller may not reserve
// in (its caps) or whose layout keeps bytes on the MDS is not asked again for a while: its files
// take the create path.
import { StripeError } from '../common/errors.js';
import type { Attr__Output, Layout } from '../proto/index.js';
import type { Reserved } from './mds-client.js';

/** Inodes the first reservation in a folder asks for, and the most one asks for (doubling between). */
export const RESERVE_INODES_FIRST = 4;
export const RESERVE_INODES_MAX = 64;
/** Folders (with layouts) whose reservations are kept at most; past it the oldest is dropped. */
export const RESERVE_FOLDERS_MAX = 1_024;
/** How long a folder that gives no reservations is not asked again. */
export const RESERVE_REFUSED_MS = 60_000;

interface Pool {
  attrs: Attr__Output[];
  /** Local time after which the attrs left are not handed out (half their lease). */
  usableUntilMs: number;
  /** The next round's size. */
  nextCount: number;
  /** Callers waiting for the round in flight (they decide its size when it starts in the same turn). */
  waiting: number;
  round: Promise<void> | undefined;
}

export class Reservations {
  private readonly pools = new Map<string, Pool>();
  private readonly refusedUntil = new Map<string, number>();
  /** ReserveInodes calls made and inodes handed out (stats, tests). */
  calls = 0;
  taken = 0;

  constructor(
    private readonly reserve: (path: string, count: number, layout?: Layout) => Promise<Reserved>,
    /** Told the bytes a folder's layout keeps on the MDS when a reservation finds it has some. */
    private readonly onDom: (folder: string, domBytes: number) => void,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** A reserved inode's attributes for a file in `folder` (with `layout`, else the folder's), or undefined: create it instead. */
  async take(folder: string, layout?: Layout): Promise<Attr__Output | undefined> {
    const key = layout ? `${folder}\0${JSON.stringify(layout)}` : folder;
    if ((this.refusedUntil.get(key) ?? 0) > this.nowMs()) return undefined;
    // Two rounds at most: one in flight may have been used up by the callers ahead.
    for (let attempt = 0; attempt < 2; attempt++) {
      const pool = this.poolOf(key);
      if (pool.usableUntilMs <= this.nowMs()) pool.attrs = [];
      const attr = pool.attrs.pop();
      if (attr) {
        this.taken++;
        return attr;
      }
      pool.waiting++;
      pool.round ??= this.startRound(key, folder, pool, layout);
      try {
        await pool.round;
      } catch {
        return undefined; // the create path says what is wrong, with the file's own path
      } finally {
        pool.waiting--;
      }
      if ((this.refusedUntil.get(key) ?? 0) > this.nowMs()) return undefined;
    }
    return undefined;
  }

  private poolOf(key: string): Pool {
    let pool = this.pools.get(key);
    if (pool) return pool;
    if (this.pools.size >= RESERVE_FOLDERS_MAX) {
      const oldest = this.pools.keys().next().value;
      if (oldest !== undefined) this.pools.delete(oldest);
    }
    pool = { attrs: [], usableUntilMs: 0, nextCount: RESERVE_INODES_FIRST, waiting: 0, round: undefined };
    this.pools.set(key, pool);
    return pool;
  }

  /** One ReserveInodes call, sent once this turn's callers are counted. */
  private async startRound(
    key: string,
    folder: string,
    pool: Pool,
    layout: Layout | undefined,
  ): Promise<void> {
    try {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const count = Math.min(RESERVE_INODES_MAX, Math.max(pool.nextCount, pool.waiting));
      pool.nextCount = Math.min(RESERVE_INODES_MAX, count * 2);
      const askedMs = this.nowMs();
      this.calls++;
      let reserved: Reserved;
      try {
        reserved = await this.reserve(folder, count, layout);
      } catch (err) {
        if (err instanceof StripeError && err.code.startsWith('AUTH_'))
          this.refusedUntil.set(key, this.nowMs() + RESERVE_REFUSED_MS);
        throw err;
      }
      if (reserved.attrs.length === 0) {
        this.refusedUntil.set(key, this.nowMs() + RESERVE_REFUSED_MS);
        if (reserved.domBytes > 0) this.onDom(folder, reserved.domBytes);
        return;
      }
      // Handed out in number order (popped from the end).
      pool.attrs = [...reserved.attrs].reverse();
      pool.usableUntilMs = askedMs + reserved.leaseMs / 2;
    } finally {
      pool.round = undefined;
    }
  }
}
