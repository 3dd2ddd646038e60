// The head of a round of the segment log (segment-log.ts): every round that
// appends records starts with one, written in the same pwritev and covered by
// the same fdatasync, and it carries the round's index changes (the batch the
// round then writes to the OST's index unsynced). So a round costs one fsync:
// once the segment is synced its changes are durable, and an OST that opens
// after a power loss took the index's unsynced tail replays them from here
// (replayLog), from the position the index last recorded (`s/log`). A head
// says how many bytes of records follow it and their crc32c: a round whose
// head or records were torn by the crash is not replayed, and neither is
// anything after it.
//   0  magic u32 'SLR1'           20 headBytes u32 (whole units, with this head)
//   4  segment u32                24 bodyBytes u32
//   8  offset f64 (of the head)   28 dataBytes u32 (the records after the head)
//   16 reserved u32               32 dataCrc u32   36 headCrc u32 (of 0..36 and the body)
//   40 body: count u32, then per change: kind u8 (1 put, 2 del), key length u16,
//      key (utf8), and for a put value length u32, value
import type { FileHandle } from 'node:fs/promises';
import { crc32c } from '../../common/checksum.js';
import type { BatchOp } from './ost-index.js';

const MAGIC = 0x31524c53;
export const ROUND_HEAD_FIXED_BYTES = 40;
const PUT = 1;
const DEL = 2;

/** The encoded changes of a round (the head's body). */
export function encodeChanges(ops: readonly BatchOp[]): Buffer {
  let bytes = 4;
  for (const op of ops) {
    bytes += 3 + Buffer.byteLength(op.key, 'utf8');
    if (op.type === 'put') bytes += 4 + op.value.length;
  }
  const body = Buffer.allocUnsafe(bytes);
  let at = body.writeUInt32LE(ops.length, 0);
  for (const op of ops) {
    at = body.writeUInt8(op.type === 'put' ? PUT : DEL, at);
    const keyBytes = body.write(op.key, at + 2, 'utf8');
    body.writeUInt16LE(keyBytes, at);
    at += 2 + keyBytes;
    if (op.type === 'put') {
      at = body.writeUInt32LE(op.value.length, at);
      at += op.value.copy(body, at);
    }
  }
  return body;
}

function decodeChanges(body: Buffer): BatchOp[] | undefined {
  if (body.length < 4) return undefined;
  const count = body.readUInt32LE(0);
  const ops: BatchOp[] = [];
  let at = 4;
  for (let i = 0; i < count; i++) {
    if (at + 3 > body.length) return undefined;
    const kind = body.readUInt8(at);
    const keyBytes = body.readUInt16LE(at + 1);
    at += 3;
    if (at + keyBytes > body.length) return undefined;
    const key = body.toString('utf8', at, at + keyBytes);
    at += keyBytes;
    if (kind === DEL) {
      ops.push({ type: 'del', key });
      continue;
    }
    if (kind !== PUT || at + 4 > body.length) return undefined;
    const valueBytes = body.readUInt32LE(at);
    at += 4;
    if (at + valueBytes > body.length) return undefined;
    ops.push({ type: 'put', key, value: Buffer.from(body.subarray(at, at + valueBytes)) });
    at += valueBytes;
  }
  return at === body.length ? ops : undefined;
}

/** The bytes a head with this body takes: whole units of `align`. */
export function headBytesFor(body: Buffer, align: number): number {
  return Math.ceil((ROUND_HEAD_FIXED_BYTES + body.length) / align) * align;
}

export interface RoundHead {
  segment: number;
  offset: number;
  headBytes: number;
  dataBytes: number;
  dataCrc: number;
}

/** Writes the head into `into` (at least headBytes long), zero-padded to headBytes. */
export function encodeHead(into: Buffer, head: RoundHead, body: Buffer): Buffer {
  const out = into.subarray(0, head.headBytes);
  out.writeUInt32LE(MAGIC, 0);
  out.writeUInt32LE(head.segment, 4);
  out.writeDoubleLE(head.offset, 8);
  out.writeUInt32LE(0, 16);
  out.writeUInt32LE(head.headBytes, 20);
  out.writeUInt32LE(body.length, 24);
  out.writeUInt32LE(head.dataBytes, 28);
  out.writeUInt32LE(head.dataCrc, 32);
  out.writeUInt32LE(crc32c(body, crc32c(out.subarray(0, 36))), 36);
  body.copy(out, ROUND_HEAD_FIXED_BYTES);
  out.fill(0, ROUND_HEAD_FIXED_BYTES + body.length);
  return out;
}

/** A round found in a segment: its head, its changes and where the next round starts. */
export interface ReplayedRound {
  ops: BatchOp[];
  end: number;
}

/**
 * Reads the round at `offset` of a segment: undefined when there is none there, or when its head
 * or its records are torn (a crash while it was written) or not this place's.
 */
export async function readRound(
  fh: FileHandle,
  segment: number,
  offset: number,
  scratch: Buffer,
): Promise<ReplayedRound | undefined> {
  const fixed = await readAt(fh, scratch.subarray(0, ROUND_HEAD_FIXED_BYTES), offset);
  if (fixed.length < ROUND_HEAD_FIXED_BYTES || fixed.readUInt32LE(0) !== MAGIC) return undefined;
  if (fixed.readUInt32LE(4) !== segment || fixed.readDoubleLE(8) !== offset) return undefined;
  const headBytes = fixed.readUInt32LE(20);
  const bodyBytes = fixed.readUInt32LE(24);
  const dataBytes = fixed.readUInt32LE(28);
  const dataCrc = fixed.readUInt32LE(32);
  const headCrc = fixed.readUInt32LE(36);
  if (ROUND_HEAD_FIXED_BYTES + bodyBytes > headBytes) return undefined;
  const previous = crc32c(fixed.subarray(0, 36));
  const body = await readAt(fh, Buffer.allocUnsafe(bodyBytes), offset + ROUND_HEAD_FIXED_BYTES);
  if (body.length < bodyBytes || crc32c(body, previous) !== headCrc) return undefined;
  const ops = decodeChanges(body);
  if (!ops) return undefined;
  let crc = 0;
  for (let done = 0; done < dataBytes; ) {
    const chunk = await readAt(
      fh,
      scratch.subarray(0, Math.min(scratch.length, dataBytes - done)),
      offset + headBytes + done,
    );
    if (chunk.length === 0) return undefined;
    crc = crc32c(chunk, crc);
    done += chunk.length;
  }
  if (crc !== dataCrc) return undefined;
  return { ops, end: offset + headBytes + dataBytes };
}

/** Reads into `into` at `position` up to its length or the end of the file; the bytes read. */
async function readAt(fh: FileHandle, into: Buffer, position: number): Promise<Buffer> {
  let done = 0;
  while (done < into.length) {
    const { bytesRead } = await fh.read(into, done, into.length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return into.subarray(0, done);
}
