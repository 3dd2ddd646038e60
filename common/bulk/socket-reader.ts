// Pull-style reads over a socket with backpressure: the socket is paused
// while more than highWaterBytes are buffered and nobody is reading, so a
// fast sender can never make the receiver hold more than that.
//
// Bytes arrive either as 'data' events (fresh buffers, kept as they are) or,
// with `external: true`, through push() from a socket's `onread` callback,
// whose buffer is reused for the next read: bytes that cannot be consumed at
// once are then copied. readSegments() consumes a segmented body
// synchronously as it arrives, straight into the caller's buffer (no
// per-read buffer, no promise per segment).
//
// With `onread.buffer` as a function (Node asks it before every socket read),
// nextBuffer() goes one step further: while a segmented body is being
// received, the kernel writes a segment's payload straight into its
// destination and a segment header into the sink's header buffer, so no user
// space copy happens at all; only bytes read before the receiving call began
// pass through the spare buffer.
import type { Socket } from 'node:net';
import { StripeError } from '../errors.js';
import { SEGMENT_ABORT, SEGMENT_BYTES_MAX, SEGMENT_HEADER_BYTES } from './frame.js';

/** A segmented body being received into `out` (see readSegments). */
interface SegmentSink {
  out: Buffer;
  at: number;
  header: Buffer;
  headerFill: number;
  segmentLeft: number;
  segmentStart: number;
  segmentCrc: number;
  verify: (start: number, length: number, crc: number) => void;
  aborted: boolean;
  error: unknown;
  /**
   * Run mode (readSegmentRun): stop before a segment that does not fit in
   * what is left of `out` (its header is kept as `pending`) and when the body
   * has no bytes left; otherwise such a segment is an error.
   */
  run: boolean;
  bodyLeft: number;
  pending: { length: number; crc: number } | undefined;
}

/** What readSegmentRun consumed. */
export interface SegmentRun {
  /** Bytes of `out` filled with whole segments. */
  filled: number;
  aborted: boolean;
  /** The next segment's header, read but not consumed: it did not fit in `out`. */
  pending: { length: number; crc: number } | undefined;
}

export class SocketReader {
  private readonly chunks: Buffer[] = [];
  private bufferedBytes = 0;
  private waiter: (() => void) | undefined;
  private ended: StripeError | undefined;
  private sink: SegmentSink | undefined;
  /** Bytes arrive through push() from a reused buffer: read only while someone waits (see push). */
  private readonly external: boolean;
  /** Where nextBuffer() pointed the next socket read, when not at the spare buffer. */
  private direct: { sink: SegmentSink; region: Buffer; payload: boolean } | undefined;
  /** Bytes the kernel wrote straight into destinations (stats and tests). */
  directBytes = 0;

  constructor(
    private readonly socket: Socket,
    private readonly highWaterBytes: number,
    opts: { external?: boolean } = {},
  ) {
    this.external = opts.external === true;
    if (!opts.external) socket.on('data', (chunk: Buffer) => this.push(chunk, false));
    const finish = (err?: Error): void => {
      this.ended ??= new StripeError(
        'REQ_UNAVAILABLE',
        `bulk connection closed${err ? `: ${err.message}` : ''}`,
      );
      this.wake();
    };
    socket.on('end', () => finish());
    socket.on('close', () => finish());
    socket.on('error', (err) => finish(err));
  }

  /**
   * Bytes from the socket; `reused`: the buffer is overwritten after this
   * returns. Returns false when the socket should stop reading for now: bytes
   * nobody was waiting for had to be copied out of a reused buffer, so the
   * kernel keeps the next ones until a read asks (and resumes the socket).
   */
  push(chunk: Buffer, reused: boolean): boolean {
    const direct = this.direct;
    this.direct = undefined;
    if (
      direct &&
      direct.sink === this.sink &&
      chunk.buffer === direct.region.buffer &&
      chunk.byteOffset === direct.region.byteOffset &&
      chunk.length <= direct.region.length
    ) {
      this.directBytes += chunk.length;
      if (direct.payload) this.advance(direct.sink, chunk.length);
      else this.feed(direct.sink, chunk); // header bytes already in place: feed parses them
      return true;
    }
    if (this.sink && this.chunks.length === 0) {
      const used = this.feed(this.sink, chunk);
      if (used === chunk.length) return true;
      chunk = chunk.subarray(used);
    }
    this.chunks.push(reused ? Buffer.from(chunk) : chunk);
    this.bufferedBytes += chunk.length;
    const more = !reused && this.bufferedBytes <= this.highWaterBytes;
    if (!more) this.socket.pause();
    this.wake();
    return more;
  }

