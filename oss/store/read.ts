// ReadRange on one OST: read whole checksum blocks, verify each against its
// stored crc before any of its bytes leave, and hand out block-sized pieces
// with their crc (the stored one when the piece is a whole block) so the bulk
// path can send it on without checksumming again. A reader that verifies every
// piece itself (the bulk client) may waive the check of whole blocks: one
// pass of crc32c per byte read, at the end that keeps the bytes.
import { constants, type FileHandle } from 'node:fs/promises';
import { BUFFER_ALIGN_BYTES, isAligned } from '../../common/bulk/buffer-pool.js';
import { crc32c } from '../../common/checksum.js';
import { StripeError } from '../../common/errors.js';
import { readSpanBuffers, readSpanBytes } from '../buffers.js';
import { checkRange } from '../object-id.js';
import { zeroCrc } from './block-crc.js';
import type { BlockStamps, ReadPiece } from './object-store.js';
import type { Ost } from './ost.js';
import type { BlockCrcs, LogLocation } from './ost-index.js';

function expectedCrc(crcs: BlockCrcs, block: number, blockLength: number, blockBytes: number): number {
  return crcs.crcOf(block) ?? zeroCrc(blockLength, blockBytes);
}

/** Reads [position, position + length) of the file; bytes past its end are zeros (holes). */
/**
 * Reads `length` bytes at `position` into `buf` (zeros past the end of the
 * file). With `alignBytes` > 1 (an O_DIRECT handle) every read asks for whole
 * aligned units: `position` and `buf` must be aligned and `buf` must have room
 * for `length` rounded up, and a read that ends off a unit boundary has met
 * the end of the file.
 */
