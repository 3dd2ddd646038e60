// The client's local-disk cache tier (JuiceFS's cache-dir): whole blocks a
// read-only handle fetched from the OSSs are kept as files in a bounded folder
// on the client's own disk, so a second epoch over a dataset, in this process
// or after a restart, reads them locally. A block's name carries what the open
// returned of its file (inode, commit count, size, mtime), so a file changed
// since is never answered from here: close-to-open, or the open cache's TTL
// when that is on, exactly as the memory cache. Each file holds a small header
// with the block's length and crc32c, checked on every hit: a bad one is
// dropped and the block read again from the OSSs. Least recently used blocks
// go first once the folder would pass its bound; after a restart, recency is
// the order the files were written.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32c } from '../common/checksum.js';
import { StripeError } from '../common/errors.js';
import { Semaphore } from '../common/semaphore.js';

const MAGIC = 'SFDCACH1';
export const DISK_BLOCK_HEADER_BYTES = 16;
/** Subfolders a cache spreads its files over (by inode), so no folder grows huge. */
const FANOUT = 256;
/** Block files written at once. */
export const DISK_CACHE_WRITES_IN_FLIGHT_MAX = 16;
/** Copies of blocks waiting to be written; a block read while this much waits is not kept. */
export const DISK_CACHE_QUEUED_BYTES_MAX = 64 * 1024 * 1024;
const NAME = /^\d+\.\d+\.\d+\.\d+\.\d+$/;

export interface DiskCacheCounters {
  hits: number;
  misses: number;
  hitBytes: number;
  writes: number;
  writtenBytes: number;
  evictions: number;
  /** Files that failed their header or crc32c check (each dropped, its block read from the OSSs). */
  corrupt: number;
  /** Blocks not kept because DISK_CACHE_QUEUED_BYTES_MAX bytes were waiting to be written. */
  writesSkipped: number;
}

/** What an open returned of a file: a block cached under these is never served for another version. */
export interface FileVersion {
  inode: number;
  change: number;
  size: number;
  mtimeMs: number;
}

/** The name prefix of a file version's blocks. */
export function versionPrefix(v: FileVersion): string {
  return `${v.inode}.${v.change}.${v.size}.${Math.max(0, Math.round(v.mtimeMs))}`;
}

/**
 * The blocks (name and length) of file version `v` read in `blockBytes` blocks when every one of
 * them is in `cache`, else undefined (none for an empty file).
 */
export function blocksOnDisk(
  cache: DiskCache,
  v: FileVersion,
  blockBytes: number,
): { name: string; length: number }[] | undefined {
  const prefix = versionPrefix(v);
  const blocks: { name: string; length: number }[] = [];
  for (let b = 0; b * blockBytes < v.size; b++) {
    const name = `${prefix}.${b}`;
    if (!cache.has(name)) return undefined;
    blocks.push({ name, length: Math.min(blockBytes, v.size - b * blockBytes) });
  }
  return blocks;
}

function subfolderOf(name: string): string {
  const inode = Number(name.slice(0, name.indexOf('.')));
  return (inode % FANOUT).toString(16).padStart(2, '0');
}

export class DiskCache {
  /** File name -> bytes on disk (header included), least recently used first. */
  private readonly files = new Map<string, number>();
  private bytes = 0;
  private pendingBytes = 0;
  /** Blocks being written (or queued to be), by name. */
  private readonly writing = new Map<string, Promise<void>>();
  private readonly gate = new Semaphore(DISK_CACHE_WRITES_IN_FLIGHT_MAX);
  readonly counters: DiskCacheCounters = {
    hits: 0,
    misses: 0,
    hitBytes: 0,
    writes: 0,
    writtenBytes: 0,
    evictions: 0,
    corrupt: 0,
    writesSkipped: 0,
  };

  private constructor(
    /** This cluster's folder inside the configured one. */
    readonly dir: string,
    readonly bytesMax: number,
  ) {}

