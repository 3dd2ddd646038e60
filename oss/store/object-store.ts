// What the rest of the OSS may do with an OST's objects, and nothing more:
// the request layer (oss/ops.ts), recovery and scrub see an ObjectStore,
// never its files, its index database or the index's keys. The real backend
// is oss/store/ost.ts (object files plus a classic-level index, small objects
// optionally as records of a segment log); every
// backend must pass the conformance suite in test/oss/store-conformance.test.ts.
//
// Semantics every backend keeps:
// - An object is a byte array with a size, a version and the pool and PG it
//   was written under. Bytes never written below the size are zeros (holes).
// - A write is applied whole or not at all, checked against the crc32c the
//   sender declared (OBJ_WRITE_CHECKSUM). A client write carries its writer's
//   stamp and the version becomes the highest stamp applied (the same on every
//   copy that applied the same writes, in whatever order they arrived); a
//   write without one counts the version up by one. A recovery copy names its
//   source's version: it is refused (OBJ_NEWER_COPY) when the object already
//   holds a newer write, so a copy never overwrites newer bytes with older.
// - A read verifies every stored block before any of its bytes leave
//   (OBJ_CHECKSUM), and refuses an object marked stale (OBJ_STALE).
// - flush resolves only once every write acknowledged before it is durable
//   (OBJ_NOT_DURABLE otherwise). A write asked to `sync` is a write followed
//   by that flush in one request: `durable` says whether the flush part held
//   (the write itself is applied either way, as a write whose flush failed). Once making an object durable failed, its
//   flushes keep failing until every byte of it was written again (or it
//   was deleted): a later fsync succeeding says nothing of the pages lost.
// - A crash may lose writes not flushed, but never serves a write's bytes
//   as another version's, nor a write it did not commit as an object.

import type { BlockStamps } from '../../common/block-stamps.js';
import type { LogUsage } from './segment-log.js';

export type { LogUsage };

export interface ObjectMeta {
  size: number;
  version: number;
  mtimeMs: number;
  poolId: number;
  pg: number;
}

export interface StoredObject extends ObjectMeta {
  objectId: string;
}

export interface ListPage {
  objects: StoredObject[];
  /** The last id of this page when more follow; empty at the end. */
  nextCursor: string;
}

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

/** How a write moves the object's version (docs/ARCHITECTURE.md, "Versioned copies"). */
export interface WriteVersion {
  /** A client write: the writer's version stamp; the object's version becomes max(version, stamp). */
  stamp?: number;
  /** A recovery copy of a source at this version: refused (OBJ_NEWER_COPY) when the object's version is higher; the object takes it. */
  copyOf?: number;
  /**
   * A copy's block stamps, one per block the write touches (common/block-stamps.ts): the blocks take
   * them. With `guard: 'blocks'` the copy is refused (OBJ_NEWER_COPY) when a block it touches
   * holds a newer stamp than the copy's for it, instead of when the object's version is above
   * copyOf: a merge of a source into a copy that took client writes since (a filled chunk).
   */
  blockStamps?: readonly number[];
  guard?: 'object' | 'blocks';
}

export interface WriteParams extends WriteVersion {
  objectId: string;
  poolId: number;
  pg: number;
  offset: number;
  length: number;
  /** crc32c of all `length` bytes. */
  declaredCrc: number;
  /** Set the size to offset + length afterwards (else it only grows). */
  truncate: boolean;
  /** Make this write and every write acknowledged before it durable before answering (a flush after it). */
  sync?: boolean;
}

/** The stamps of a range's blocks (common/block-stamps.ts). */
export type { BlockStamps };

export interface WriteResult {
  objectSize: number;
  version: number;
  /** A `sync` write whose flush part held: every write acknowledged so far is durable. */
  durable?: boolean;
}

export interface ReadPiece {
  data: Buffer;
  crc: number;
  /** On a span's last piece: call once none of the span's pieces is used any more (its buffer is reused). */
  release?: () => void;
}

