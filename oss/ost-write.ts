// WriteChunk on one OST. Order: verify each piece's crc before its bytes
// touch the file, write data, check the declared crc of the whole chunk, then
// commit meta + block crcs in one index batch. A crash before the batch leaves
// the previous version (a new object is then missing, never wrong: debris is
// removed at open; overwritten blocks fail their checksum on read).
import { constants, type FileHandle, open, rm } from 'node:fs/promises';
import { StripeError } from '../common/errors.js';
import { BlockCrcBuilder } from './block-crc.js';
import { FileWriter } from './file-writer.js';
import { CRC_GROUP_BLOCKS, encodeCrcs, encodeMeta, keys, type ObjectMeta } from './index-keys.js';
import { checkRange } from './object-id.js';
import type { Ost } from './ost.js';
import { readVerifiedBlock } from './ost-read.js';

export interface WritePiece {
  data: Buffer;
  /** crc32c the sender computed for this piece, checked before the bytes are written. */
  crc?: number;
  /**
   * Present when `data` may be written as it is (no staging copy): called once
   * nothing reads it any more, so its buffer can be reused.
   */
  release?: () => void;
}

export interface WriteParams {
  objectId: string;
  poolId: number;
  pg: number;
  offset: number;
  length: number;
  declaredCrc: number;
  truncate: boolean;
}

function noSpace(err: unknown): unknown {
  return (err as NodeJS.ErrnoException).code === 'ENOSPC'
    ? new StripeError('OBJ_NO_SPACE', 'the OST disk is full')
    : err;
}

export async function writeObject(
  ost: Ost,
  p: WriteParams,
  pieces: AsyncIterable<WritePiece>,
): Promise<{ objectSize: number; version: number }> {
  checkRange(p.offset, p.length);
  const release = await ost.locks.acquire(p.objectId, true);
  let fh: FileHandle | undefined;
  let direct: FileHandle | undefined;
  let old: ObjectMeta | undefined;
  let writer: FileWriter | undefined;
  try {
    old = await ost.getMeta(p.objectId);
    const oldSize = old?.size ?? 0;
    const end = p.offset + p.length;
    const newSize = p.truncate ? end : Math.max(oldSize, end);
    if (newSize > oldSize && ost.usedBytes + (newSize - oldSize) > ost.capacityBytes) {
      throw new StripeError(
        'OBJ_NO_SPACE',
        `${ost.name} is full (${ost.usedBytes} of ${ost.capacityBytes} bytes used)`,
      );
    }
    fh = await open(ost.pathOf(p.objectId), constants.O_RDWR | constants.O_CREAT, 0o644);
    if (ost.directIo && p.length >= ost.blockBytes)
      direct = await open(ost.pathOf(p.objectId), constants.O_WRONLY | constants.O_DIRECT);
    const B = ost.blockBytes;
    const start = Math.min(p.offset, oldSize);
    const builder = new BlockCrcBuilder(B, Math.floor(start / B));
    const blockCache = new Map<number, Buffer>();
    const oldBlock = (index: number): Promise<Buffer> =>
      readVerifiedBlock(ost, fh!, p.objectId, index, oldSize, blockCache);
    if (start % B !== 0)
      builder.addBytes((await oldBlock(Math.floor(start / B))).subarray(0, start % B), false);
    // The old bytes after the write's end must be read (and verified) before the data overwrites their block.
    const keepsTail = !p.truncate && end < oldSize && end % B !== 0;
    const tailBlock = keepsTail ? await oldBlock(Math.floor(end / B)) : undefined;
    if (p.offset > oldSize) {
      await fh.truncate(oldSize); // bytes past the old size may be crash debris: holes must read as zeros
      builder.addZeros(p.offset - oldSize);
    }
    const fileWriter = new FileWriter(fh, direct);
    writer = fileWriter;
    let received = 0;
    for await (const piece of pieces) {
      if (received + piece.data.length > p.length) {
        piece.release?.();
        throw new StripeError('REQ_INVALID', 'more data than the header declared');
      }
      const crc = builder.addBytes(piece.data, true);
      if (piece.crc !== undefined && crc !== piece.crc) {
        piece.release?.();
        throw new StripeError(
          'OBJ_WRITE_CHECKSUM',
          `piece at ${p.offset + received} of ${p.objectId} arrived corrupt`,
        );
      }
      if (piece.release) await fileWriter.appendOwned(piece.data, p.offset + received, piece.release);
      else await fileWriter.append(piece.data, p.offset + received);
      received += piece.data.length;
    }
    try {
      await fileWriter.finish();
    } finally {
      ost.directWriteBytes += fileWriter.directBytes;
      ost.pagedWriteBytes += fileWriter.pagedBytes;
    }
    if (received !== p.length)
      throw new StripeError('REQ_INVALID', `got ${received} of ${p.length} declared bytes`);
    if (p.length > 0 && builder.dataCrc32c !== p.declaredCrc >>> 0) {
      throw new StripeError(
        'OBJ_WRITE_CHECKSUM',
        `crc32c of the data of ${p.objectId} does not match the declared one`,
      );
    }
    if (tailBlock) builder.addBytes(tailBlock.subarray(end % B), false);
    if (newSize < oldSize) await fh.truncate(newSize);
    const meta: ObjectMeta = {
      size: newSize,
      version: (old?.version ?? 0) + 1,
      mtimeMs: Date.now(),
      poolId: p.poolId,
      pg: p.pg,
    };
    await commit(ost, p.objectId, old, meta, builder.firstBlock, builder.finish());
    ost.usedBytes += newSize - oldSize;
    if (!old) ost.objectCount++;
    return { objectSize: newSize, version: meta.version };
  } catch (err) {
    // No write may land after the cleanup below (or after the file is closed).
    await writer?.abandon().catch(() => undefined);
    if (fh && !old) {
      ost.readHandles.drop(ost.pathOf(p.objectId));
      // Best-effort cleanup of a failed first write: the caller gets the write's own error, and
      // open() removes the files the index does not know.
      await rm(ost.pathOf(p.objectId), { force: true }).catch(() => undefined);
    } else if (fh && old) {
      // Best-effort: the index still holds the old size, so a longer file reads as before.
      await fh.truncate(old.size).catch(() => undefined);
    }
    throw noSpace(err);
  } finally {
    // Closing after the write settled: a close error cannot change what was acknowledged.
    await direct?.close().catch(() => undefined);
    // The same for the page-cache handle.
    await fh?.close().catch(() => undefined);
    release();
  }
}

