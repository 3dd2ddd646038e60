// The bulk path's wire format: pure encode/decode of fixed little-endian
// headers, no IO. One request per connection at a time; see docs/oss.md.
//
// Request  (48 bytes + id): magic u32 | op u8 | flags u8 | idLen u16 | ostId u32 | poolId u32 | pg u32 |
//                           crc32c u32 | mapEpoch u64 | offset u64 | length u64 | objectId (ASCII)
//   WRITE is followed by `length` bytes in segments; READ by nothing. On a READ the crc32c field is
//   `segmentBytes` instead: the answer's segments may join checksum blocks up to that many bytes,
//   ending before a block that would take one past a multiple of it counted from `offset` (0: one
//   block per segment). A reader whose buffers start at such multiples, on block boundaries, gets
//   segments that each fall in one buffer and receives them in few, large socket reads.
//   flags: bit 0 (WRITE) truncate; bit 2 (WRITE) a version stamp u64 follows the object id (counted
//   in idLen); bit 3 (WRITE) sync: the OSS makes the object durable before it answers, as a Flush
//   after the write would (the answer says whether that held); bit 1 (READ) the reader verifies every segment against the
//   crcs sent, so the OSS may send whole checksum blocks with their stored crcs without reading
//   them through crc32c first (partial blocks are still verified: their crc is computed); bit 4
//   (READ) the reader wants the block stamps of what it reads (common/block-stamps.ts).
// Response (32 bytes):      magic u32 | status u8 | flags u8 | 0 u16 | objectSize u64 | version u64 | bodyBytes u64
//   flags: bit 0 (OK, WRITE) durable: a sync write's flush held (every write acknowledged so far
//   is durable); without it a sync write is applied and the writer flushes it as any other.
//   status ERROR: body = codeLen u16 | code | message (UTF-8).
//   status OK, READ: flags bit 1: count u32 | count block stamps u64 follow the header (asked for
//   by request flag bit 4); then `bodyBytes` data bytes in segments.
// Segment (8 bytes + data): length u32 | crc32c u32 of the data. A segment length of SEGMENT_ABORT means
//   the sender gave up mid-stream: on a response an error response follows; on a request nothing does.
import { BLOCK_STAMPS_MAX, type BlockStamps } from '../block-stamps.js';
import { crc32c } from '../checksum.js';
import { type ErrorCode, isErrorCode, StripeError } from '../errors.js';
import { crc32cCombine } from './crc-combine.js';

export const REQUEST_MAGIC = 0x51424653; // 'SFBQ'
export const RESPONSE_MAGIC = 0x52424653; // 'SFBR'
export const REQUEST_FIXED_BYTES = 48;
export const RESPONSE_FIXED_BYTES = 32;
export const SEGMENT_HEADER_BYTES = 8;
export const SEGMENT_ABORT = 0xffffffff;
/** Largest segment either side accepts. */
export const SEGMENT_BYTES_MAX = 4 * 1024 * 1024;
const OBJECT_ID_BYTES_MAX = 1024; // wire sanity; oss/ applies the real id rules
const ERROR_BODY_BYTES_MAX = 64 * 1024;
const U32 = 0x1_0000_0000;

export const BulkOp = { write: 1, read: 2 } as const;
export type BulkOpName = keyof typeof BulkOp;

export interface BulkRef {
  ostId: number;
  objectId: string;
  poolId: number;
  pg: number;
  mapEpoch: number;
}

export interface BulkRequest {
  op: BulkOpName;
  ref: BulkRef;
  offset: number;
  length: number;
  crc32c: number; // write: crc32c of all the data; read: 0
  truncate: boolean;
  /** read: longest segment wanted (see the format above); 0 or absent: one checksum block each. */
  segmentBytes?: number;
  /** read: the reader checks every segment's crc itself (flags bit 1; see the format above). */
  readerVerifies?: boolean;
  /** write: the writer's version stamp (flags bit 2); absent or 0: none. */
  version?: number;
  /** write: make the object durable before answering (flags bit 3; see the format above). */
  sync?: boolean;
  /** read: answer with the block stamps of what is read (flags bit 4). */
  wantStamps?: boolean;
}

const FLAG_TRUNCATE = 1;
const FLAG_READER_VERIFIES = 2;
const FLAG_VERSIONED = 4;
const FLAG_SYNC = 8;
const FLAG_WANT_STAMPS = 16;
const VERSION_BYTES = 8;
const RESPONSE_FLAG_DURABLE = 1;
const RESPONSE_FLAG_STAMPS = 2;
/** A stamp count (u32) on a response that carries stamps, then STAMP_BYTES per stamp. */
export const STAMP_COUNT_BYTES = 4;
export const STAMP_BYTES = 8;