async function readFull(
  fh: FileHandle,
  position: number,
  length: number,
  buf: Buffer = Buffer.allocUnsafe(length),
  alignBytes = 1,
): Promise<Buffer> {
  const out = buf.subarray(0, length);
  let done = 0;
  while (done < length) {
    const want = Math.ceil((length - done) / alignBytes) * alignBytes;
    const { bytesRead } = await fh.read(buf, done, want, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
    if (done % alignBytes !== 0) break;
  }
  if (done < length) out.fill(0, done);
  return out;
}

function corrupt(ost: Ost, objectId: string, block: number): StripeError {
  return new StripeError('OBJ_CHECKSUM', `block ${block} of ${objectId} on ${ost.name} failed its checksum`, {
    objectId,
    block,
    detectedBy: 'oss',
  });
}

/** One old block of an object (for a partial overwrite), verified. */
export async function readVerifiedBlock(
  ost: Ost,
  fh: FileHandle,
  objectId: string,
  block: number,
  size: number,
  cache: Map<number, Buffer>,
): Promise<Buffer> {
  const hit = cache.get(block);
  if (hit) return hit;
  const B = ost.blockBytes;
  const length = Math.min(B, size - block * B);
  if (length <= 0) throw new Error(`block ${block} is past the end of ${objectId}`);
  const data = await readFull(fh, block * B, length);
  const crcs = await ost.blockCrcs(objectId, block, block);
  if (crc32c(data) !== expectedCrc(crcs, block, length, B)) throw corrupt(ost, objectId, block);
  cache.set(block, data);
  return data;
}

/**
 * The pieces of [offset, end) in a span read at `position`, every block of it verified before any
 * of its bytes leave (whole blocks: unless `readerVerifies` waives it).
 */
function verifiedPieces(
  ost: Ost,
  objectId: string,
  crcs: BlockCrcs,
  data: Buffer,
  position: number,
  range: { offset: number; end: number },
  readerVerifies: boolean,
): ReadPiece[] {
  const B = ost.blockBytes;
  const pieces: ReadPiece[] = [];
  for (let at = 0; at < data.length; at += B) {
    const block = (position + at) / B;
    const blockData = data.subarray(at, Math.min(at + B, data.length));
    const from = Math.max(range.offset, position + at) - (position + at);
    const to = Math.min(range.end, position + at + blockData.length) - (position + at);
    if (to <= from) continue;
    const stored = expectedCrc(crcs, block, blockData.length, B);
    const whole = from === 0 && to === blockData.length;
    if (!(whole && readerVerifies) && crc32c(blockData) !== stored) throw corrupt(ost, objectId, block);
    const piece = whole ? blockData : blockData.subarray(from, to);
    pieces.push({ data: piece, crc: whole ? stored : crc32c(piece) });
  }
  return pieces;
}

/**
 * Streams [offset, offset + length) clamped to the object size as the pieces
 * of one disk span at a time (one step per span, not per block: a reader
 * moving 1 GB/s takes 16k fewer steps per GB). The caller holds nothing: this
 * takes the object's read lock for the whole read.
 *
 * With `readerVerifies` a whole block goes out with its stored crc unchecked:
 * the reader checks it against the bytes and so still never keeps a corrupt
 * block (it asks again without the waiver to learn whether the disk or the
 * wire was at fault). A piece that is part of a block is always verified
 * here, since its crc is computed from the bytes and would bless them.
 */
export async function* readSpans(
  ost: Ost,
  objectId: string,
  offset: number,
  length: number,
  onSize: (objectSize: number, blockStamps: BlockStamps) => void,
  readerVerifies = false,
): AsyncGenerator<ReadPiece[]> {
  checkRange(offset, length);
  if (ost.isStale(objectId))
    throw new StripeError(
      'OBJ_STALE',
      `${objectId} on ${ost.name} missed writes while it was down and awaits its repair: read another copy`,
      { objectId, ost: ost.name },
    );
  const release = await ost.locks.acquire(objectId, false);
  try {
    const meta = await ost.requireMeta(objectId);
    if (offset > meta.size)
      throw new StripeError('OBJ_RANGE', `offset ${offset} is past the end (${meta.size})`);
    const end = Math.min(meta.size, offset + length);
    if (end === offset) {
      onSize(meta.size, []);
      return;
    }
    const B = ost.blockBytes;
    const firstBlock = Math.floor(offset / B);
    const lastBlock = Math.floor((end - 1) / B);
    const crcs = await ost.blockCrcs(objectId, firstBlock, lastBlock);
    const stamps: number[] = [];
    for (let b = firstBlock; b <= lastBlock; b++) stamps.push(crcs.stampOf(b));
    onSize(meta.size, stamps);
    const read: SpanRead = { objectId, size: meta.size, crcs, offset, end, lastBlock, readerVerifies };
    if (meta.log) yield* logSpans(ost, meta.log, read);
    else yield* fileSpans(ost, read);
  } finally {
    release();
  }
}

/** What one read asks of an object, its size and block crcs looked up. */
interface SpanRead {
  objectId: string;
  size: number;
  crcs: BlockCrcs;
  offset: number;
  end: number;
  lastBlock: number;
  readerVerifies: boolean;
}

/** A read of an object kept in the segment log: its record read whole (it is small), the range's blocks verified. */
async function* logSpans(ost: Ost, location: LogLocation, r: SpanRead): AsyncGenerator<ReadPiece[]> {
  const B = ost.blockBytes;
  const pool = readSpanBuffers;
  const whole = pool.take();
  let given = false;
  try {
    if (location[2] > whole.length)
      throw new Error(`a log record of ${location[2]} bytes outgrows a read span`);
    const record = await ost.log.read(location, whole);
    const position = Math.floor(r.offset / B) * B;
    const data = record.subarray(position, Math.min(r.size, (r.lastBlock + 1) * B));
    const pieces = verifiedPieces(ost, r.objectId, r.crcs, data, position, r, r.readerVerifies);
    const last = pieces[pieces.length - 1];
    if (!last) return;
    last.release = () => pool.give(whole);
    given = true;
    yield pieces;
  } finally {
    if (!given) pool.give(whole);
  }
}

/** A read of an object in a file of its own, a span at a time with one span of read-ahead. */
async function* fileSpans(ost: Ost, r: SpanRead): AsyncGenerator<ReadPiece[]> {
  const B = ost.blockBytes;
  const { objectId, end } = r;
  let fh: { fh: FileHandle; release: () => void } | undefined;
  let paged: { fh: FileHandle; release: () => void } | undefined;
  try {
    // With direct IO the disk's bytes land in the pooled buffer itself: no page-cache pages to
    // fill and copy from (reads of data the OSS wrote with O_DIRECT find none cached anyway).
    const direct = ost.directIo && B % BUFFER_ALIGN_BYTES === 0;
    fh = await ost.readHandles.acquire(
      ost.pathOf(objectId),
      constants.O_RDONLY | (direct ? constants.O_DIRECT : 0),
    );
    const file = fh.fh;
    // Spans of whole blocks in pooled buffers (oss.readSpanBytes), one system call each, with one span of read-ahead.
    const spans = readSpanBuffers;
    const spanBytes = readSpanBytes;
    const span = async (start: number): Promise<{ whole: Buffer; data: Buffer }> => {
      const whole = spans.take();
      const length = Math.min(spanBytes, Math.min(r.size, (r.lastBlock + 1) * B) - start);
      if (!direct) return { whole, data: await readFull(file, start, length, whole) };
      if (isAligned(whole))
        return { whole, data: await readFull(file, start, length, whole, BUFFER_ALIGN_BYTES) };
      // A buffer from outside the aligned slabs (they could not be made): through the page cache.
      paged ??= await ost.readHandles.acquire(ost.pathOf(objectId), constants.O_RDONLY);
      return { whole, data: await readFull(paged.fh, start, length, whole) };
    };
    let position = Math.floor(r.offset / B) * B;
    let next: Promise<{ whole: Buffer; data: Buffer }> | undefined = span(position);
    while (next) {
      const { whole, data } = await next;
      const following: number = position + data.length;
      next = following < end ? span(following) : undefined; // read ahead while this span is sent
      // Awaited on the next turn of the loop; a rejection seen only there is not unhandled here.
      next?.catch(() => undefined);
      const pieces = verifiedPieces(ost, objectId, r.crcs, data, position, r, r.readerVerifies);
      const last = pieces[pieces.length - 1];
      if (!last) {
        spans.give(whole);
      } else {
        last.release = () => spans.give(whole);
        yield pieces;
      }
      position = following;
    }
  } finally {
    fh?.release();
    paged?.release();
  }
}