/** Writes meta, the touched crc groups (trimmed to the new size) and the PG entry in one batch. */
async function commit(
  ost: Ost,
  objectId: string,
  old: ObjectMeta | undefined,
  meta: ObjectMeta,
  firstBlock: number,
  crcs: Uint32Array,
): Promise<void> {
  const B = ost.blockBytes;
  const blocksTotal = Math.ceil(meta.size / B);
  const oldBlocks = Math.ceil((old?.size ?? 0) / B);
  const lastTouched = firstBlock + crcs.length - 1;
  const firstGroup = Math.floor(firstBlock / CRC_GROUP_BLOCKS);
  const lastGroup = Math.floor(Math.max(lastTouched, blocksTotal - 1, 0) / CRC_GROUP_BLOCKS);
  // A new object has no crc groups yet (delete removes them with the meta): nothing to merge.
  const existing = old
    ? await ost.blockCrcs(objectId, firstGroup * CRC_GROUP_BLOCKS, lastGroup * CRC_GROUP_BLOCKS)
    : new Map<number, Uint32Array>();
  const batch = ost.db.batch();
  const written = new Map<number, Uint32Array>();
  batch.put(keys.meta(objectId), Buffer.from(encodeMeta(meta)));
  if (old && (old.poolId !== meta.poolId || old.pg !== meta.pg))
    batch.del(keys.pgEntry(old.poolId, old.pg, objectId));
  batch.put(keys.pgEntry(meta.poolId, meta.pg, objectId), Buffer.alloc(0));
  for (let g = firstGroup; g <= lastGroup; g++) {
    const groupStart = g * CRC_GROUP_BLOCKS;
    const length = Math.min(CRC_GROUP_BLOCKS, blocksTotal - groupStart);
    if (length <= 0) break;
    const group = new Uint32Array(length);
    const prior = existing.get(g);
    if (prior) group.set(prior.subarray(0, length));
    for (let b = Math.max(firstBlock, groupStart); b <= Math.min(lastTouched, groupStart + length - 1); b++) {
      group[b - groupStart] = crcs[b - firstBlock]!;
    }
    batch.put(keys.crcGroup(objectId, g), encodeCrcs(group));
    written.set(g, group);
  }
  const oldLastGroup = Math.floor((oldBlocks - 1) / CRC_GROUP_BLOCKS);
  for (let g = Math.max(Math.ceil(blocksTotal / CRC_GROUP_BLOCKS), 0); g <= oldLastGroup; g++) {
    batch.del(keys.crcGroup(objectId, g));
  }
  ost.indexCache.changed(objectId);
  await batch.write();
  ost.indexCache.remember(objectId, meta, written);
}
