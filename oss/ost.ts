// One OST: a folder with object files (objects/<fanout>/<id>) and a
// classic-level index (index/). The index is the truth: an object exists
// when its meta record does; a data file without one is debris from a crash
// before the write was acknowledged and is removed at open.
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
import { ClassicLevel } from 'classic-level';
import { BUFFER_ALIGN_BYTES, isAligned } from '../common/bulk/buffer-pool.js';
import { StripeError } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';
import { dataBuffers } from './buffers.js';
import { IndexCache } from './index-cache.js';
import { CRC_GROUP_BLOCKS, decodeCrcs, decodeMeta, keys, type ObjectMeta, prefixEnd } from './index-keys.js';
import { objectPath } from './object-id.js';
import { ObjectLocks } from './object-lock.js';
import { ReadHandles } from './read-handles.js';

export interface OstOptions {
  dir: string;
  name: string;
  /** Quota in bytes; 0: the free space of the disk at open plus what is stored. */
  capacityBytes: number;
  fsync: boolean;
  blockBytes?: number;
  /** Write whole aligned blocks with O_DIRECT when the file system supports it. */
  directIo?: boolean;
}

const ID_FILE = 'ost-id.json';
/** Fan-out folders under objects/ (see object-id.ts), created at open so writes never mkdir. */
const FANOUT_FOLDERS = 256;

export class Ost {
  readonly objectsDir: string;
  readonly locks = new ObjectLocks();
  /** Open read handles shared by reads of the same object (oss/read-handles.ts). */
  readonly readHandles = new ReadHandles();
  /** Decoded index records of recently used objects; every writer of the index keeps it in step. */
  readonly indexCache = new IndexCache();
  /**
   * Objects the MDS says missed writes and await their repair (MarkStale): reads of them fail with
   * OBJ_STALE until a repair rewrites them or they are deleted. In memory: the MDS sends the list
   * again whenever this OST comes back up.
   */
  readonly staleObjects = new Set<string>();
  readonly blockBytes: number;
  usedBytes = 0;
  objectCount = 0;
  capacityBytes = 0;
  /** Aligned writes bypass the page cache (O_DIRECT): asked for and supported by the file system. */
  directIo = false;
  /** Data bytes written with O_DIRECT and through the page cache since open. */
  directWriteBytes = 0;
  pagedWriteBytes = 0;
  /** Cluster-wide id from the MDS; undefined until the first registration ever. */
  id: number | undefined;
  private closed = false;
  /** Called on every checksum mismatch found on read (metrics, reports). */
  onChecksumError?: (objectId: string, block: number) => void;

  private constructor(
    readonly opts: OstOptions,
    readonly db: ClassicLevel<string, Buffer>,
  ) {
    this.objectsDir = join(opts.dir, 'objects');
    this.blockBytes = opts.blockBytes ?? LIMITS.checksumBlockBytes;
    // reads fetch 1 MiB of whole blocks at a time
    if ((1024 * 1024) % this.blockBytes !== 0)
      throw new Error(`block size ${this.blockBytes} must divide 1 MiB`);
  }

  get name(): string {
    return this.opts.name;
  }

  static async open(opts: OstOptions): Promise<Ost> {
    // Side by side: one after another the 256 mkdirs took about 0.3 s per OST start.
    await mkdir(join(opts.dir, 'objects'), { recursive: true });
    await Promise.all(
      Array.from({ length: FANOUT_FOLDERS }, (_, fanout) =>
        mkdir(join(opts.dir, 'objects', fanout.toString(16).padStart(2, '0')), { recursive: true }),
      ),
    );
    const db = new ClassicLevel<string, Buffer>(join(opts.dir, 'index'), { valueEncoding: 'buffer' });
    await db.open();
    const ost = new Ost(opts, db);
    ost.id = await readPersistedId(opts.dir);
    ost.directIo = opts.directIo === true && (await directIoWorks(opts.dir));
    await ost.scan();
    await ost.refreshCapacity();
    return ost;
  }

