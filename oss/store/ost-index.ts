// An OST's index: the classic-level database that says which objects exist
// (their meta records), the crc32c of every block, and which objects each PG
// holds. The one module that opens the database; with index-layout.ts (its
// keys and record codecs) the only one that knows how it is laid out. It
// keeps the cache of decoded records (index-cache.ts) in step with every
// change it makes, so callers never see a record a change replaced.
import { ClassicLevel } from 'classic-level';
import { type BlockGroup, IndexCache } from './index-cache.js';
import {
  CRC_GROUP_BLOCKS,
  decodeCrcs,
  decodeLogPosition,
  decodeMeta,
  decodeStamps,
  encodeCrcs,
  encodeLogPosition,
  encodeMeta,
  encodeStamps,
  keys,
  type LogPosition,
  prefixEnd,
  publicMeta,
  type StoredMeta,
} from './index-layout.js';
import type { ListPage, ObjectMeta, StoredObject } from './object-store.js';

export { type LogLocation, type LogPosition, publicMeta, type StoredMeta } from './index-layout.js';

export type BatchOp = { type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string };

/**
 * A write's index changes, made ready under the object's lock and written later in one batch with
 * others' (applyWrites): `meta` is put as it is then (a log write sets its location first).
 */
export interface PreparedWrite {
  objectId: string;
  meta: StoredMeta;
  ops: BatchOp[];
  /** The groups the batch writes, remembered in the cache after it; undefined: forget the object's. */
  saved: Map<number, BlockGroup> | undefined;
}

function logPositionOp(position: LogPosition): BatchOp {
  return { type: 'put', key: keys.logPosition, value: encodeLogPosition(position) };
}

/** The stored crcs and stamps of a run of an object's blocks. */
export class BlockCrcs {
  constructor(private readonly groups: Map<number, BlockGroup>) {}

  /** The crc of a block, or undefined for one never written (a hole: zeros). */
  crcOf(block: number): number | undefined {
    return this.groups.get(Math.floor(block / CRC_GROUP_BLOCKS))?.crcs[block % CRC_GROUP_BLOCKS];
  }

  /** The stamp of the write a block holds: 0 for none known (a hole, an unstamped write, or one made before stamps). */
  stampOf(block: number): number {
    return this.groups.get(Math.floor(block / CRC_GROUP_BLOCKS))?.stamps[block % CRC_GROUP_BLOCKS] ?? 0;
  }
}

/** The stamps of the blocks a write leaves, given for the blocks it wrote (the others keep theirs). */
export interface WrittenStamps {
  /** The first block the write's bytes touch. */
  firstBlock: number;
  /** One per block the write's bytes touch, in order. */
  stamps: readonly number[];
}

export class OstIndex {
  readonly cache = new IndexCache();

  private constructor(
    private readonly db: ClassicLevel<string, Buffer>,
    private readonly blockBytes: number,
  ) {}