export interface BulkResponseHeader {
  ok: boolean;
  objectSize: number;
  version: number;
  bodyBytes: number;
  /** A sync write's flush held (response flags bit 0). */
  durable: boolean;
  /** Block stamps follow the header (a count, then the stamps: decodeStampCount, decodeStamps). */
  stamped: boolean;
}

function writeU64(buf: Buffer, value: number, at: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`u64 field out of range: ${value}`);
  buf.writeUInt32LE(value % U32, at);
  buf.writeUInt32LE(Math.floor(value / U32), at + 4);
}

function readU64(buf: Buffer, at: number): number {
  const value = buf.readUInt32LE(at) + buf.readUInt32LE(at + 4) * U32;
  if (!Number.isSafeInteger(value)) throw new StripeError('REQ_INVALID', 'bulk: 64-bit field out of range');
  return value;
}

export function encodeRequest(req: BulkRequest): Buffer {
  const id = Buffer.from(req.ref.objectId, 'latin1');
  if (id.length > OBJECT_ID_BYTES_MAX) throw new StripeError('OBJ_INVALID_ID', 'object id too long');
  const versioned = req.op === 'write' && (req.version ?? 0) > 0;
  const tail = id.length + (versioned ? VERSION_BYTES : 0);
  const buf = Buffer.allocUnsafe(REQUEST_FIXED_BYTES + tail);
  buf.writeUInt32LE(REQUEST_MAGIC, 0);
  buf.writeUInt8(BulkOp[req.op], 4);
  buf.writeUInt8(
    (req.truncate ? FLAG_TRUNCATE : 0) |
      (req.op === 'read' && req.readerVerifies ? FLAG_READER_VERIFIES : 0) |
      (req.op === 'read' && req.wantStamps ? FLAG_WANT_STAMPS : 0) |
      (versioned ? FLAG_VERSIONED : 0) |
      (req.op === 'write' && req.sync ? FLAG_SYNC : 0),
    5,
  );
  buf.writeUInt16LE(tail, 6);
  buf.writeUInt32LE(req.ref.ostId, 8);
  buf.writeUInt32LE(req.ref.poolId, 12);
  buf.writeUInt32LE(req.ref.pg, 16);
  buf.writeUInt32LE(
    req.op === 'read' ? Math.min(req.segmentBytes ?? 0, SEGMENT_BYTES_MAX) : req.crc32c >>> 0,
    20,
  );
  writeU64(buf, req.ref.mapEpoch, 24);
  writeU64(buf, req.offset, 32);
  writeU64(buf, req.length, 40);
  id.copy(buf, REQUEST_FIXED_BYTES);
  if (versioned) writeU64(buf, req.version as number, REQUEST_FIXED_BYTES + id.length);
  return buf;
}

/** Bytes of id that follow the fixed part; validates magic and op first. */
export function requestIdBytes(fixed: Buffer): number {
  if (fixed.length < REQUEST_FIXED_BYTES) throw new Error('short request header');
  if (fixed.readUInt32LE(0) !== REQUEST_MAGIC)
    throw new StripeError('REQ_INVALID', 'bulk: bad request magic');
  const op = fixed.readUInt8(4);
  if (op !== BulkOp.write && op !== BulkOp.read)
    throw new StripeError('REQ_INVALID', `bulk: unknown op ${op}`);
  const idBytes = fixed.readUInt16LE(6);
  if (idBytes > OBJECT_ID_BYTES_MAX) throw new StripeError('REQ_TOO_LARGE', 'bulk: object id too long');
  return idBytes;
}

export function decodeRequest(fixed: Buffer, id: Buffer): BulkRequest {
  const idBytes = requestIdBytes(fixed);
  if (id.length !== idBytes) throw new Error('object id length mismatch');
  const write = fixed.readUInt8(4) === BulkOp.write;
  const flags = fixed.readUInt8(5);
  const versioned = write && (flags & FLAG_VERSIONED) !== 0;
  if (versioned && id.length <= VERSION_BYTES)
    throw new StripeError('REQ_INVALID', 'bulk: a versioned write without room for its version');
  const idEnd = versioned ? id.length - VERSION_BYTES : id.length;
  return {
    op: write ? 'write' : 'read',
    truncate: (flags & FLAG_TRUNCATE) !== 0,
    ref: {
      ostId: fixed.readUInt32LE(8),
      poolId: fixed.readUInt32LE(12),
      pg: fixed.readUInt32LE(16),
      mapEpoch: readU64(fixed, 24),
      objectId: id.toString('latin1', 0, idEnd),
    },
    crc32c: write ? fixed.readUInt32LE(20) : 0,
    offset: readU64(fixed, 32),
    length: readU64(fixed, 40),
    ...(write
      ? {
          ...(versioned ? { version: readU64(id, idEnd) } : {}),
          ...((flags & FLAG_SYNC) !== 0 ? { sync: true } : {}),
        }
      : {
          segmentBytes: Math.min(fixed.readUInt32LE(20), SEGMENT_BYTES_MAX),
          readerVerifies: (flags & FLAG_READER_VERIFIES) !== 0,
          wantStamps: (flags & FLAG_WANT_STAMPS) !== 0,
        }),
  };
}