  /** Counts objects and bytes, and removes data files no meta record owns. */
  private async scan(): Promise<void> {
    const known = new Set<string>();
    for await (const [key, value] of this.db.iterator({
      gte: keys.metaPrefix,
      lt: prefixEnd(keys.metaPrefix),
    })) {
      const meta = decodeMeta(value.toString('utf8'));
      known.add(key.slice(keys.metaPrefix.length));
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

  async refreshCapacity(): Promise<void> {
    if (this.opts.capacityBytes > 0) {
      this.capacityBytes = this.opts.capacityBytes;
      return;
    }
    const fsStats = await statfs(this.opts.dir);
    this.capacityBytes = this.usedBytes + fsStats.bavail * fsStats.bsize;
  }

  async persistId(id: number): Promise<void> {
    if (this.id === id) return;
    await writeFile(join(this.opts.dir, ID_FILE), JSON.stringify({ id }));
    this.id = id;
  }

  pathOf(objectId: string): string {
    return objectPath(this.objectsDir, objectId);
  }

  async getMeta(objectId: string): Promise<ObjectMeta | undefined> {
    this.assertOpen();
    const cached = this.indexCache.meta(objectId);
    if (cached) return cached;
    const generation = this.indexCache.generation;
    const raw = await this.db.get(keys.meta(objectId));
    const meta = raw === undefined ? undefined : decodeMeta(raw.toString('utf8'));
    this.indexCache.fill(objectId, generation, meta);
    return meta;
  }

  async requireMeta(objectId: string): Promise<ObjectMeta> {
    const meta = await this.getMeta(objectId);
    if (!meta) throw new StripeError('OBJ_NOT_FOUND', `object ${objectId} not found on ${this.name}`);
    return meta;
  }

  /** Expected crcs of blocks [firstBlock, lastBlock]; blocks never written are holes (zeros). */
  async blockCrcs(
    objectId: string,
    firstBlock: number,
    lastBlock: number,
  ): Promise<Map<number, Uint32Array>> {
    const groups = new Map<number, Uint32Array>();
    const firstGroup = Math.floor(firstBlock / CRC_GROUP_BLOCKS);
    const lastGroup = Math.floor(lastBlock / CRC_GROUP_BLOCKS);
    const missing: number[] = [];
    for (let g = firstGroup; g <= lastGroup; g++) {
      const cached = this.indexCache.group(objectId, g);
      if (cached) groups.set(g, cached);
      else missing.push(g);
    }
    if (missing.length === 0) return groups;
    const generation = this.indexCache.generation;
    const values = await this.db.getMany(missing.map((g) => keys.crcGroup(objectId, g)));
    const found = new Map<number, Uint32Array>();
    values.forEach((value, i) => {
      if (value !== undefined) found.set(missing[i] as number, decodeCrcs(value));
    });
    this.indexCache.fill(objectId, generation, undefined, found);
    for (const [g, crcs] of found) groups.set(g, crcs);
    return groups;
  }

  async delete(objectId: string): Promise<boolean> {
    const release = await this.locks.acquire(objectId, true);
    this.staleObjects.delete(objectId);
    try {
      const meta = await this.getMeta(objectId);
      if (!meta) return false;
      const batch = this.db
        .batch()
        .del(keys.meta(objectId))
        .del(keys.pgEntry(meta.poolId, meta.pg, objectId));
      for await (const key of this.db.keys({
        gte: keys.crcPrefix(objectId),
        lt: prefixEnd(keys.crcPrefix(objectId)),
      })) {
        batch.del(key);
      }
      await this.indexCache.rewriting(objectId, () => batch.write());
      this.readHandles.drop(this.pathOf(objectId));
      await rm(this.pathOf(objectId), { force: true });
      this.usedBytes -= meta.size;
      this.objectCount--;
      return true;
    } finally {
      release();
    }
  }

  async list(
    poolId: number,
    pg: number,
    cursor: string,
    limit: number,
  ): Promise<{ objects: (ObjectMeta & { objectId: string })[]; nextCursor: string }> {
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
      return raw === undefined ? [] : [{ objectId, ...decodeMeta(raw.toString('utf8')) }];
    });
    return { objects, nextCursor: more ? (page[page.length - 1] ?? '') : '' };
  }

  /**
   * Makes every acknowledged write of the object durable: fsync its data, then the index log.
   * Succeeds only after both: a file that will not open is OBJ_NOT_DURABLE, never a flush skipped.
   */
  async flush(objectId: string): Promise<void> {
    await this.requireMeta(objectId);
    if (!this.opts.fsync) return;
    let fh: FileHandle;
    try {
      fh = await open(this.pathOf(objectId), 'r');
    } catch (err) {
      // Deleted since the lookup: nothing left to flush, as if the delete had come first.
      if (!(await this.getMeta(objectId)))
        throw new StripeError('OBJ_NOT_FOUND', `object ${objectId} not found on ${this.name}`);
      throw notDurable(this.name, objectId, 'its file would not open', err);
    }
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await this.db.put(keys.flushMarker, Buffer.from(String(Date.now())), { sync: true });
  }

  private assertOpen(): void {
    if (this.closed) throw new StripeError('REQ_UNAVAILABLE', `${this.name} is closed`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.readHandles.closeAll();
    await this.db.close();
  }
}

function notDurable(ost: string, objectId: string, why: string, cause: unknown): StripeError {
  return new StripeError(
    'OBJ_NOT_DURABLE',
    `${objectId} on ${ost} is not flushed: ${why} (${(cause as Error).message})`,
    { objectId, ost },
  );
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
