// WriteChunk on one OST. Order: verify each piece's crc before its bytes
// touch the file, write data, check the declared crc of the whole chunk, then
// commit meta + block crcs in one index batch. A crash before the batch (the
// fault site dataWritten) leaves the previous version: a new object is then
// missing, never wrong (debris is removed at open); blocks an overwrite
// reached fail their checksum on read, so neither version is served from
// them (test/oss/crash-sites.test.ts). A sync write is then made durable
// out of the lock, its fdatasync shared with the object's other sync writes
// and flushes in flight (Ost.syncWritten, group-sync.ts).
import { constants, type FileHandle, rm } from 'node:fs/promises';
import { StripeError } from '../../common/errors.js';
import { dataBuffers } from '../buffers.js';
import { checkRange, validateObjectId } from '../object-id.js';
import { BlockCrcBuilder } from './block-crc.js';
import { FileWriter } from './file-writer.js';
import { writeLogged } from './log-write.js';
import type { ObjectMeta, WriteParams, WritePiece, WriteResult } from './object-store.js';
import type { Ost } from './ost.js';
import type { LogLocation, StoredMeta, WrittenStamps } from './ost-index.js';
import { readVerifiedBlock } from './read.js';

function noSpace(err: unknown): unknown {
  return (err as NodeJS.ErrnoException).code === 'ENOSPC'
    ? new StripeError('OBJ_NO_SPACE', 'the OST disk is full')
    : err;
}

export async function writeObject(
  ost: Ost,
  p: WriteParams,
  pieces: AsyncIterable<WritePiece>,
): Promise<WriteResult> {
  checkRange(p.offset, p.length);
  validateObjectId(p.objectId);
  let written: { result: WriteResult; kept?: Held };
  const release = await ost.locks.acquire(p.objectId, true);
  try {
    const old = await refuseOlderCopy(ost, p, await ost.storedMeta(p.objectId));
    const oldSize = old?.size ?? 0;
    const end = p.offset + p.length;
    const newSize = p.truncate ? end : Math.max(oldSize, end);
    if (newSize > oldSize && !ost.fits(newSize - oldSize)) {
      const { usedBytes, capacityBytes } = ost.usage();
      throw new StripeError(
        'OBJ_NO_SPACE',
        `${ost.name} is full (${usedBytes} of ${capacityBytes} bytes used)`,
      );
    }
    if (ost.keepsInLog(old, newSize)) return await writeLogged(ost, p, pieces, old, newSize);
    written = await writeToFile(ost, p, pieces, old, newSize);
  } catch (err) {
    throw noSpace(err);
  } finally {
    release();
  }
  // Made durable out of the lock: the object's next writes go on meanwhile, and concurrent sync
  // writes of it share one fdatasync (Ost.syncWritten).
  const { result, kept } = written;
  if (!kept) return result;
  try {
    return { ...result, durable: await ost.syncWritten(p.objectId, kept.fh) };
  } finally {
    kept.release();
  }
}

/** A handle from the OST's open handles (read-handles.ts), released once the write is done with it. */
type Held = { fh: FileHandle; release: () => void };

/**
 * The write into the object's own file. An object that was in the segment log (it grew past the
 * log's bound) gets its bytes copied into the file first; its meta record points at the file
 * once the write commits, and until then the file is debris the next open removes.
 */