/**
 * An OK response header. `durable`: a sync write's flush held (flags bit 0); `stamps`: a read's
 * block stamps, sent right after it (flags bit 1).
 */
export function encodeOkResponse(
  objectSize: number,
  version: number,
  bodyBytes: number,
  opts: { durable?: boolean; stamps?: BlockStamps | undefined } = {},
): Buffer {
  const { durable = false, stamps } = opts;
  if (stamps && stamps.length > BLOCK_STAMPS_MAX) throw new Error(`${stamps.length} block stamps`);
  const trailer = stamps ? STAMP_COUNT_BYTES + STAMP_BYTES * stamps.length : 0;
  const buf = Buffer.alloc(RESPONSE_FIXED_BYTES + trailer);
  buf.writeUInt32LE(RESPONSE_MAGIC, 0);
  buf.writeUInt8((durable ? RESPONSE_FLAG_DURABLE : 0) | (stamps ? RESPONSE_FLAG_STAMPS : 0), 5);
  writeU64(buf, objectSize, 8);
  writeU64(buf, version, 16);
  writeU64(buf, bodyBytes, 24);
  if (stamps) {
    buf.writeUInt32LE(stamps.length, RESPONSE_FIXED_BYTES);
    stamps.forEach((stamp, i) => {
      writeU64(buf, stamp, RESPONSE_FIXED_BYTES + STAMP_COUNT_BYTES + i * STAMP_BYTES);
    });
  }
  return buf;
}

/** How many stamps follow a stamped header (its first STAMP_COUNT_BYTES after it). */
export function decodeStampCount(buf: Buffer): number {
  const count = buf.readUInt32LE(0);
  if (count > BLOCK_STAMPS_MAX) throw new StripeError('REQ_INTERNAL', `bulk: ${count} block stamps`);
  return count;
}

export function decodeStamps(buf: Buffer): number[] {
  const stamps: number[] = [];
  for (let at = 0; at + STAMP_BYTES <= buf.length; at += STAMP_BYTES) stamps.push(readU64(buf, at));
  return stamps;
}

export function encodeErrorResponse(code: ErrorCode, message: string): Buffer {
  const codeBuf = Buffer.from(code, 'latin1');
  const msgBuf = Buffer.from(message, 'utf8').subarray(0, ERROR_BODY_BYTES_MAX - 2 - codeBuf.length);
  const body = 2 + codeBuf.length + msgBuf.length;
  const buf = Buffer.alloc(RESPONSE_FIXED_BYTES + body);
  buf.writeUInt32LE(RESPONSE_MAGIC, 0);
  buf.writeUInt8(1, 4);
  writeU64(buf, body, 24);
  buf.writeUInt16LE(codeBuf.length, RESPONSE_FIXED_BYTES);
  codeBuf.copy(buf, RESPONSE_FIXED_BYTES + 2);
  msgBuf.copy(buf, RESPONSE_FIXED_BYTES + 2 + codeBuf.length);
  return buf;
}

export function decodeResponseHeader(fixed: Buffer): BulkResponseHeader {
  if (fixed.readUInt32LE(0) !== RESPONSE_MAGIC)
    throw new StripeError('REQ_INTERNAL', 'bulk: bad response magic');
  const header = {
    ok: fixed.readUInt8(4) === 0,
    objectSize: readU64(fixed, 8),
    version: readU64(fixed, 16),
    bodyBytes: readU64(fixed, 24),
    durable: (fixed.readUInt8(5) & RESPONSE_FLAG_DURABLE) !== 0,
    stamped: fixed.readUInt8(4) === 0 && (fixed.readUInt8(5) & RESPONSE_FLAG_STAMPS) !== 0,
  };
  if (!header.ok && header.bodyBytes > ERROR_BODY_BYTES_MAX)
    throw new StripeError('REQ_INTERNAL', 'bulk: error too long');
  return header;
}

