// The MDS's framed path: namespace reads (OpenMany, StatMany, and a lone Open or
// Stat) as length-prefixed frames on a plain TCP (or TLS) connection beside gRPC, as
// the OSSs' bulk path carries bytes (common/bulk/). A frame carries the same
// protobuf message the gRPC call would, and the same metadata (the signed
// call, the job tag), so the MDS runs the very handler gRPC runs: auth,
// per-item caps, tickets, the audit line, job statistics and metrics alike.
// Pure encode/decode, no IO; see docs/ARCHITECTURE.md ("Batched opens over
// framed TCP").
//
// Request  (16 bytes): magic u32 'SFMQ' | method u8 | 0 u8 | metaBytes u16 | callId u32 | bodyBytes u32
//                      then metaBytes of metadata (latin1 `key\nvalue\n` pairs), then bodyBytes of
//                      the request message (protobuf, as gRPC would send it).
// Response (16 bytes): magic u32 'SFMR' | status u8 | 0 u8 | 0 u16 | callId u32 | bodyBytes u32
//                      then bodyBytes: status OK the response message (protobuf); status ERROR
//                      JSON { code, message, details }.
// Calls are pipelined: a connection carries many at once, each answered under its callId in
// whatever order the MDS finishes them.
import { type ErrorCode, isErrorCode, StripeError } from './errors.js';
import { LIMITS } from './limits.js';

export const FRAME_REQUEST_MAGIC = 0x514d4653; // 'SFMQ'
export const FRAME_RESPONSE_MAGIC = 0x524d4653; // 'SFMR'
export const FRAME_HEADER_BYTES = 16;
/** Metadata text a request may carry (a signature and a job tag are a few hundred bytes). */
export const FRAME_META_BYTES_MAX = 8 * 1024;

/** The methods the framed path serves, by their wire number. */
export const FRAMED_METHODS = { OpenMany: 1, StatMany: 2, Open: 3, Stat: 4 } as const;
export type FramedMethod = keyof typeof FRAMED_METHODS;
const METHOD_OF_NUMBER = new Map<number, FramedMethod>(
  Object.entries(FRAMED_METHODS).map(([name, n]) => [n, name as FramedMethod]),
);

export const FrameStatus = { ok: 0, error: 1 } as const;

export interface FrameHeader {
  magic: number;
  /** Request: the method's number; response: the status. */
  kind: number;
  metaBytes: number;
  callId: number;
  bodyBytes: number;
}

export function encodeFrameHeader(h: FrameHeader): Buffer {
  const buf = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  buf.writeUInt32LE(h.magic, 0);
  buf.writeUInt8(h.kind, 4);
  buf.writeUInt8(0, 5);
  buf.writeUInt16LE(h.metaBytes, 6);
  buf.writeUInt32LE(h.callId >>> 0, 8);
  buf.writeUInt32LE(h.bodyBytes, 12);
  return buf;
}

/** A frame's header, checked against `magic` and the size bounds (REQ_INVALID / REQ_TOO_LARGE). */
export function decodeFrameHeader(buf: Buffer, at: number, magic: number): FrameHeader {
  if (buf.readUInt32LE(at) !== magic) throw new StripeError('REQ_INVALID', 'MDS frame: bad magic');
  const header = {
    magic,
    kind: buf.readUInt8(at + 4),
    metaBytes: buf.readUInt16LE(at + 6),
    callId: buf.readUInt32LE(at + 8),
    bodyBytes: buf.readUInt32LE(at + 12),
  };
  if (header.metaBytes > FRAME_META_BYTES_MAX)
    throw new StripeError('REQ_TOO_LARGE', `MDS frame: ${header.metaBytes} bytes of metadata`);
  if (header.bodyBytes > LIMITS.grpcMessageBytesMax)
    throw new StripeError(
      'REQ_TOO_LARGE',
      `MDS frame: a message of ${header.bodyBytes} bytes (at most ${LIMITS.grpcMessageBytesMax})`,
    );
  return header;
}

export function methodOfNumber(n: number): FramedMethod | undefined {
  return METHOD_OF_NUMBER.get(n);
}

/** Metadata pairs as a frame carries them; keys and values may not hold a newline. */
export function encodeMeta(pairs: readonly (readonly [string, string])[]): Buffer {
  let text = '';
  for (const [key, value] of pairs) {
    if (key.includes('\n') || value.includes('\n'))
      throw new StripeError('REQ_INVALID', `MDS frame: metadata ${key} holds a newline`);
    text += `${key}\n${value}\n`;
  }
  const buf = Buffer.from(text, 'latin1');
  if (buf.length > FRAME_META_BYTES_MAX)
    throw new StripeError('REQ_TOO_LARGE', `MDS frame: ${buf.length} bytes of metadata`);
  return buf;
}

export function decodeMeta(buf: Buffer): [string, string][] {
  if (buf.length === 0) return [];
  const parts = buf.toString('latin1').split('\n');
  if (parts.length % 2 !== 1 || parts[parts.length - 1] !== '')
    throw new StripeError('REQ_INVALID', 'MDS frame: malformed metadata');
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) pairs.push([parts[i] as string, parts[i + 1] as string]);
  return pairs;
}

/** The body of an ERROR response. */
export function encodeFrameError(err: StripeError): Buffer {
  return Buffer.from(JSON.stringify({ code: err.code, message: err.message, details: err.details }), 'utf8');
}