  /**
   * For `onread.buffer` given as a function: where the next socket read
   * should land. A payload (or header) of the segment being received goes
   * straight to its place; anything else to `spare`, copied on by push().
   */
  nextBuffer(spare: Buffer): Buffer {
    this.direct = undefined;
    const sink = this.sink;
    if (!sink || this.chunks.length > 0 || this.sinkDone(sink)) return spare;
    // Even a short rest of a payload: read into the spare buffer, it would pull in the next segment too.
    if (sink.segmentLeft > 0) {
      const region = sink.out.subarray(sink.at, sink.at + sink.segmentLeft);
      this.direct = { sink, region, payload: true };
      return region;
    }
    const region = sink.header.subarray(sink.headerFill);
    this.direct = { sink, region, payload: false };
    return region;
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private async fill(minBytes: number): Promise<void> {
    while (this.bufferedBytes < minBytes) {
      if (this.ended) throw this.ended;
      if (this.socket.isPaused()) this.socket.resume();
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }

  /** True when no bytes are waiting (the peer has sent nothing more yet). */
  get idle(): boolean {
    return this.bufferedBytes === 0;
  }

  /** Exactly n bytes (copied only when they span socket chunks). */
  async readExact(n: number): Promise<Buffer> {
    if (n === 0) return Buffer.alloc(0);
    if (this.bufferedBytes < n) await this.fill(n);
    const first = this.chunks[0]!;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let copied = 0;
      while (copied < n) {
        const chunk = this.chunks[0]!;
        const take = Math.min(chunk.length, n - copied);
        chunk.copy(out, copied, 0, take);
        copied += take;
        if (take === chunk.length) this.chunks.shift();
        else this.chunks[0] = chunk.subarray(take);
      }
    }
    this.bufferedBytes -= n;
    if (!this.external && this.bufferedBytes <= this.highWaterBytes && this.socket.isPaused())
      this.socket.resume();
    return out;
  }

  /** Copies exactly n bytes into target at targetOffset, without an intermediate buffer. */
  async readInto(target: Buffer, targetOffset: number, n: number): Promise<void> {
    let copied = 0;
    while (copied < n) {
      if (this.bufferedBytes === 0) await this.fill(1);
      const chunk = this.chunks[0]!;
      const take = Math.min(chunk.length, n - copied);
      chunk.copy(target, targetOffset + copied, 0, take);
      copied += take;
      this.bufferedBytes -= take;
      if (take === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(take);
    }
    if (!this.external && this.bufferedBytes <= this.highWaterBytes && this.socket.isPaused())
      this.socket.resume();
  }

  /**
   * Receives a body of segments (length u32 | crc32c u32 | data) filling all
   * of `out`, copying data straight into it as bytes arrive; `verify` is
   * called once per complete segment (it may throw: the read then fails).
   * Returns false when the sender aborted (an error response follows, to be
   * read with readExact).
   */
  async readSegments(
    out: Buffer,
    verify: (start: number, length: number, crc: number) => void,
  ): Promise<boolean> {
    const sink = this.newSink(out, verify, false, Number.POSITIVE_INFINITY);
    await this.drain(sink);
    return !sink.aborted;
  }

  /**
   * Receives whole segments of a body of `bodyLeft` more bytes into `out`,
   * straight from the socket, until `out` is full, the next segment does not
   * fit (returned as `pending`, to be passed back with a buffer it fits in),
   * or the body is complete. `onSegment` is called per complete segment.
   */
  async readSegmentRun(
    out: Buffer,
    bodyLeft: number,
    onSegment: (start: number, length: number, crc: number) => void,
    pending?: { length: number; crc: number },
  ): Promise<SegmentRun> {
    const sink = this.newSink(out, onSegment, true, bodyLeft);
    if (pending) {
      if (pending.length > out.length || pending.length > bodyLeft)
        throw new StripeError('REQ_INTERNAL', 'bulk: a pending segment does not fit');
      sink.segmentLeft = pending.length;
      sink.segmentCrc = pending.crc;
      sink.bodyLeft -= pending.length;
    }
    await this.drain(sink);
    return { filled: sink.at, aborted: sink.aborted, pending: sink.pending };
  }

  private newSink(
    out: Buffer,
    verify: (start: number, length: number, crc: number) => void,
    run: boolean,
    bodyLeft: number,
  ): SegmentSink {
    return {
      out,
      at: 0,
      header: Buffer.allocUnsafe(SEGMENT_HEADER_BYTES),
      headerFill: 0,
      segmentLeft: 0,
      segmentStart: 0,
      segmentCrc: 0,
      verify,
      aborted: false,
      error: undefined,
      run,
      bodyLeft,
      pending: undefined,
    };
  }

  /** Feeds buffered bytes, then the socket's, into the sink until it is done. */
  private async drain(sink: SegmentSink): Promise<void> {
    // What is buffered already goes through the sink first.
    while (this.chunks.length > 0 && !this.sinkDone(sink)) {
      const chunk = this.chunks[0]!;
      const used = this.feed(sink, chunk);
      this.bufferedBytes -= used;
      if (used === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(used);
    }
    if (!this.sinkDone(sink)) {
      this.sink = sink;
      try {
        while (!this.sinkDone(sink)) {
          if (this.ended) throw this.ended;
          if (this.socket.isPaused()) this.socket.resume();
          await new Promise<void>((resolve) => {
            this.waiter = resolve;
          });
        }
      } finally {
        this.sink = undefined;
      }
    }
    if (sink.error !== undefined) throw sink.error;
    if (!this.external && this.bufferedBytes <= this.highWaterBytes && this.socket.isPaused())
      this.socket.resume();
  }

  private sinkDone(sink: SegmentSink): boolean {
    return (
      sink.aborted ||
      sink.error !== undefined ||
      sink.pending !== undefined ||
      (sink.segmentLeft === 0 && (sink.at === sink.out.length || (sink.run && sink.bodyLeft === 0)))
    );
  }

  /** Consumes what it can of chunk into the sink; returns the bytes used. */
  private feed(sink: SegmentSink, chunk: Buffer): number {
    let used = 0;
    while (used < chunk.length && !this.sinkDone(sink)) {
      if (sink.segmentLeft === 0) {
        const take = Math.min(SEGMENT_HEADER_BYTES - sink.headerFill, chunk.length - used);
        chunk.copy(sink.header, sink.headerFill, used, used + take);
        sink.headerFill += take;
        used += take;
        if (sink.headerFill < SEGMENT_HEADER_BYTES) break;
        sink.headerFill = 0;
        const length = sink.header.readUInt32LE(0);
        if (length === SEGMENT_ABORT) {
          sink.aborted = true;
          break;
        }
        if (sink.run) {
          if (length === 0 || length > SEGMENT_BYTES_MAX || length > sink.bodyLeft) {
            sink.error = new StripeError('REQ_INVALID', `bad segment length ${length}`);
            break;
          }
          if (length > sink.out.length - sink.at) {
            sink.pending = { length, crc: sink.header.readUInt32LE(4) };
            break;
          }
          sink.bodyLeft -= length;
        } else if (length === 0 || length > SEGMENT_BYTES_MAX || length > sink.out.length - sink.at) {
          sink.error = new StripeError('REQ_INTERNAL', 'bulk: segment overruns the body');
          break;
        }
        sink.segmentLeft = length;
        sink.segmentStart = sink.at;
        sink.segmentCrc = sink.header.readUInt32LE(4);
        continue;
      }
      const take = Math.min(sink.segmentLeft, chunk.length - used);
      chunk.copy(sink.out, sink.at, used, used + take);
      used += take;
      this.advance(sink, take, false);
    }
    if (this.sinkDone(sink)) this.wake();
    return used;
  }

  /** `n` payload bytes of the current segment are in place in sink.out: count them, verify a complete segment. */
  private advance(sink: SegmentSink, n: number, wake = true): void {
    sink.at += n;
    sink.segmentLeft -= n;
    if (sink.segmentLeft === 0) {
      try {
        sink.verify(sink.segmentStart, sink.at - sink.segmentStart, sink.segmentCrc);
      } catch (err) {
        sink.error = err;
      }
    }
    if (wake && this.sinkDone(sink)) this.wake();
  }
}