async function writeToFile(
  ost: Ost,
  p: WriteParams,
  pieces: AsyncIterable<WritePiece>,
  old: StoredMeta | undefined,
  newSize: number,
): Promise<{ result: WriteResult; kept?: Held }> {
  let held: Held | undefined;
  let direct: Held | undefined;
  let kept = false;
  let writer: FileWriter | undefined;
  const oldSize = old?.size ?? 0;
  const end = p.offset + p.length;
  const path = ost.pathOf(p.objectId);
  try {
    // Shared handles: parallel writes into one object open its file once, not once each.
    held = await ost.readHandles.acquire(path, constants.O_RDWR | constants.O_CREAT, 0o644);
    const fh = held.fh;
    if (old?.log) await copyOutOfLog(ost, old.log, old.size, fh);
    if (ost.directIo && p.length >= ost.blockBytes)
      direct = await ost.readHandles.acquire(path, constants.O_WRONLY | constants.O_DIRECT);
    const B = ost.blockBytes;
    const start = Math.min(p.offset, oldSize);
    const builder = new BlockCrcBuilder(B, Math.floor(start / B));
    const blockCache = new Map<number, Buffer>();
    const oldBlock = (index: number): Promise<Buffer> =>
      readVerifiedBlock(ost, fh, p.objectId, index, oldSize, blockCache);
    if (start % B !== 0)
      builder.addBytes((await oldBlock(Math.floor(start / B))).subarray(0, start % B), false);
    // The old bytes after the write's end must be read (and verified) before the data overwrites their block.
    const keepsTail = !p.truncate && end < oldSize && end % B !== 0;
    const tailBlock = keepsTail ? await oldBlock(Math.floor(end / B)) : undefined;
    if (p.offset > oldSize) {
      await fh.truncate(oldSize); // bytes past the old size may be crash debris: holes must read as zeros
      builder.addZeros(p.offset - oldSize);
    }
    const fileWriter = new FileWriter(fh, direct?.fh);
    writer = fileWriter;
    const received = await receive(p, pieces, builder, (piece, at) =>
      piece.release
        ? fileWriter.appendOwned(piece.data, at, piece.release)
        : fileWriter.append(piece.data, at),
    );
    try {
      await fileWriter.finish();
    } finally {
      ost.directWriteBytes += fileWriter.directBytes;
      ost.pagedWriteBytes += fileWriter.pagedBytes;
    }
    checkReceived(p, received, builder);
    if (tailBlock) builder.addBytes(tailBlock.subarray(end % B), false);
    if (newSize < oldSize) await fh.truncate(newSize);
    const version = await commit(ost, p, old, newSize, builder);
    // A sync write's handle is held for its fdatasync, after the lock (writeObject).
    kept = p.sync === true;
    return { result: { objectSize: newSize, version }, ...(kept ? { kept: held } : {}) };
  } catch (err) {
    // No write may land after the cleanup (or after the file is closed).
    await writer?.abandon().catch(() => undefined);
    if (held) await undoFailedWrite(ost, p.objectId, held.fh, old);
    throw err;
  } finally {
    direct?.release();
    if (!kept) held?.release();
  }
}

/** After a failed write into the object's file: a new file removed, an old one cut back to its size. */
async function undoFailedWrite(
  ost: Ost,
  objectId: string,
  fh: FileHandle,
  old: StoredMeta | undefined,
): Promise<void> {
  if (!old || old.log) {
    ost.readHandles.drop(ost.pathOf(objectId));
    // Best-effort cleanup of a failed first write (or of a copy out of the log): the caller gets
    // the write's own error, and open() removes the files the index does not point at.
    await rm(ost.pathOf(objectId), { force: true }).catch(() => undefined);
  } else {
    // Best-effort: the index still holds the old size, so a longer file reads as before.
    await fh.truncate(old.size).catch(() => undefined);
  }
}

/** The object's bytes as its log record holds them, into its new file (the crcs in the index still vouch for them). */
async function copyOutOfLog(ost: Ost, location: LogLocation, size: number, fh: FileHandle): Promise<void> {
  const buf = dataBuffers.take();
  try {
    const record = await ost.log.read(location, buf);
    await fh.truncate(0);
    let done = 0;
    while (done < size) done += (await fh.write(record, done, size - done, done)).bytesWritten;
  } finally {
    dataBuffers.give(buf);
  }
}

/** All the declared bytes arrived, and their crc is the one declared. */
export function checkReceived(p: WriteParams, received: number, builder: BlockCrcBuilder): void {
  if (received !== p.length)
    throw new StripeError('REQ_INVALID', `got ${received} of ${p.length} declared bytes`);
  if (p.length > 0 && builder.dataCrc32c !== p.declaredCrc >>> 0) {
    throw new StripeError(
      'OBJ_WRITE_CHECKSUM',
      `crc32c of the data of ${p.objectId} does not match the declared one`,
    );
  }
}

/**
 * A recovery copy never lands on a newer copy: a client write reached the object after the copy's
 * source was read. Checked on the object's version, or block by block (guard 'blocks': a block
 * the copy touches that holds a newer stamp than the copy's for it).
 */
async function refuseOlderCopy(
  ost: Ost,
  p: WriteParams,
  old: StoredMeta | undefined,
): Promise<StoredMeta | undefined> {
  if (p.copyOf === undefined || !old) return old;
  if (p.guard === 'blocks') {
    const stamps = p.blockStamps ?? [];
    if (stamps.length === 0 || p.offset >= old.size) return old;
    const first = Math.floor(p.offset / ost.blockBytes);
    const held = await ost.blockCrcs(p.objectId, first, first + stamps.length - 1);
    const newer = stamps.findIndex((stamp, i) => held.stampOf(first + i) > stamp);
    if (newer < 0) return old;
    throw new StripeError(
      'OBJ_NEWER_COPY',
      `block ${first + newer} of ${p.objectId} on ${ost.name} holds a newer write (${held.stampOf(first + newer)}) than the copy's (${stamps[newer]})`,
      { objectId: p.objectId, block: first + newer },
    );
  }
  if (old.version <= p.copyOf) return old;
  throw new StripeError(
    'OBJ_NEWER_COPY',
    `${p.objectId} on ${ost.name} is at version ${old.version}, newer than the copy's source (${p.copyOf})`,
    { objectId: p.objectId, version: old.version, copyOf: p.copyOf },
  );
}