export function decodeFrameError(body: Buffer): StripeError {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as {
      code?: unknown;
      message?: unknown;
      details?: unknown;
    };
    const code: ErrorCode = isErrorCode(parsed.code) ? parsed.code : 'REQ_INTERNAL';
    const details =
      parsed.details && typeof parsed.details === 'object' ? (parsed.details as Record<string, unknown>) : {};
    return new StripeError(code, String(parsed.message ?? ''), details);
  } catch {
    return new StripeError('REQ_INTERNAL', 'MDS frame: malformed error answer');
  }
}

/**
 * Cuts a byte stream into frames: push() each chunk, and `onFrame` hears every whole frame with
 * its metadata and body (views into the chunk when a frame arrived in one, else one copy each).
 * A malformed header throws from push(); the stream is unusable after that.
 */
export class FrameCutter {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private header: FrameHeader | undefined;

  constructor(
    private readonly magic: number,
    private readonly onFrame: (header: FrameHeader, meta: Buffer, body: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (!this.header) {
        if (this.buffered < FRAME_HEADER_BYTES) return;
        this.header = decodeFrameHeader(this.take(FRAME_HEADER_BYTES), 0, this.magic);
      }
      const { metaBytes, bodyBytes } = this.header;
      if (this.buffered < metaBytes + bodyBytes) return;
      const header = this.header;
      this.header = undefined;
      const meta = this.take(metaBytes);
      this.onFrame(header, meta, this.take(bodyBytes));
    }
  }

  /** The next `bytes` buffered: a view when one chunk holds them, else a copy. */
  private take(bytes: number): Buffer {
    this.buffered -= bytes;
    const first = this.chunks[0];
    if (bytes === 0 || !first) return Buffer.alloc(0);
    if (first.length >= bytes) {
      const view = first.subarray(0, bytes);
      if (first.length === bytes) this.chunks.shift();
      else this.chunks[0] = first.subarray(bytes);
      return view;
    }
    const out = Buffer.allocUnsafe(bytes);
    let at = 0;
    while (at < bytes) {
      const chunk = this.chunks[0] as Buffer;
      const n = Math.min(chunk.length, bytes - at);
      chunk.copy(out, at, 0, n);
      at += n;
      if (n === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(n);
    }
    return out;
  }
}

/**
 * Cuts frames from reads into a buffer that is reused (a socket's `onread`): each frame's body is
 * a buffer of its own made when its header arrives, so nothing is kept of the read buffer and no
 * chunk is allocated per read. What arrives with a header in the reused buffer is copied into the
 * body; the rest of a large body is read straight into it (`target`, then `landed`), not copied.
 * The metadata is skipped (answers carry none). A malformed header throws from push().
 */
export class FrameReader {
  private readonly head = Buffer.allocUnsafe(FRAME_HEADER_BYTES);
  private headFill = 0;
  private header: FrameHeader | undefined;
  private metaLeft = 0;
  private body: Buffer = Buffer.alloc(0);
  private bodyFill = 0;
  /** Body bytes copied out of the reused buffer, and read straight into their body (tests, stats). */
  copiedBytes = 0;
  landedBytes = 0;

  constructor(
    private readonly magic: number,
    private readonly onFrame: (header: FrameHeader, body: Buffer) => void,
  ) {}

  /**
   * Where the next read may go instead of the reused buffer: the rest of the body being received
   * when at least `bytesMin` of it are missing (a view; the read then calls `landed`), else undefined.
   */
  target(bytesMin: number): Buffer | undefined {
    if (!this.header || this.metaLeft > 0 || this.body.length - this.bodyFill < bytesMin) return undefined;
    return this.body.subarray(this.bodyFill);
  }

  /** `bytes` were read into the view `target` gave. */
  landed(bytes: number): void {
    const header = this.header;
    if (!header || bytes > this.body.length - this.bodyFill)
      throw new Error(`MDS frame: ${bytes} bytes landed past the body being read`);
    this.bodyFill += bytes;
    this.landedBytes += bytes;
    if (this.bodyFill === this.body.length) {
      this.header = undefined;
      this.onFrame(header, this.body);
    }
  }

  push(buf: Buffer, start: number, end: number): void {
    let at = start;
    while (at < end) {
      if (!this.header) {
        const n = Math.min(FRAME_HEADER_BYTES - this.headFill, end - at);
        buf.copy(this.head, this.headFill, at, at + n);
        this.headFill += n;
        at += n;
        if (this.headFill < FRAME_HEADER_BYTES) return;
        this.headFill = 0;
        this.header = decodeFrameHeader(this.head, 0, this.magic);
        this.metaLeft = this.header.metaBytes;
        this.body = Buffer.allocUnsafe(this.header.bodyBytes);
        this.bodyFill = 0;
      }
      const skipped = Math.min(this.metaLeft, end - at);
      this.metaLeft -= skipped;
      at += skipped;
      const n = Math.min(this.body.length - this.bodyFill, end - at);
      buf.copy(this.body, this.bodyFill, at, at + n);
      this.bodyFill += n;
      this.copiedBytes += n;
      at += n;
      if (this.metaLeft === 0 && this.bodyFill === this.body.length) {
        const header = this.header;
        this.header = undefined;
        this.onFrame(header, this.body);
      }
    }
  }
}
