// Recycled fixed-size buffers for the bulk data path (OSS staging and read
// spans). Large Buffers are separate allocations outside the V8 heap; taking
// a fresh one per MiB moved showed up as garbage-collector time in CPU
// profiles. A buffer goes back only when nothing can still read or write it
// (its disk write or socket write finished); one that is never given back is
// simply collected, so forgetting `put` costs memory churn, never corruption.

export class BufferPool {
  private readonly free: Buffer[] = [];

  constructor(
    readonly bufferBytes: number,
    /** Idle buffers kept at most; more are dropped for the collector. */
    readonly keepMax: number,
  ) {
    if (!Number.isInteger(bufferBytes) || bufferBytes <= 0) throw new Error(`bad buffer size ${bufferBytes}`);
  }

  /** A buffer of bufferBytes with unspecified contents. */
  take(): Buffer {
    return this.free.pop() ?? Buffer.allocUnsafeSlow(this.bufferBytes);
  }

  /** Gives a buffer from take() back; nothing may use it afterwards. */
  give(buf: Buffer): void {
    if (buf.length === this.bufferBytes && buf.byteOffset === 0 && this.free.length < this.keepMax)
      this.free.push(buf);
  }

  get idle(): number {
    return this.free.length;
  }
}
