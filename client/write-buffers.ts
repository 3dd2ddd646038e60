// The buffers writers fill before they send (whole stripe units, ec stripes
// with their parity), shared by every open file of a client. A writer per file
// with a pool of its own made fresh memory for every file: 16 workers writing
// 4 MiB files touched 4 MiB of new pages per file (slow on these VMs, and
// garbage for the collector to chase). A buffer comes back once every copy
// acknowledged it; idle ones are kept up to a byte bound, by size, and the
// least recently given back size goes first when the bound is reached.
import { BufferPool } from '../common/bulk/buffer-pool.js';

export class WriteBuffers {
  /** One pool per buffer size, in the order a size was last given back (Map order). */
  private readonly pools = new Map<number, BufferPool>();
  private idleBytes = 0;
  /** Buffers made so far (fresh memory); every other take reused one. */
  allocated = 0;

  constructor(
    /** Idle bytes kept at most, all sizes together. */
    readonly idleBytesMax: number,
  ) {
    if (!Number.isSafeInteger(idleBytesMax) || idleBytesMax < 0)
      throw new Error(`bad idle bound ${idleBytesMax}`);
  }

  /** A buffer of exactly `bytes` bytes, contents unspecified. */
  take(bytes: number): Buffer {
    const pool = this.pools.get(bytes);
    if (pool && pool.idle > 0) {
      this.idleBytes -= bytes;
      return pool.take();
    }
    this.allocated++;
    return Buffer.allocUnsafeSlow(bytes);
  }

  /** Gives back a buffer from take(); nothing may read or write it afterwards. */
  give(buf: Buffer): void {
    const bytes = buf.length;
    if (buf.byteOffset !== 0 || buf.buffer.byteLength !== bytes || bytes > this.idleBytesMax) return;
    while (this.idleBytes + bytes > this.idleBytesMax) {
      const dropped = this.dropOldest();
      if (!dropped) return;
    }
    let pool = this.pools.get(bytes);
    if (pool) this.pools.delete(bytes);
    else pool = new BufferPool(bytes, Number.MAX_SAFE_INTEGER);
    this.pools.set(bytes, pool);
    pool.give(buf);
    this.idleBytes += bytes;
  }

  /** Lets one idle buffer of the least recently used size go to the collector; false when none is idle. */
  private dropOldest(): boolean {
    for (const [bytes, pool] of this.pools) {
      if (pool.idle === 0) {
        this.pools.delete(bytes);
        continue;
      }
      pool.take();
      this.idleBytes -= bytes;
      return true;
    }
    return false;
  }

  get idleBytesNow(): number {
    return this.idleBytes;
  }
}
