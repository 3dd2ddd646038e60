// Reused buffers for the blocks reads bring in (the cache's memory). A fresh
// 1 MiB allocation per block read cost the client more than the copy into it:
// every new block's pages are touched for the first time (slow on these VMs),
// and the garbage collector chases the external memory. Blocks the cache
// drops come back here instead.
//
// A dropped block may still be read by code that got it just before (a
// reader's copy scheduled in the same burst of promise callbacks), so it
// waits in a short FIFO quarantine before it is handed out again. Code that
// keeps a block across awaits pins it (an ec rebuild waiting for its other
// inputs): a pinned block the cache drops meanwhile is recycled only when the
// last pin goes. Only buffers this pool made come back; others are left to
// the collector.

const made = new WeakSet<ArrayBufferLike>();

export class BlockPool {
  private readonly free: Buffer[] = [];
  private readonly quarantine: Buffer[] = [];
  /** Pinned blocks by their memory: how many pins, and whether the cache dropped the block meanwhile. */
  private readonly pins = new Map<ArrayBufferLike, { count: number; dropped: Buffer | undefined }>();
  /** Blocks made so far (fresh memory); every other take reused one. */
  allocated = 0;

  constructor(
    readonly blockBytes: number,
    /** Idle blocks kept at most (beyond them, blocks go to the collector). */
    readonly keepMax: number,
    /** Dropped blocks that wait before reuse. */
    readonly quarantineMax = 16,
  ) {
    if (!Number.isInteger(blockBytes) || blockBytes <= 0) throw new Error(`bad block size ${blockBytes}`);
  }

  /**
   * A buffer of exactly `length` bytes, contents unspecified: pooled when it
   * fills at least half a block (smaller ones would pin a whole block's memory
   * while the cache counts only their length).
   */
  take(length: number): Buffer {
    if (length > this.blockBytes || length < this.blockBytes / 2) return Buffer.allocUnsafe(length);
    let whole = this.free.pop();
    if (!whole) {
      whole = Buffer.allocUnsafeSlow(this.blockBytes);
      made.add(whole.buffer);
      this.allocated++;
    }
    return whole.subarray(0, length);
  }

  /** Keeps `block` from being handed out again until unpin, even if the cache drops it meanwhile. */
  pin(block: Buffer): void {
    if (!made.has(block.buffer)) return;
    const pin = this.pins.get(block.buffer);
    if (pin) pin.count++;
    else this.pins.set(block.buffer, { count: 1, dropped: undefined });
  }

  unpin(block: Buffer): void {
    const pin = this.pins.get(block.buffer);
    if (!pin) return;
    if (--pin.count > 0) return;
    this.pins.delete(block.buffer);
    if (pin.dropped) this.recycle(pin.dropped);
  }

  /** A block the cache no longer holds. */
  recycle(block: Buffer): void {
    if (!made.has(block.buffer) || block.byteOffset !== 0) return;
    const pin = this.pins.get(block.buffer);
    if (pin) {
      pin.dropped = block;
      return;
    }
    this.quarantine.push(Buffer.from(block.buffer, 0, this.blockBytes));
    if (this.quarantine.length > this.quarantineMax) {
      const ready = this.quarantine.shift() as Buffer;
      if (this.free.length < this.keepMax) this.free.push(ready);
    }
  }

  get idle(): number {
    return this.free.length;
  }
}
