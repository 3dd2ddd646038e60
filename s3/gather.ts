// The buffers a large request body is gathered into before it is lent to the
// client library (FileHandle.writeLent): one copy out of the HTTP parser's
// pieces, then every OSS copy is sent from that buffer and the digest thread
// (s3/digest-thread.ts) reads it in place. They are SharedArrayBuffers, so
// that thread can read them; pooled by size, since fresh ones cost page faults
// and each dropped one counts towards the collector's next full collection.
// A buffer returns to the pool only once every reader is done with it; one
// never given back (a failed write) is simply collected.
import type { Layout } from '../client/index.js';
import { S3_LIMITS } from './limits.js';
import { slotAlignmentBytes } from './store/uploads.js';

export class SharedBuffers {
  private readonly idle = new Map<number, Buffer[]>();
  private idleBytes = 0;

  constructor(
    /** Idle bytes kept at most, all sizes together. */
    readonly idleBytesMax: number,
  ) {}

  /** A buffer of exactly `bytes` bytes of shared memory, contents unspecified. */
  take(bytes: number): Buffer {
    const kept = this.idle.get(bytes)?.pop();
    if (kept) {
      this.idleBytes -= bytes;
      return kept;
    }
    return Buffer.from(new SharedArrayBuffer(bytes));
  }

  /** Gives back a buffer from take() once nothing reads or writes it any more. */
  give(buf: Buffer): void {
    const bytes = buf.length;
    if (buf.byteOffset !== 0 || buf.buffer.byteLength !== bytes) return;
    if (this.idleBytes + bytes > this.idleBytesMax) return;
    const list = this.idle.get(bytes) ?? [];
    list.push(buf);
    this.idle.set(bytes, list);
    this.idleBytes += bytes;
  }

  get idleBytesNow(): number {
    return this.idleBytes;
  }
}

/** The gateway's gather buffers (every identity's uploads share them). */
export const gatherBuffers = new SharedBuffers(S3_LIMITS.gatherIdleBytesMax);

/**
 * How many bytes of a body of `declared` bytes to gather before lending them: all of it when it
 * fits in gatherBytesMax (an 8 MiB part goes out as one write, as the library's write-behind would
 * send it), else the most whole alignment units (stripe units; ec: whole stripes) that fit, so
 * every write but the last covers whole units and the library sends no piece of a unit alone.
 */
export function gatherBytesFor(declared: number | undefined, layout: Layout | undefined): number {
  const most = S3_LIMITS.gatherBytesMax;
  if (declared !== undefined && declared <= most) return Math.max(1, declared);
  const alignment = slotAlignmentBytes(layout);
  if (!Number.isFinite(alignment) || alignment > most) return most;
  return Math.floor(most / alignment) * alignment;
}