export interface StoreUsage {
  usedBytes: number;
  /** Quota, or the free space of the disk plus what is stored. */
  capacityBytes: number;
  objectCount: number;
  /** Aligned writes bypass the page cache (O_DIRECT). */
  directIo: boolean;
  /** Data bytes written with O_DIRECT and through the page cache since open. */
  directWriteBytes: number;
  pagedWriteBytes: number;
  /**
   * Durability requests of object files (sync writes, flushes) and the fdatasyncs that served them,
   * and the index log's synced writes asked for and made (grouped: oss/store/group-sync.ts).
   */
  syncs?: { fileRequests: number; fileFsyncs: number; indexRequests: number; indexSyncs: number };
  /** Opens of object files made and avoided (a handle still open from an earlier read or write reused). */
  handles?: { opened: number; reused: number };
  /** The segment log of small objects, where a backend keeps one (oss/store/segment-log.ts). */
  log?: LogUsage;
}

/**
 * Fault sites on the store's own path, switched on by the OST's fault knobs (oss/faults.ts).
 * A backend calls each at its point of no return; without knobs they do nothing.
 */
export interface StoreFaultSites {
  /** A write's data is in place; the record that makes it the object's new version is not. */
  dataWritten(objectId: string): void;
  /** A flush is about to make the object's bytes durable; throws as a failing fsync does. */
  beforeFsync(objectId: string): void;
  /** An fdatasync of an object file is about to run (once per grouped run): waits as a slow disk would. */
  slowFsync?(): Promise<void>;
  /**
   * Whether a log round's index batch (written unsynced) is to be lost, as a power loss loses the
   * index's unsynced tail: never written to the index's database, only to its cache (from the
   * first such round until the process ends).
   */
  indexTailLost?(): boolean;
}

export interface ObjectStore {
  readonly name: string;
  /** The checksum block: a read's stamps and a copy's blockStamps are per block of this size. */
  readonly blockBytes: number;
  /** Cluster-wide id from the MDS, kept across restarts; undefined until the first registration ever. */
  readonly id: number | undefined;
  assignId(id: number): Promise<void>;
  usage(): StoreUsage;
  /** Measures the free space again (capacity follows the disk unless a quota is set). */
  refreshCapacity(): Promise<void>;

  stat(objectId: string): Promise<ObjectMeta | undefined>;
  write(params: WriteParams, pieces: AsyncIterable<WritePiece>): Promise<WriteResult>;
  /**
   * Streams [offset, offset + length) clamped to the size, one disk span's pieces at a time;
   * `onSize` gets the size first, with the block stamps of what is read (BlockStamps). With
   * `readerVerifies` whole blocks go out with their stored crc unchecked: the reader checks
   * them (see store/read.ts).
   */
  readSpans(
    objectId: string,
    offset: number,
    length: number,
    onSize: (objectSize: number, blockStamps: BlockStamps) => void,
    readerVerifies?: boolean,
  ): AsyncGenerator<ReadPiece[]>;
  /** The block stamps of [offset, offset + length) clamped to the size; undefined when the object is absent. */
  blockStamps(objectId: string, offset: number, length: number): Promise<BlockStamps | undefined>;
  flush(objectId: string): Promise<void>;
  delete(objectId: string): Promise<boolean>;
  /** One PG's objects in id order, after `cursor`. */
  list(poolId: number, pg: number, cursor: string, limit: number): Promise<ListPage>;
  /** Every object, in id order (scrub). */
  objects(): AsyncIterable<StoredObject>;
  /**
   * Where the object's bytes lie on disk: the file holding them and the offset of its first byte
   * there (the admin API's view of where data lives; tests damage bytes there). Undefined when
   * the object is absent.
   */
  locate(objectId: string): Promise<{ path: string; offset: number } | undefined>;

  /** Copies that missed writes (MarkStale): reads refuse them until clearStale or a delete. In memory. */
  markStale(objectIds: readonly string[], atMs?: number): void;
  /**
   * Forgets the marks made up to `markedUpToMs` (as given to markStale) of objects not in `keep`:
   * the MDS's whole list of this OST's copies awaiting repair, made after those marks, no longer
   * holds them (their repair was done or dropped).
   */
  keepStaleOnly(keep: ReadonlySet<string>, markedUpToMs: number): void;
  clearStale(objectId: string): void;
  close(): Promise<void>;
}
