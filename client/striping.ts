// The byte math of docs/ARCHITECTURE.md "Objects, pools and the byte math",
// pure and exhaustively tested (test/client/striping.test.ts). raid0 and
// replicated stripe unit u = floor(o / S) over C objects; ec stripes data
// units the same way over its k data chunks (stripe s = floor(u / k), chunk
// j = u mod k), so one formula serves all three patterns with width C or k.
import { dataWidth, type StripedLayout as Layout } from './layout.js';

/** A piece of a file range that lies in one stripe unit. */
export interface Extent {
  /** Stripe unit index in the file. */
  unit: number;
  /** raid0/replicated: object index; ec: data chunk position j (0 <= j < k). */
  objectIndex: number;
  /** Byte offset in the object (ec: in the chunk object). */
  objectOffset: number;
  length: number;
  fileOffset: number;
}

function assertRange(offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new Error(`bad offset ${offset}`);
  if (!Number.isSafeInteger(length) || length < 0) throw new Error(`bad length ${length}`);
}

/** Where file byte `offset` lives. */
export function locateByte(
  layout: Layout,
  offset: number,
): { unit: number; objectIndex: number; objectOffset: number } {
  const size = layout.stripeSize;
  const width = dataWidth(layout);
  const unit = Math.floor(offset / size);
  return { unit, objectIndex: unit % width, objectOffset: Math.floor(unit / width) * size + (offset % size) };
}

/** Splits [offset, offset+length) at stripe unit boundaries, in file order. */
export function mapRange(layout: Layout, offset: number, length: number): Extent[] {
  assertRange(offset, length);
  const extents: Extent[] = [];
  let at = offset;
  const end = offset + length;
  while (at < end) {
    const where = locateByte(layout, at);
    const unitEnd = (where.unit + 1) * layout.stripeSize;
    const pieceLength = Math.min(end, unitEnd) - at;
    extents.push({ ...where, length: pieceLength, fileOffset: at });
    at += pieceLength;
  }
  return extents;
}

/** Inverse of locateByte: the file offset of a byte of an object (or data chunk). */
export function fileOffsetOf(layout: Layout, objectIndex: number, objectOffset: number): number {
  const size = layout.stripeSize;
  const width = dataWidth(layout);
  const row = Math.floor(objectOffset / size);
  return (row * width + objectIndex) * size + (objectOffset % size);
}

/** Bytes object (or ec data chunk, before padding) `objectIndex` holds for a file of `fileSize` bytes. */
export function objectDataBytes(layout: Layout, fileSize: number, objectIndex: number): number {
  const size = layout.stripeSize;
  const width = dataWidth(layout);
  const rowBytes = size * width;
  const fullRows = Math.floor(fileSize / rowBytes);
  const rest = fileSize - fullRows * rowBytes;
  const inLastRow = Math.min(size, Math.max(0, rest - objectIndex * size));
  return fullRows * size + inLastRow;
}

// ---------------------------------------------------------------- ec

/** Data bytes one ec stripe holds: k * S. */
export function ecStripeDataBytes(layout: Layout): number {
  return dataWidth(layout) * layout.stripeSize;
}

export function ecStripeCount(layout: Layout, fileSize: number): number {
  return Math.ceil(fileSize / ecStripeDataBytes(layout));
}

/**
 * Shard (chunk piece) length of stripe s: S, except the last stripe, whose
 * shards are as long as its first data chunk (min(S, data bytes)); shorter data
 * chunks are zero padded so all k+m chunk objects have the same size.
 */
export function ecShardBytes(layout: Layout, fileSize: number, stripe: number): number {
  const stripeBytes = ecStripeDataBytes(layout);
  const dataBytes = Math.min(stripeBytes, fileSize - stripe * stripeBytes);
  if (dataBytes <= 0) throw new Error(`stripe ${stripe} is past the end of a ${fileSize}-byte file`);
  return Math.min(layout.stripeSize, dataBytes);
}

/** Size every chunk object of an ec file of `fileSize` bytes has. */
export function ecChunkObjectBytes(layout: Layout, fileSize: number): number {
  const stripes = ecStripeCount(layout, fileSize);
  if (stripes === 0) return 0;
  return (stripes - 1) * layout.stripeSize + ecShardBytes(layout, fileSize, stripes - 1);
}

/**
 * Lays out the data of one stripe (at most k*S bytes) as k+m contiguous shards
 * of `shardBytes` each, the layout the Reed-Solomon codec works on: data chunk
 * j gets bytes [j*S, j*S + shardBytes) of the stripe, zero padded; the m parity
 * shards are left zero for the encoder.
 */
export function assembleStripe(layout: Layout, stripeData: Uint8Array, shardBytes: number): Buffer {
  const k = dataWidth(layout);
  const m = layout.m ?? 0;
  const size = layout.stripeSize;
  if (stripeData.length > k * size) throw new Error(`stripe data ${stripeData.length} exceeds k*S`);
  if (shardBytes < 1 || shardBytes > size) throw new Error(`bad shard size ${shardBytes}`);
  const shards = Buffer.alloc((k + m) * shardBytes);
  for (let j = 0; j < k; j++) {
    const from = j * size;
    if (from >= stripeData.length) break;
    const piece = stripeData.subarray(from, Math.min(from + shardBytes, stripeData.length));
    shards.set(piece, j * shardBytes);
  }
  return shards;
}

/** The contiguous data of a stripe back from its shards (inverse of assembleStripe). */
export function disassembleStripe(
  layout: Layout,
  shards: Uint8Array,
  shardBytes: number,
  dataBytes: number,
): Buffer {
  const k = dataWidth(layout);
  const size = layout.stripeSize;
  const out = Buffer.alloc(dataBytes);
  for (let j = 0; j < k && j * size < dataBytes; j++) {
    const length = Math.min(shardBytes, dataBytes - j * size);
    out.set(shards.subarray(j * shardBytes, j * shardBytes + length), j * size);
  }
  return out;
}

// ---------------------------------------------------------------- object names

/** raid0/replicated object i, or the ec group (index 0). */
export function objectKey(inode: number, objectIndex: number): string {
  return `${inode}.${objectIndex}`;
}

/** ec chunk j of the file's one group. */
export function ecChunkObjectId(inode: number, chunk: number): string {
  return `${inode}.0.c${chunk}`;
}
