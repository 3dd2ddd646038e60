// Recycled fixed-size buffers for the bulk data path (OSS staging and read
// spans). Large Buffers are separate allocations outside the V8 heap; taking
// a fresh one per MiB moved showed up as garbage-collector time in CPU
// profiles. A buffer goes back only when nothing can still read or write it
// (its disk write or socket write finished); one that is never given back is
// simply collected, so forgetting `put` costs memory churn, never corruption.
//
// An `aligned` pool hands out buffers whose memory starts on a 4 KiB page, as
// O_DIRECT writes require. Node cannot ask malloc for alignment, but a
// WebAssembly.Memory is backed by whole pages of its own mapping: slabs of
// them are carved into buffers. Aligned buffers are never dropped (a slab is
// only freed when all of its buffers are unreachable), so the pool keeps every
// one it made; if a slab cannot be made, take() falls back to a plain buffer,
// which `isAligned` reports as unaligned.

/** Alignment of an aligned pool's buffers (the page size; O_DIRECT needs at most this). */
export const BUFFER_ALIGN_BYTES = 4096;
const WASM_PAGE_BYTES = 65536;
/** Buffers carved from one slab. */
const SLAB_BUFFERS = 16;

const alignedBuffers = new WeakSet<ArrayBufferLike>();

/** The one WebAssembly API used here (the project's lib settings leave WebAssembly's types out). */
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer };
};

/** True when buf starts on a BUFFER_ALIGN_BYTES boundary of page-aligned memory. */
export function isAligned(buf: Buffer): boolean {
  return alignedBuffers.has(buf.buffer) && buf.byteOffset % BUFFER_ALIGN_BYTES === 0;
}

export class BufferPool {
  private readonly free: Buffer[] = [];
  private readonly aligned: boolean;
  private slabFailed = false;

  constructor(
    readonly bufferBytes: number,
    /** Idle buffers kept at most; more are dropped for the collector (aligned pools keep all). */
    readonly keepMax: number,
    opts: { aligned?: boolean } = {},
  ) {
    if (!Number.isInteger(bufferBytes) || bufferBytes <= 0) throw new Error(`bad buffer size ${bufferBytes}`);
    this.aligned = opts.aligned === true && bufferBytes % WASM_PAGE_BYTES === 0;
  }

  /** A buffer of bufferBytes with unspecified contents. */
  take(): Buffer {
    const ready = this.free.pop();
    if (ready) return ready;
    if (this.aligned && !this.slabFailed) {
      try {
        const memory = new WebAssembly.Memory({
          initial: (this.bufferBytes * SLAB_BUFFERS) / WASM_PAGE_BYTES,
        });
        alignedBuffers.add(memory.buffer);
        const slab = Buffer.from(memory.buffer);
        for (let i = 1; i < SLAB_BUFFERS; i++)
          this.free.push(slab.subarray(i * this.bufferBytes, (i + 1) * this.bufferBytes));
        return slab.subarray(0, this.bufferBytes);
      } catch {
        this.slabFailed = true; // address space for wasm memories exhausted: plain buffers from now on
      }
    }
    return Buffer.allocUnsafeSlow(this.bufferBytes);
  }

  /** Gives a buffer from take() back; nothing may use it afterwards. */
  give(buf: Buffer): void {
    if (buf.length !== this.bufferBytes) return;
    if (alignedBuffers.has(buf.buffer)) {
      if (this.aligned) this.free.push(buf);
    } else if (buf.byteOffset === 0 && this.free.length < this.keepMax) this.free.push(buf);
  }

  get idle(): number {
    return this.free.length;
  }
}