  static async open(dir: string, blockBytes: number): Promise<OstIndex> {
    const db = new ClassicLevel<string, Buffer>(dir, { valueEncoding: 'buffer' });
    await db.open();
    return new OstIndex(db, blockBytes);
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** The object's meta record with its location when it is in the segment log. */
  async meta(objectId: string): Promise<StoredMeta | undefined> {
    const cached = this.cache.meta(objectId);
    if (cached) return cached;
    const generation = this.cache.generation;
    const raw = await this.db.get(keys.meta(objectId));
    const meta = raw === undefined ? undefined : decodeMeta(raw.toString('utf8'));
    this.cache.fill(objectId, generation, meta);
    return meta;
  }

  /** Stored crcs of blocks [firstBlock, lastBlock]. */
  async blockCrcs(objectId: string, firstBlock: number, lastBlock: number): Promise<BlockCrcs> {
    return new BlockCrcs(await this.groups(objectId, firstBlock, lastBlock));
  }

  private async groups(
    objectId: string,
    firstBlock: number,
    lastBlock: number,
  ): Promise<Map<number, BlockGroup>> {
    const groups = new Map<number, BlockGroup>();
    const missing: number[] = [];
    for (
      let g = Math.floor(firstBlock / CRC_GROUP_BLOCKS);
      g <= Math.floor(lastBlock / CRC_GROUP_BLOCKS);
      g++
    ) {
      const cached = this.cache.group(objectId, g);
      if (cached) groups.set(g, cached);
      else missing.push(g);
    }
    if (missing.length === 0) return groups;
    const generation = this.cache.generation;
    const values = await this.db.getMany([
      ...missing.map((g) => keys.crcGroup(objectId, g)),
      ...missing.map((g) => keys.stampGroup(objectId, g)),
    ]);
    const found = new Map<number, BlockGroup>();
    missing.forEach((g, i) => {
      const crcValue = values[i];
      if (crcValue === undefined) return;
      const crcs = decodeCrcs(crcValue);
      const stampValue = values[missing.length + i];
      // A group written before stamps has none: every block's stamp is unknown (0).
      const stamps = stampValue === undefined ? new Float64Array(crcs.length) : decodeStamps(stampValue);
      found.set(g, { crcs, stamps });
    });
    this.cache.fill(objectId, generation, undefined, found);
    for (const [g, group] of found) groups.set(g, group);
    return groups;
  }

  /** Every object in id order, from a snapshot taken when the scan starts. */
  async *objects(): AsyncGenerator<StoredObject> {
    for await (const { objectId, meta } of this.storedObjects()) yield { objectId, ...publicMeta(meta) };
  }

  /** Every object's stored meta record (with its log location), in id order. */
  async *storedObjects(): AsyncGenerator<{ objectId: string; meta: StoredMeta }> {
    for await (const [key, value] of this.db.iterator({
      gte: keys.metaPrefix,
      lt: prefixEnd(keys.metaPrefix),
    })) {
      yield { objectId: key.slice(keys.metaPrefix.length), meta: decodeMeta(value.toString('utf8')) };
    }
  }

  async listPg(poolId: number, pg: number, cursor: string, limit: number): Promise<ListPage> {
    const prefix = keys.pgPrefix(poolId, pg);
    const ids: string[] = [];
    const range = cursor ? { gt: prefix + cursor } : { gte: prefix };
    for await (const key of this.db.keys({ ...range, lt: prefixEnd(prefix), limit: limit + 1 })) {
      ids.push(key.slice(prefix.length));
    }
    const more = ids.length > limit;
    const page = ids.slice(0, limit);
    const metas = await this.db.getMany(page.map((id) => keys.meta(id)));
    const objects = page.flatMap((objectId, i) => {
      const raw = metas[i];
      return raw === undefined ? [] : [{ objectId, ...publicMeta(decodeMeta(raw.toString('utf8'))) }];
    });
    return { objects, nextCursor: more ? (page[page.length - 1] ?? '') : '' };
  }

  /**
   * Commits a write in one batch: the new meta, the PG entry, and the crcs of the blocks from
   * `firstBlock` on that it wrote (merged into their groups, trimmed to the new size; groups
   * past it go), with the stamps `written` gives the blocks the write's bytes touch (the other
   * blocks keep theirs; new holes have none).
   */
  async commitWrite(
    objectId: string,
    old: ObjectMeta | undefined,
    meta: StoredMeta,
    firstBlock: number,
    crcs: Uint32Array,
    written: WrittenStamps,
    clearUnsynced = false,
    /** Write the batch synced: it and every change committed before it are durable once it resolves. */
    sync = false,
  ): Promise<void> {
    const prepared = await this.prepareWrite(objectId, old, meta, firstBlock, crcs, written, clearUnsynced);
    await this.applyWrites([prepared], sync);
  }

  /** commitWrite's changes, made ready to be written (applyWrites) with other writes' in one batch. */
  async prepareWrite(
    objectId: string,
    old: ObjectMeta | undefined,
    meta: StoredMeta,
    firstBlock: number,
    crcs: Uint32Array,
    written: WrittenStamps,
    clearUnsynced = false,
  ): Promise<PreparedWrite> {
    const blocksTotal = Math.ceil(meta.size / this.blockBytes);
    const oldBlocks = Math.ceil((old?.size ?? 0) / this.blockBytes);
    const lastTouched = firstBlock + crcs.length - 1;
    const firstGroup = Math.floor(Math.min(firstBlock, written.firstBlock) / CRC_GROUP_BLOCKS);
    const lastGroup = Math.floor(Math.max(lastTouched, blocksTotal - 1, 0) / CRC_GROUP_BLOCKS);
    // A new object has no groups yet (delete removes them with the meta): nothing to merge.
    const existing = old
      ? await this.groups(objectId, firstGroup * CRC_GROUP_BLOCKS, lastGroup * CRC_GROUP_BLOCKS)
      : new Map<number, BlockGroup>();
    const ops: BatchOp[] = [];
    const saved = new Map<number, BlockGroup>();
    if (old && (old.poolId !== meta.poolId || old.pg !== meta.pg))
      ops.push({ type: 'del', key: keys.pgEntry(old.poolId, old.pg, objectId) });
    ops.push({ type: 'put', key: keys.pgEntry(meta.poolId, meta.pg, objectId), value: Buffer.alloc(0) });
    for (let g = firstGroup; g <= lastGroup; g++) {
      const groupStart = g * CRC_GROUP_BLOCKS;
      const length = Math.min(CRC_GROUP_BLOCKS, blocksTotal - groupStart);
      if (length <= 0) break;
      const group: BlockGroup = { crcs: new Uint32Array(length), stamps: new Float64Array(length) };
      const prior = existing.get(g);
      // Blocks past the old size are new (holes, or the write's): nothing of them is kept.
      const kept = Math.max(0, Math.min(length, oldBlocks - groupStart));
      if (prior) {
        group.crcs.set(prior.crcs.subarray(0, Math.min(kept, prior.crcs.length)));
        group.stamps.set(prior.stamps.subarray(0, Math.min(kept, prior.stamps.length)));
      }
      for (let b = Math.max(firstBlock, groupStart); b <= Math.min(lastTouched, groupStart + length - 1); b++)
        group.crcs[b - groupStart] = crcs[b - firstBlock]!;
      const stampsEnd = written.firstBlock + written.stamps.length - 1;
      for (
        let b = Math.max(written.firstBlock, groupStart);
        b <= Math.min(stampsEnd, groupStart + length - 1);
        b++
      )
        group.stamps[b - groupStart] = written.stamps[b - written.firstBlock]!;
      ops.push({ type: 'put', key: keys.crcGroup(objectId, g), value: encodeCrcs(group.crcs) });
      ops.push({ type: 'put', key: keys.stampGroup(objectId, g), value: encodeStamps(group.stamps) });
      saved.set(g, group);
    }
    const oldLastGroup = Math.floor((oldBlocks - 1) / CRC_GROUP_BLOCKS);
    for (let g = Math.max(Math.ceil(blocksTotal / CRC_GROUP_BLOCKS), 0); g <= oldLastGroup; g++) {
      ops.push({ type: 'del', key: keys.crcGroup(objectId, g) });
      ops.push({ type: 'del', key: keys.stampGroup(objectId, g) });
    }
    if (clearUnsynced) ops.push({ type: 'del', key: keys.unsynced(objectId) });
    return { objectId, meta, ops, saved };
  }

  /** A change of where an object's bytes are (a record moved by compaction), nothing else. */
  prepareMove(objectId: string, meta: StoredMeta): PreparedWrite {
    return { objectId, meta, ops: [], saved: undefined };
  }

  /** The batch that writes prepared changes of distinct objects (their meta records first). */
  roundOps(prepared: readonly PreparedWrite[]): BatchOp[] {
    const ops: BatchOp[] = [];
    for (const w of prepared) {
      ops.push({ type: 'put', key: keys.meta(w.objectId), value: Buffer.from(encodeMeta(w.meta)) });
      for (const op of w.ops) ops.push(op);
    }
    return ops;
  }

  /**
   * Writes prepared changes of distinct objects in one batch (synced: durable with every change
   * before it once it resolves; with none, a synced write of the flush marker). `ops` is their
   * roundOps when already made; with `logEnd` the batch also records where the segment log's
   * next round starts (the rounds before it need no replay).
   */
  async applyWrites(
    prepared: readonly PreparedWrite[],
    sync: boolean,
    logEnd?: LogPosition,
    ops: BatchOp[] = this.roundOps(prepared),
  ): Promise<void> {
    if (ops.length === 0 && logEnd === undefined) {
      if (sync) await this.syncLog();
      return;
    }
    const batch = logEnd ? [...ops, logPositionOp(logEnd)] : ops;
    for (const w of prepared) this.cache.changed(w.objectId);
    try {
      await this.db.batch(batch, { sync });
    } catch (err) {
      for (const w of prepared) this.cache.changed(w.objectId);
      throw err;
    }
    for (const w of prepared)
      if (w.saved) this.cache.remember(w.objectId, w.meta, w.saved);
      else this.cache.changed(w.objectId);
  }

  /**
   * The fault site's power loss (StoreFaultSites.indexTailLost): the changes are remembered in the
   * cache, so the running OST sees them, but never reach the database.
   */
  loseWrites(prepared: readonly PreparedWrite[]): void {
    for (const w of prepared)
      if (w.saved) this.cache.remember(w.objectId, w.meta, w.saved);
      else this.cache.changed(w.objectId);
  }

  /** Where the segment log's replay starts: the round after the last one this index holds; undefined before the first. */
  async logPosition(): Promise<LogPosition | undefined> {
    const raw = await this.db.get(keys.logPosition);
    return raw === undefined ? undefined : decodeLogPosition(raw);
  }

  /** A round read back from the segment log at open (log-round.ts): its changes, and the position after it. */
  async applyReplayed(ops: BatchOp[], logEnd: LogPosition): Promise<void> {
    this.cache.clear();
    await this.db.batch([...ops, logPositionOp(logEnd)], { sync: false });
  }

  /** Records where the log's next round starts, synced (with every change before it). */
  async setLogPosition(position: LogPosition): Promise<void> {
    await this.db.batch([logPositionOp(position)], { sync: true });
  }

  /** Removes every record of an object: its meta, its PG entry and its crcs. */
  async remove(objectId: string, meta: ObjectMeta): Promise<void> {
    const batch = this.db
      .batch()
      .del(keys.meta(objectId))
      .del(keys.pgEntry(meta.poolId, meta.pg, objectId));
    for (const prefix of [keys.crcPrefix(objectId), keys.stampPrefix(objectId)])
      for await (const key of this.db.keys({ gte: prefix, lt: prefixEnd(prefix) })) batch.del(key);
    await this.cache.rewriting(objectId, () => batch.write());
  }

  /** Objects an fsync failed for (see markUnsynced). */
  async unsynced(): Promise<Set<string>> {
    const ids = new Set<string>();
    const range = { gte: keys.unsyncedPrefix, lt: prefixEnd(keys.unsyncedPrefix) };
    for await (const key of this.db.keys(range)) ids.add(key.slice(keys.unsyncedPrefix.length));
    return ids;
  }

  /** Records, durably, that an fsync of the object failed: its flushes fail until it is written whole again. */
  async markUnsynced(objectId: string): Promise<void> {
    await this.db.put(keys.unsynced(objectId), Buffer.alloc(0), { sync: true });
  }

  /** Makes every change committed so far durable (one synced write through the database's log). */
  async syncLog(): Promise<void> {
    await this.db.put(keys.flushMarker, Buffer.from(String(Date.now())), { sync: true });
  }
}