  /**
   * The cache in `root` for the cluster at `mdsAddress` (a folder of its own, so two clusters
   * never share blocks), with what an earlier client left there.
   */
  static async open(root: string, bytesMax: number, mdsAddress: string): Promise<DiskCache> {
    if (!Number.isSafeInteger(bytesMax) || bytesMax < 0)
      throw new StripeError(
        'CONFIG_INVALID',
        `disk cache bytes must be a non-negative integer, got ${bytesMax}`,
      );
    const dir = join(root, `cluster-${createHash('sha256').update(mdsAddress).digest('hex').slice(0, 16)}`);
    try {
      await mkdir(dir, { recursive: true });
    } catch (err) {
      throw new StripeError(
        'CONFIG_INVALID',
        `client.diskCacheDir ${root}: cannot make ${dir} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); name a folder this process may write, or leave the key empty for no disk cache`,
        { key: 'client.diskCacheDir' },
      );
    }
    const cache = new DiskCache(dir, bytesMax);
    await cache.load();
    return cache;
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  get fileCount(): number {
    return this.files.size;
  }

  has(name: string): boolean {
    return this.files.has(name);
  }

  /** The block `name` of `length` bytes, checked; undefined when missing or bad (then dropped). */
  async get(name: string, length: number): Promise<Buffer | undefined> {
    const bytes = this.files.get(name);
    if (bytes === undefined) {
      this.counters.misses++;
      return undefined;
    }
    this.files.delete(name);
    this.files.set(name, bytes);
    let raw: Buffer;
    try {
      raw = await readFile(this.pathOf(name));
    } catch {
      // Gone underneath (evicted meanwhile, or removed by hand): a miss.
      this.forget(name);
      this.counters.misses++;
      return undefined;
    }
    const data = raw.subarray(DISK_BLOCK_HEADER_BYTES);
    const good =
      raw.length >= DISK_BLOCK_HEADER_BYTES &&
      raw.toString('latin1', 0, 8) === MAGIC &&
      raw.readUInt32LE(8) === data.length &&
      data.length === length &&
      raw.readUInt32LE(12) === crc32c(data);
    if (!good) {
      this.counters.corrupt++;
      this.counters.misses++;
      this.remove(name);
      return undefined;
    }
    this.counters.hits++;
    this.counters.hitBytes += data.length;
    return data;
  }

  /** Keeps a copy of `data` as block `name` (written in the background; skipped when too much is queued). */
  put(name: string, data: Uint8Array): void {
    const fileBytes = DISK_BLOCK_HEADER_BYTES + data.length;
    if (this.files.has(name) || this.writing.has(name) || fileBytes > this.bytesMax) return;
    if (this.pendingBytes + fileBytes > DISK_CACHE_QUEUED_BYTES_MAX) {
      this.counters.writesSkipped++;
      return;
    }
    // Copied now: the caller's buffer may go back to the block pool before the write is done.
    const file = Buffer.allocUnsafe(fileBytes);
    file.write(MAGIC, 0, 'latin1');
    file.writeUInt32LE(data.length, 8);
    file.writeUInt32LE(crc32c(data), 12);
    file.set(data, DISK_BLOCK_HEADER_BYTES);
    this.makeRoom(fileBytes);
    this.pendingBytes += fileBytes;
    const write = this.gate.run(() => this.write(name, file)).finally(() => this.writing.delete(name));
    this.writing.set(name, write);
  }

  /** Resolves once every block write under way has finished (tests, and close). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.writing.values()]);
  }

  /** Writes one block file (temp file, then rename); it counts in the folder once whole. */
  private async write(name: string, file: Buffer): Promise<void> {
    const path = this.pathOf(name);
    const temp = `${path}.${randomBytes(4).toString('hex')}.tmp`;
    let written = false;
    try {
      await mkdir(join(this.dir, subfolderOf(name)), { recursive: true });
      await writeFile(temp, file);
      await rename(temp, path);
      written = true;
    } catch {
      // A full or read-only disk costs the cache a block, never the read that fetched it.
      await unlink(temp).catch(() => undefined); // the temp file may never have been made
    } finally {
      this.pendingBytes -= file.length;
    }
    if (!written) return;
    this.files.set(name, file.length);
    this.bytes += file.length;
    this.counters.writes++;
    this.counters.writtenBytes += file.length - DISK_BLOCK_HEADER_BYTES;
  }

  /** Evicts least recently used files until `incoming` more bytes fit within the bound. */
  private makeRoom(incoming: number): void {
    while (this.bytes + this.pendingBytes + incoming > this.bytesMax) {
      const oldest = this.files.keys().next().value;
      if (oldest === undefined) break;
      this.remove(oldest);
      this.counters.evictions++;
    }
  }

  private forget(name: string): void {
    const bytes = this.files.get(name);
    if (bytes === undefined) return;
    this.files.delete(name);
    this.bytes -= bytes;
  }

  private remove(name: string): void {
    this.forget(name);
    // Removed in the background; a file already gone is what we wanted.
    unlink(this.pathOf(name)).catch(() => undefined);
  }

  private pathOf(name: string): string {
    return join(this.dir, subfolderOf(name), name);
  }

  /** What an earlier client left: every block file, oldest first; half-written temp files removed. */
  private async load(): Promise<void> {
    const found: { name: string; bytes: number; mtimeMs: number }[] = [];
    for (const sub of await readdir(this.dir)) {
      const names = await readdir(join(this.dir, sub)).catch(() => [] as string[]); // not a folder: ignored
      for (const name of names) {
        const path = join(this.dir, sub, name);
        if (name.endsWith('.tmp'))
          await unlink(path).catch(() => undefined); // gone already: fine
        else if (NAME.test(name) && subfolderOf(name) === sub) {
          const s = await stat(path);
          found.push({ name, bytes: s.size, mtimeMs: s.mtimeMs });
        }
      }
    }
    found.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const f of found) {
      this.files.set(f.name, f.bytes);
      this.bytes += f.bytes;
    }
    this.makeRoom(0);
  }
}