/** The version a committed write gives the object (see WriteVersion). */
export function nextVersion(old: ObjectMeta | undefined, p: WriteParams): number {
  const was = old?.version ?? 0;
  if (p.copyOf !== undefined) return Math.max(was, p.copyOf);
  if (p.stamp !== undefined && p.stamp > 0) return Math.max(was, p.stamp);
  return was + 1;
}

/**
 * The stamps the blocks a write touches take: a copy's, block by block as its source holds them;
 * a client write's own stamp for each; 0 (none known) for a write with neither.
 */
export function writtenStamps(p: WriteParams, blockBytes: number): WrittenStamps {
  const firstBlock = Math.floor(p.offset / blockBytes);
  if (p.length === 0) return { firstBlock, stamps: [] };
  const count = Math.floor((p.offset + p.length - 1) / blockBytes) - firstBlock + 1;
  if (p.blockStamps) {
    if (p.blockStamps.length !== count)
      throw new StripeError(
        'REQ_INVALID',
        `a copy of ${count} blocks of ${p.objectId} came with ${p.blockStamps.length} block stamps`,
      );
    return { firstBlock, stamps: p.blockStamps };
  }
  return { firstBlock, stamps: new Array<number>(count).fill(p.stamp ?? 0) };
}

/**
 * Checks each piece against its crc (checkPiece) before `take` has its bytes, at their place in
 * the object; returns the bytes received. The file and the log backends differ only in `take`.
 */
export async function receive(
  p: WriteParams,
  pieces: AsyncIterable<WritePiece>,
  builder: BlockCrcBuilder,
  take: (piece: WritePiece, at: number) => Promise<void> | void,
): Promise<number> {
  let received = 0;
  for await (const piece of pieces) {
    checkPiece(p, piece, received, builder);
    await take(piece, p.offset + received);
    received += piece.data.length;
  }
  return received;
}

/**
 * Checks a piece before its bytes are taken: it stays within the declared length, and its bytes
 * match its crc (they go into the block crcs on the way). A refused piece is released.
 */
function checkPiece(p: WriteParams, piece: WritePiece, received: number, builder: BlockCrcBuilder): void {
  let refusal: StripeError | undefined;
  if (received + piece.data.length > p.length)
    refusal = new StripeError('REQ_INVALID', 'more data than the header declared');
  else {
    const crc = builder.addBytes(piece.data, true);
    if (piece.crc !== undefined && crc !== piece.crc)
      refusal = new StripeError(
        'OBJ_WRITE_CHECKSUM',
        `piece at ${p.offset + received} of ${p.objectId} arrived corrupt`,
      );
  }
  if (!refusal) return;
  piece.release?.();
  throw refusal;
}

/**
 * The data is in the file: makes it the object's next version in one index batch; returns that
 * version. A sync write is made durable afterwards, out of the object's lock (Ost.syncWritten).
 */
async function commit(
  ost: Ost,
  p: WriteParams,
  old: StoredMeta | undefined,
  newSize: number,
  builder: BlockCrcBuilder,
): Promise<number> {
  const meta: ObjectMeta = {
    size: newSize,
    version: nextVersion(old, p),
    mtimeMs: Date.now(),
    poolId: p.poolId,
    pg: p.pg,
  };
  ost.faults.dataWritten(p.objectId);
  // An object an fsync failed for is durable again once every byte of it was written again.
  const rewritten = ost.rewrittenAfter(p.objectId, p.offset, p.offset + p.length);
  const whole = rewritten !== undefined && rewritten >= newSize;
  const stamps = writtenStamps(p, ost.blockBytes);
  await ost.index.commitWrite(p.objectId, old, meta, builder.firstBlock, builder.finish(), stamps, whole);
  if (rewritten !== undefined) ost.noteRewritten(p.objectId, whole ? undefined : rewritten);
  // An object that was in the segment log is in its file now: its record there is dead.
  if (old?.log) ost.log.release(p.objectId, old.log);
  ost.usedBytes += newSize - (old?.size ?? 0);
  if (!old) ost.objectCount++;
  return meta.version;
}