/** The StripeError an error body carries (unknown codes become REQ_INTERNAL). */
export function decodeErrorBody(body: Buffer): StripeError {
  const codeBytes = body.readUInt16LE(0);
  const code = body.toString('latin1', 2, 2 + codeBytes);
  const message = body.toString('utf8', 2 + codeBytes);
  return new StripeError(isErrorCode(code) ? code : 'REQ_INTERNAL', message);
}

export function encodeSegmentHeader(length: number, crc: number): Buffer {
  const buf = Buffer.allocUnsafe(SEGMENT_HEADER_BYTES);
  buf.writeUInt32LE(length, 0);
  buf.writeUInt32LE(crc >>> 0, 4);
  return buf;
}

export function decodeSegmentHeader(buf: Buffer): { length: number; crc: number; abort: boolean } {
  const length = buf.readUInt32LE(0);
  if (length === SEGMENT_ABORT) return { length: 0, crc: 0, abort: true };
  if (length > SEGMENT_BYTES_MAX) throw new StripeError('REQ_TOO_LARGE', `bulk: segment of ${length} bytes`);
  return { length, crc: buf.readUInt32LE(4), abort: false };
}

/**
 * Cuts [offset, offset + length) at multiples of blockBytes, so each segment
 * covers at most one checksum block of the object and the receiver can store
 * its crc as the block's crc without recomputing it.
 */
export function segmentBounds(offset: number, length: number, blockBytes: number): [number, number][] {
  const bounds: [number, number][] = [];
  let at = offset;
  const end = offset + length;
  while (at < end) {
    const next = Math.min(end, (Math.floor(at / blockBytes) + 1) * blockBytes);
    bounds.push([at - offset, next - offset]);
    at = next;
  }
  return bounds;
}

/** Per-segment crcs of a write, computed once and shared by every replica and retry of it. */
export interface SegmentChecksums {
  /** The write's offset and block size the segments were cut for. */
  offset: number;
  blockBytes: number;
  /** crc32c of each segment, in order. */
  crcs: Uint32Array;
  /** crc32c of all the data (combined from the segment crcs, no second pass). */
  whole: number;
}

/** Checksums each segment of `data` written at `offset` once. */
/**
 * Bytes of one write: one buffer, or several back to back (a run of stripe units of one object,
 * each in a buffer of its own), sent as one request without being copied together.
 */
export type Pieces = Uint8Array | readonly Uint8Array[];

export function piecesLength(data: Pieces): number {
  if (data instanceof Uint8Array) return data.length;
  let length = 0;
  for (const piece of data) length += piece.length;
  return length;
}

/** The views of bytes [start, end) of `data`, in order (one per piece they touch; nothing copied). */
export function piecesSlice(data: Pieces, start: number, end: number): Uint8Array[] {
  if (data instanceof Uint8Array) return [data.subarray(start, end)];
  const out: Uint8Array[] = [];
  let at = 0;
  for (const piece of data) {
    const from = Math.max(start, at);
    const to = Math.min(end, at + piece.length);
    if (from < to) out.push(piece.subarray(from - at, to - at));
    at += piece.length;
    if (at >= end) break;
  }
  return out;
}

export function segmentChecksums(data: Pieces, offset: number, blockBytes: number): SegmentChecksums {
  const bounds = segmentBounds(offset, piecesLength(data), blockBytes);
  const crcs = new Uint32Array(bounds.length);
  let whole = 0;
  for (let i = 0; i < bounds.length; i++) {
    const [start, end] = bounds[i] as [number, number];
    let crc = 0;
    for (const slice of piecesSlice(data, start, end)) crc = crc32c(slice, crc);
    crcs[i] = crc;
    whole = i === 0 ? crc : crc32cCombine(whole, crc, end - start);
  }
  return { offset, blockBytes, crcs, whole };
}

/** All segment headers of one batch in one buffer: header i is bytes [8i, 8i + 8). */
export function encodeSegmentHeaders(lengths: ArrayLike<number>, crcs: ArrayLike<number>): Buffer {
  const buf = Buffer.allocUnsafe(lengths.length * SEGMENT_HEADER_BYTES);
  for (let i = 0; i < lengths.length; i++) {
    buf.writeUInt32LE(lengths[i] as number, i * SEGMENT_HEADER_BYTES);
    buf.writeUInt32LE((crcs[i] as number) >>> 0, i * SEGMENT_HEADER_BYTES + 4);
  }
  return buf;
}
