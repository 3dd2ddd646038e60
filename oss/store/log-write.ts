// WriteChunk on one OST for an object kept in the segment log
// (segment-log.ts): the object's next version is built whole in one aligned
// buffer (its kept old bytes, zeros of a gap, the new data), checked as a file
// write is (each piece against its crc before it is taken, the partial blocks
// it keeps verified, the whole against the declared crc), and appended as a
// new record in the log's next round, which commits its index change in the
// round's one batch. Nothing is written before every check passed, and the
// old record stays the object's until that batch: a write is whole or not at
// all, even across a crash.

import { crc32c } from '../../common/checksum.js';
import { StripeError } from '../../common/errors.js';
import { dataBuffers } from '../buffers.js';
import { BlockCrcBuilder, zeroCrc } from './block-crc.js';
import type { ObjectMeta, WriteParams, WritePiece, WriteResult } from './object-store.js';
import type { Ost } from './ost.js';
import type { StoredMeta } from './ost-index.js';
import { LOG_ALIGN_BYTES } from './segment-log.js';
import { checkReceived, nextVersion, receive, writtenStamps } from './write.js';

export async function writeLogged(
  ost: Ost,
  p: WriteParams,
  pieces: AsyncIterable<WritePiece>,
  old: StoredMeta | undefined,
  newSize: number,
): Promise<WriteResult> {
  const B = ost.blockBytes;
  const oldSize = old?.size ?? 0;
  const end = p.offset + p.length;
  const recordBytes = Math.ceil(newSize / LOG_ALIGN_BYTES) * LOG_ALIGN_BYTES;
  const record = dataBuffers.take();
  try {
    if (recordBytes > record.length)
      throw new Error(`a log record of ${recordBytes} bytes outgrows its buffer`);
    if (old?.log && oldSize > 0) await ost.log.read(old.log, record);
    const start = Math.min(p.offset, oldSize);
    const builder = new BlockCrcBuilder(B, Math.floor(start / B));
    if (start % B !== 0) {
      const head = Math.floor(start / B);
      await verifyKept(ost, p.objectId, record, head, oldSize);
      builder.addBytes(record.subarray(head * B, start), false);
    }
    // The old bytes after the write's end are verified before the data lands on their block.
    const keepsTail = !p.truncate && end < oldSize && end % B !== 0;
    if (keepsTail) await verifyKept(ost, p.objectId, record, Math.floor(end / B), oldSize);
    // Past what is kept of the old version: zeros (a gap, a truncated end, the record's padding).
    record.fill(0, Math.min(oldSize, newSize), recordBytes);
    if (p.offset > oldSize) builder.addZeros(p.offset - oldSize);
    const received = await receive(p, pieces, builder, (piece, at) => {
      piece.data.copy(record, at);
      piece.release?.();
    });
    checkReceived(p, received, builder);
    if (keepsTail)
      builder.addBytes(record.subarray(end, Math.min(oldSize, (Math.floor(end / B) + 1) * B)), false);
    return await commitLogged(ost, p, old, newSize, builder, record, recordBytes);
  } finally {
    dataBuffers.give(record);
  }
}

/** Checks a block of the old version kept in part, as its record holds it, against its stored crc. */
async function verifyKept(ost: Ost, objectId: string, record: Buffer, block: number, oldSize: number) {
  const B = ost.blockBytes;
  const bytes = record.subarray(block * B, Math.min(oldSize, (block + 1) * B));
  const stored = (await ost.blockCrcs(objectId, block, block)).crcOf(block) ?? zeroCrc(bytes.length, B);
  if (crc32c(bytes) !== stored)
    throw new StripeError(
      'OBJ_CHECKSUM',
      `block ${block} of ${objectId} on ${ost.name} failed its checksum`,
      {
        objectId,
        block,
        detectedBy: 'oss',
      },
    );
}

/** Appends the record in the log's next round, with the write's index change in that round's batch. */
async function commitLogged(
  ost: Ost,
  p: WriteParams,
  old: StoredMeta | undefined,
  newSize: number,
  builder: BlockCrcBuilder,
  record: Buffer,
  recordBytes: number,
): Promise<WriteResult> {
  const meta: ObjectMeta = {
    size: newSize,
    version: nextVersion(old, p),
    mtimeMs: Date.now(),
    poolId: p.poolId,
    pg: p.pg,
  };
  // An object an fsync failed for is durable again once every byte of it was written again.
  const rewritten = ost.rewrittenAfter(p.objectId, p.offset, p.offset + p.length);
  const whole = rewritten !== undefined && rewritten >= newSize;
  const prepared = await ost.index.prepareWrite(
    p.objectId,
    old,
    meta,
    builder.firstBlock,
    builder.finish(),
    writtenStamps(p, ost.blockBytes),
    whole,
  );
  const outcome = await ost.log.submit({
    objectId: p.objectId,
    record,
    bytes: recordBytes,
    sync: p.sync === true,
    faultSite: true,
    prepared,
    ...(old?.log ? { replaces: old.log } : {}),
  });
  if (rewritten !== undefined) ost.noteRewritten(p.objectId, whole ? undefined : rewritten);
  ost.usedBytes += newSize - (old?.size ?? 0);
  if (!old) ost.objectCount++;
  // After the commit: a whole rewrite of an object an fsync failed for must not clear this failure's mark.
  if (outcome.fsyncFailure !== undefined) await ost.markUnsynced(p.objectId);
  const durable = p.sync === true && outcome.fsyncFailure === undefined && !ost.isUnsynced(p.objectId);
  return { objectSize: newSize, version: meta.version, ...(p.sync ? { durable } : {}) };
}
