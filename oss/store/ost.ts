// One OST, the real ObjectStore: a folder with object files
// (objects/<fanout>/<id>) and a classic-level index (index/, see
// ost-index.ts). The index is the truth: an object exists when its meta
// record does; a data file without one is debris from a crash before the
// write was committed and is removed at open. With `smallObjectBytes`, objects
// that small live as records in a segment log (log/, segment-log.ts) instead
// of files of their own; one that grows past it moves to a file. Objects
// already in the log stay readable (and move to files when written) with the
// setting off again.
import {
  constants,
  type FileHandle,
  mkdir,
  open,
  readdir,
  readFile,
  rm,
  statfs,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { BUFFER_ALIGN_BYTES, isAligned } from '../../common/bulk/buffer-pool.js';
import { StripeError } from '../../common/errors.js';
import { LIMITS } from '../../common/limits.js';
import { DATA_BUFFER_BYTES, dataBuffers } from '../buffers.js';
import { LOG_COMPACT_BYTES_PER_SEC, LOG_DEAD_SHARE_MAX, LOG_SEGMENT_BYTES } from '../limits.js';
import { objectPath } from '../object-id.js';
import { GroupSync } from './group-sync.js';
import { LogCompactor } from './log-compact.js';
import { ObjectLocks } from './object-lock.js';
import type {
  BlockStamps,
  ListPage,
  ObjectMeta,
  ObjectStore,
  ReadPiece,
  StoredObject,
  StoreFaultSites,
  StoreUsage,
  WriteParams,
  WritePiece,
  WriteResult,
} from './object-store.js';
import { type BlockCrcs, OstIndex, publicMeta, type StoredMeta } from './ost-index.js';
import { readSpans } from './read.js';
import { ReadHandles } from './read-handles.js';
import { SegmentLog } from './segment-log.js';
import { writeObject } from './write.js';

export interface OstOptions {
  dir: string;
  name: string;
  /** Quota in bytes; 0: the free space of the disk at open plus what is stored. */
  capacityBytes: number;
  fsync: boolean;
  blockBytes?: number;
  /** Write whole aligned blocks with O_DIRECT when the file system supports it. */
  directIo?: boolean;
  /** The OST's fault knobs (oss/faults.ts); none by default. */
  faults?: StoreFaultSites;
  /** Objects of at most this many bytes are kept in the segment log (segment-log.ts); 0: none. */
  smallObjectBytes?: number;
  /** The log's segment size, dead share bound and compaction rate (oss/limits.ts by default; tests shrink them). */
  logSegmentBytes?: number;
  logDeadShareMax?: number;
  logCompactBytesPerSec?: number;
}

/** The largest object the log may keep: its record fits one data buffer and one read span. */
export const SMALL_OBJECT_BYTES_MAX = DATA_BUFFER_BYTES;

const NO_FAULTS: StoreFaultSites = { dataWritten: () => undefined, beforeFsync: () => undefined };

const ID_FILE = 'ost-id.json';
/** Fan-out folders under objects/ (see object-id.ts), created at open so writes never mkdir. */
const FANOUT_FOLDERS = 256;

export class Ost implements ObjectStore {
  readonly objectsDir: string;
  readonly locks = new ObjectLocks();
  /** Open read handles shared by reads of the same object (read-handles.ts). */
  readonly readHandles = new ReadHandles();
  /**
   * Objects the MDS says missed writes and await their repair (MarkStale): reads of them fail with
   * OBJ_STALE until a repair rewrites them or they are deleted, or a list from the MDS made after
   * the mark leaves them out (keepStaleOnly). In memory: the MDS sends the list again whenever this
   * OST comes back up. Each with when it was marked (the caller's monotonic ms, 0 when not given).
   */
  private readonly staleObjects = new Map<string, number>();
  /**
   * Objects an fsync failed for, each with how far from offset 0 its bytes were written again since:
   * their flushes fail (OBJ_NOT_DURABLE) until that reaches the size. Kept in the index too.
   */
  private unsynced = new Map<string, number>();
  readonly faults: StoreFaultSites;
  readonly blockBytes: number;
  usedBytes = 0;
  objectCount = 0;
  private capacityBytes = 0;
  /** Aligned writes bypass the page cache (O_DIRECT): asked for and supported by the file system. */
  directIo = false;
  /** Data bytes written with O_DIRECT and through the page cache since open. */
  directWriteBytes = 0;
  pagedWriteBytes = 0;
  id: number | undefined;
  private closed = false;
  /** Small objects' records (segment-log.ts); its files exist once it took a record. */
  log!: SegmentLog;
  private compactor!: LogCompactor;
  readonly smallObjectBytes: number;
  /**
   * Durability requests of files, grouped per object (group-sync.ts): concurrent sync writes and
   * flushes of one object share its fdatasyncs, and of the whole OST its index log's synced writes.
   */
  private readonly fileSyncs = new GroupSync<string, FileHandle>((objectId, fh) =>
    this.fdatasyncFile(objectId, fh),
  );
  private readonly indexSyncs = new GroupSync<true>(() => this.index.syncLog());

  private constructor(
    readonly opts: OstOptions,
    readonly index: OstIndex,
    blockBytes: number,
  ) {
    this.objectsDir = join(opts.dir, 'objects');
    this.blockBytes = blockBytes;
    this.faults = opts.faults ?? NO_FAULTS;
    this.smallObjectBytes = opts.smallObjectBytes ?? 0;
    if (
      !Number.isInteger(this.smallObjectBytes) ||
      this.smallObjectBytes < 0 ||
      this.smallObjectBytes > SMALL_OBJECT_BYTES_MAX
    )
      throw new Error(`small object bound ${this.smallObjectBytes} is not 0..${SMALL_OBJECT_BYTES_MAX}`);
  }

  get name(): string {
    return this.opts.name;
  }

  static async open(opts: OstOptions): Promise<Ost> {
    const blockBytes = opts.blockBytes ?? LIMITS.checksumBlockBytes;
    // reads fetch 1 MiB of whole blocks at a time
    if ((1024 * 1024) % blockBytes !== 0) throw new Error(`block size ${blockBytes} must divide 1 MiB`);
    // Side by side: one after another the 256 mkdirs took about 0.3 s per OST start.
    await mkdir(join(opts.dir, 'objects'), { recursive: true });
    await Promise.all(
      Array.from({ length: FANOUT_FOLDERS }, (_, fanout) =>
        mkdir(join(opts.dir, 'objects', fanout.toString(16).padStart(2, '0')), { recursive: true }),
      ),
    );
    const ost = new Ost(opts, await OstIndex.open(join(opts.dir, 'index'), blockBytes), blockBytes);
    ost.id = await readPersistedId(opts.dir);
    ost.directIo = opts.directIo === true && (await directIoWorks(opts.dir));
    for (const id of await ost.index.unsynced()) ost.unsynced.set(id, 0);
    ost.log = await SegmentLog.open(
      {
        dir: join(opts.dir, 'log'),
        directIo: ost.directIo,
        fsync: opts.fsync,
        segmentBytes: opts.logSegmentBytes ?? LOG_SEGMENT_BYTES,
        faults: ost.faults,
        lostSync: async (ids) => {
          for (const id of ids) await ost.markUnsynced(id);
        },
      },
      ost.index,
    );
    ost.compactor = new LogCompactor(ost, {
      deadShareMax: opts.logDeadShareMax ?? LOG_DEAD_SHARE_MAX,
      bytesPerSec: opts.logCompactBytesPerSec ?? LOG_COMPACT_BYTES_PER_SEC,
    });
    await ost.log.replay();
    await ost.scan();
    await ost.log.start();
    await ost.refreshCapacity();
    return ost;
  }

  /** Counts objects and bytes, hands the log its live records, and removes data files no meta record owns. */
  private async scan(): Promise<void> {
    const known = new Set<string>();
    for await (const { objectId, meta } of this.index.storedObjects()) {
      // The file of an object in the log is debris of a move to a file that never committed.
      if (meta.log) this.log.adopt(objectId, meta.log);
      else known.add(objectId);
      this.usedBytes += meta.size;
      this.objectCount++;
    }
    for (const fanout of await readdir(this.objectsDir)) {
      for (const file of await readdir(join(this.objectsDir, fanout))) {
        // An orphan that cannot be removed now is tried again at the next open; it is never read.
        if (!known.has(file)) await unlink(join(this.objectsDir, fanout, file)).catch(() => undefined);
      }
    }
  }

  usage(): StoreUsage {
    const log = this.log.usage();
    return {
      usedBytes: this.usedBytes,
      capacityBytes: this.capacityBytes,
      objectCount: this.objectCount,
      directIo: this.directIo,
      directWriteBytes: this.directWriteBytes + log.directBytes,
      pagedWriteBytes: this.pagedWriteBytes + log.pagedBytes,
      syncs: {
        fileRequests: this.fileSyncs.requests,
        fileFsyncs: this.fileSyncs.runs,
        indexRequests: this.indexSyncs.requests,
        indexSyncs: this.indexSyncs.runs,
      },
      handles: { ...this.readHandles.counts },
      log,
    };
  }

  /** Whether the write that leaves the object `newSize` bytes long goes to the log: small, and not in a file already. */
  keepsInLog(old: StoredMeta | undefined, newSize: number): boolean {
    if (this.smallObjectBytes === 0 || newSize > this.smallObjectBytes) return false;
    return old === undefined || old.log !== undefined;
  }

  async refreshCapacity(): Promise<void> {
    if (this.opts.capacityBytes > 0) {
      this.capacityBytes = this.opts.capacityBytes;
      return;
    }
    const fsStats = await statfs(this.opts.dir);
    this.capacityBytes = this.usedBytes + fsStats.bavail * fsStats.bsize;
  }

  /** Whether `bytes` more fit under the capacity. */
  fits(bytes: number): boolean {
    return this.usedBytes + bytes <= this.capacityBytes;
  }

  async assignId(id: number): Promise<void> {
    if (this.id === id) return;
    await writeFile(join(this.opts.dir, ID_FILE), JSON.stringify({ id }));
    this.id = id;
  }

  pathOf(objectId: string): string {
    return objectPath(this.objectsDir, objectId);
  }

  async stat(objectId: string): Promise<ObjectMeta | undefined> {
    const meta = await this.storedMeta(objectId);
    return meta && publicMeta(meta);
  }

  /** The meta record with the object's place in the log, when it is there. */
  storedMeta(objectId: string): Promise<StoredMeta | undefined> {
    this.assertOpen();
    return this.index.meta(objectId);
  }

  async requireMeta(objectId: string): Promise<StoredMeta> {
    const meta = await this.storedMeta(objectId);
    if (!meta) throw new StripeError('OBJ_NOT_FOUND', `object ${objectId} not found on ${this.name}`);
    return meta;
  }

  /** Expected crcs of blocks [firstBlock, lastBlock]; blocks never written are holes (zeros). */
  blockCrcs(objectId: string, firstBlock: number, lastBlock: number): Promise<BlockCrcs> {
    return this.index.blockCrcs(objectId, firstBlock, lastBlock);
  }

  write(params: WriteParams, pieces: AsyncIterable<WritePiece>): Promise<WriteResult> {
    this.assertOpen();
    return writeObject(this, params, pieces);
  }

  readSpans(...args: Parameters<ObjectStore['readSpans']>): AsyncGenerator<ReadPiece[]> {
    return readSpans(this, ...args);
  }

  async blockStamps(objectId: string, offset: number, length: number): Promise<BlockStamps | undefined> {
    this.assertOpen();
    const release = await this.locks.acquire(objectId, false);
    try {
      const meta = await this.index.meta(objectId);
      if (!meta) return undefined;
      const end = Math.min(meta.size, offset + length);
      if (end <= offset) return [];
      const first = Math.floor(offset / this.blockBytes);
      const last = Math.floor((end - 1) / this.blockBytes);
      const held = await this.index.blockCrcs(objectId, first, last);
      const stamps: number[] = [];
      for (let b = first; b <= last; b++) stamps.push(held.stampOf(b));
      return stamps;
    } finally {
      release();
    }
  }

  async delete(objectId: string): Promise<boolean> {
    const release = await this.locks.acquire(objectId, true);
    this.staleObjects.delete(objectId);
    try {
      const meta = await this.index.meta(objectId);
      if (!meta) return false;
      await this.index.remove(objectId, meta);
      this.unsynced.delete(objectId);
      if (meta.log) this.log.release(objectId, meta.log);
      else {
        this.readHandles.drop(this.pathOf(objectId));
        await rm(this.pathOf(objectId), { force: true });
      }
      this.usedBytes -= meta.size;
      this.objectCount--;
      return true;
    } finally {
      release();
    }
  }

  list(poolId: number, pg: number, cursor: string, limit: number): Promise<ListPage> {
    this.assertOpen();
    return this.index.listPg(poolId, pg, cursor, limit);
  }

  objects(): AsyncIterable<StoredObject> {
    this.assertOpen();
    return this.index.objects();
  }

  async locate(objectId: string): Promise<{ path: string; offset: number } | undefined> {
    const meta = await this.storedMeta(objectId);
    if (!meta) return undefined;
    if (!meta.log) return { path: this.pathOf(objectId), offset: 0 };
    return { path: this.log.pathOf(meta.log[0]), offset: meta.log[1] };
  }

  markStale(objectIds: readonly string[], atMs = 0): void {
    for (const id of objectIds) this.staleObjects.set(id, Math.max(atMs, this.staleObjects.get(id) ?? 0));
  }

  keepStaleOnly(keep: ReadonlySet<string>, markedUpToMs: number): void {
    for (const [id, atMs] of this.staleObjects)
      if (atMs <= markedUpToMs && !keep.has(id)) this.staleObjects.delete(id);
  }

  clearStale(objectId: string): void {
    this.staleObjects.delete(objectId);
  }

  isStale(objectId: string): boolean {
    return this.staleObjects.has(objectId);
  }

  /** For an object an fsync failed for: how far from 0 its bytes are written again once a write of [offset, end) commits. */
  rewrittenAfter(objectId: string, offset: number, end: number): number | undefined {
    const done = this.unsynced.get(objectId);
    if (done === undefined) return undefined;
    return offset <= done ? Math.max(done, end) : done;
  }

  /** After that write committed: `upTo` undefined when it left every byte written again (the mark went with it). */
  noteRewritten(objectId: string, upTo: number | undefined): void {
    if (upTo === undefined) this.unsynced.delete(objectId);
    else this.unsynced.set(objectId, upTo);
  }

  /**
   * Makes every acknowledged write of the object durable: fsync its data, then the index log.
   * Succeeds only after both: a file that will not open or an fsync that fails is OBJ_NOT_DURABLE,
   * never a flush skipped. A failed fsync marks the object (markUnsynced): Linux reports a
   * writeback error once and may have dropped the pages, so a later fsync that succeeds proves
   * nothing of them; its flushes fail until every byte was written again.
   */
  async flush(objectId: string): Promise<void> {
    const meta = await this.requireMeta(objectId);
    if (!this.opts.fsync) return;
    if (this.unsynced.has(objectId))
      throw notDurable(
        this.name,
        objectId,
        'an earlier fsync of it failed; write it whole again or delete it',
      );
    if (meta.log && (await this.flushLogged(objectId))) return;
    let fh: FileHandle;
    try {
      fh = await open(this.pathOf(objectId), 'r');
    } catch (err) {
      // Deleted since the lookup: nothing left to flush, as if the delete had come first.
      if (!(await this.stat(objectId)))
        throw new StripeError('OBJ_NOT_FOUND', `object ${objectId} not found on ${this.name}`);
      throw notDurable(this.name, objectId, 'its file would not open', err);
    }
    try {
      this.faults.beforeFsync(objectId);
      await this.fileSyncs.run(objectId, fh);
    } catch (err) {
      await this.markUnsynced(objectId);
      throw notDurable(this.name, objectId, 'fsync failed', err);
    } finally {
      await fh.close();
    }
    try {
      await this.indexSyncs.run(true, undefined);
    } catch (err) {
      throw notDurable(this.name, objectId, 'the index log did not sync', err);
    }
  }

  /**
   * A sync write into the object's file, committed (unsynced) and out of the object's lock, made
   * durable through `fh`, the write's descriptor of the file: its fdatasync (shared with the
   * object's other sync writes and flushes in flight), then the index log's synced write (shared
   * OST-wide). Answers whether that held; a failed fsync marks the object (markUnsynced). A failure
   * of the index log's sync is thrown, as its synced batch was.
   */
  async syncWritten(objectId: string, fh: FileHandle): Promise<boolean> {
    if (!this.opts.fsync) return !this.unsynced.has(objectId);
    try {
      this.faults.beforeFsync(objectId);
      await this.fileSyncs.run(objectId, fh);
    } catch {
      await this.markUnsynced(objectId);
      return false;
    }
    await this.indexSyncs.run(true, undefined);
    return !this.unsynced.has(objectId);
  }

  /** One fdatasync of the object's file: it covers every write that reached the file before it began. */
  private async fdatasyncFile(_objectId: string, fh: FileHandle): Promise<void> {
    await this.faults.slowFsync?.();
    await fh.datasync();
  }

  /**
   * flush of an object in the log: its segment fdatasynced up to its record (unless already), and
   * the index log; false when it is in a file by now (written past the log's bound since).
   */
  private async flushLogged(objectId: string): Promise<boolean> {
    const release = await this.locks.acquire(objectId, false);
    try {
      const meta = await this.requireMeta(objectId);
      if (!meta.log) return false;
      const outcome = await this.log.syncThrough(objectId, meta.log);
      if (outcome.fsyncFailure !== undefined) {
        await this.markUnsynced(objectId);
        throw notDurable(this.name, objectId, 'fsync failed', outcome.fsyncFailure);
      }
      return true;
    } finally {
      release();
    }
  }

  /** Whether flushes of the object fail because an fsync of it failed (until it is written whole again). */
  isUnsynced(objectId: string): boolean {
    return this.unsynced.has(objectId);
  }

  /** An fsync of the object failed: its flushes fail until every byte of it was written again (kept in the index too). */
  async markUnsynced(objectId: string): Promise<void> {
    this.unsynced.set(objectId, 0);
    // The mark in memory holds until a restart when the index takes no more writes.
    await this.index.markUnsynced(objectId).catch(() => undefined);
  }

  private assertOpen(): void {
    if (this.closed) throw new StripeError('REQ_UNAVAILABLE', `${this.name} is closed`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.compactor.stop();
    await this.fileSyncs.idle();
    await this.indexSyncs.idle();
    await this.log.close();
    await this.readHandles.closeAll();
    await this.index.close();
  }
}

function notDurable(ost: string, objectId: string, why: string, cause?: unknown): StripeError {
  const detail = cause === undefined ? '' : ` (${(cause as Error).message})`;
  return new StripeError('OBJ_NOT_DURABLE', `${objectId} on ${ost} is not flushed: ${why}${detail}`, {
    objectId,
    ost,
  });
}

/** One aligned O_DIRECT write to a scratch file: tmpfs and some others refuse it. */
async function directIoWorks(dir: string): Promise<boolean> {
  const probe = join(dir, '.direct-io-probe');
  const buf = dataBuffers.take();
  try {
    if (!isAligned(buf)) return false;
    const fh = await open(probe, constants.O_CREAT | constants.O_WRONLY | constants.O_DIRECT, 0o644);
    try {
      await fh.write(buf, 0, BUFFER_ALIGN_BYTES, 0);
      return true;
    } finally {
      await fh.close();
    }
  } catch {
    return false;
  } finally {
    dataBuffers.give(buf);
    // The probe file is scratch: one left behind is harmless.
    await rm(probe, { force: true }).catch(() => undefined);
  }
}

async function readPersistedId(dir: string): Promise<number | undefined> {
  try {
    const parsed = JSON.parse(await readFile(join(dir, ID_FILE), 'utf8')) as { id?: unknown };
    return typeof parsed.id === 'number' && Number.isInteger(parsed.id) && parsed.id >= 0
      ? parsed.id
      : undefined;
  } catch {
    return undefined;
  }
}
