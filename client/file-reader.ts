// The read side of one open file: splits a read into cache blocks (a block
// never spans a stripe unit), serves them from the shared cache or fetches
// them in parallel, and runs the readahead state machine to fetch ahead.
// With no readahead window (random access, or readahead off) a read that
// covers only part of a block not already cached or coming fetches just the
// bytes asked for and leaves the cache alone: a random 4 KiB read moves
// 4 KiB, not the whole 1 MiB block around it.

import { LIMITS } from '../common/limits.js';
import { blockKey } from './cache.js';
import type { ClientContext } from './context.js';
import type { FileLayout } from './layout.js';
import type { EcSiblings } from './object-io.js';
import { type PrefetchRun, planPrefetchRuns } from './prefetch-runs.js';
import { INITIAL_READAHEAD, onRead, type ReadaheadState } from './readahead.js';
import { locateByte } from './striping.js';

/** The block a reader fetches and caches: the stripe unit, or the cache's block when smaller (it divides it). */
export function readBlockBytes(stripeSize: number, cacheBlockBytes: number): number {
  return Math.min(stripeSize, cacheBlockBytes);
}

export class FileReader {
  private readahead: ReadaheadState = INITIAL_READAHEAD;
  readonly blockBytes: number;

  constructor(
    private readonly ctx: ClientContext,
    private readonly inode: number,
    private readonly fileLayout: FileLayout,
    private readonly sizeBytes: () => number,
    /** The file's commit count at open: cached blocks are kept per count (client/cache.ts). */
    private readonly change = 0,
    /** Read-only handles: the name prefix of this file version's blocks in the disk cache (client/disk-cache.ts). */
    private readonly diskPrefix?: string,
    /** false: no readahead window, every read handled as a random one (the caller reads ahead itself). */
    private readonly readsAhead = true,
  ) {
    this.blockBytes = readBlockBytes(fileLayout.layout.stripeSize, ctx.limits.cacheBlockBytes);
    if (fileLayout.layout.stripeSize % this.blockBytes !== 0)
      throw new Error('cache block must divide the stripe size');
  }

  /** Reads [position, position+length) clipped to the file size. */
  async read(position: number, length: number): Promise<Buffer> {
    const end = Math.min(this.sizeBytes(), position + length);
    if (end <= position) return Buffer.alloc(0);
    const out = Buffer.allocUnsafe(end - position);
    await this.readInto(out, 0, position, out.length);
    return out;
  }

  /**
   * Reads [position, position+length) clipped to the file size straight into
   * target at targetOffset (one copy out of the cached blocks); returns the bytes read.
   */
  async readInto(
    target: Uint8Array,
    targetOffset: number,
    position: number,
    length: number,
  ): Promise<number> {
    const size = this.sizeBytes();
    const end = Math.min(size, position + length);
    if (end <= position) return 0;
    if (targetOffset < 0 || targetOffset + (end - position) > target.length)
      throw new RangeError('read outside the buffer');
    this.runReadahead(position, end - position, size);
    const exact = this.readahead.windowBytes === 0;
    const first = Math.floor(position / this.blockBytes);
    const last = Math.floor((end - 1) / this.blockBytes);
    const direct = this.directBlocks(first, last, position, end, size);
    const blocks = this.readDirect(direct, target, targetOffset - position, size);
    const isDirect = new Set(direct);
    for (let b = first; b <= last; b++) {
      if (isDirect.has(b)) continue;
      const blockStart = b * this.blockBytes;
      const from = Math.max(position, blockStart);
      const to = Math.min(end, blockStart + this.blockBytes);
      if (exact && to - from < this.blockLength(b, size) && !this.comingOrCached(b)) {
        this.ctx.counters.exactReads++;
        blocks.push(
          this.fetchRange(from, to - from).then((data) => {
            target.set(data, targetOffset + from - position);
          }),
        );
        continue;
      }
      blocks.push(
        this.block(b, size, false).then((data) => {
          target.set(data.subarray(from - blockStart, to - blockStart), targetOffset + from - position);
        }),
      );
    }
    // Every block settles before this returns: none may write into the caller's buffer afterwards.
    for (const settled of await Promise.allSettled(blocks))
      if (settled.status === 'rejected') throw settled.reason;
    this.dropBehind(first, last, end, size);
    this.ctx.counters.bytesRead += end - position;
    return end - position;
  }

  /**
   * The blocks of a large read (directReadBytesMin), or of any read when the client keeps no cache
   * (nothing to keep them for), that it covers whole and that nothing has cached or is fetching,
   * where their runs would be read from a stored copy (an ec chunk that must be rebuilt goes
   * through the cache, where the rebuild finds its siblings). Not with a disk cache, which keeps
   * what passes through the block cache.
   */
  private directBlocks(first: number, last: number, position: number, end: number, size: number): number[] {
    const min = this.ctx.limits.directReadBytesMin;
    const large = end - position >= min || this.ctx.cache.capacityBytes === 0;
    if (min === 0 || !large || this.diskName(first) !== undefined) return [];
    const { layout } = this.fileLayout;
    const asStored = new Map<number, boolean>();
    const direct: number[] = [];
    for (let b = first; b <= last; b++) {
      const start = b * this.blockBytes;
      if (start < position || start + this.blockLength(b, size) > end || this.comingOrCached(b)) continue;
      const { objectIndex } = locateByte(layout, start);
      let ok = asStored.get(objectIndex);
      if (ok === undefined) {
        ok = this.ctx.io.readsRunAsStored(this.fileLayout, this.inode, objectIndex);
        asStored.set(objectIndex, ok);
      }
      if (ok) direct.push(b);
    }
    return direct;
  }

  /**
   * Reads `blocks` straight into `target` (block b at b * blockBytes + shift), one request per run
   * of blocks back to back in one object (prefetch-runs), with no cache block and no copy; they
   * are not cached. What a run did not deliver is fetched block by block with every fail-over a
   * read has, and copied in. Every returned promise settles only once nothing writes into `target`.
   */
  private readDirect(blocks: number[], target: Uint8Array, shift: number, size: number): Promise<void>[] {
    if (blocks.length === 0) return [];
    const runs = planPrefetchRuns(
      this.fileLayout.layout,
      this.blockBytes,
      blocks,
      (b) => this.blockLength(b, size),
      this.ctx.limits.prefetchRequestBytesMax,
      LIMITS.checksumBlockBytes,
    );
    this.ctx.counters.directReadBytes += blocks.reduce((sum, b) => sum + this.blockLength(b, size), 0);
    return runs.map((run) => {
      const places = run.blocks.map((b, i) =>
        Buffer.from(target.buffer, target.byteOffset + shift + b * this.blockBytes, run.lengths[i] as number),
      );
      return this.directRun(run, places);
    });
  }

  private async directRun(run: PrefetchRun, places: Buffer[]): Promise<void> {
    const delivered = run.blocks.map(() => false);
    const landed = (i: number, data: Buffer): void => {
      const place = places[i] as Buffer;
      if (data !== place) place.set(data);
      delivered[i] = true;
    };
    const { objectIndex, objectOffset, lengths } = run;
    let failed = false;
    try {
      await this.ctx.io.readRun(
        this.fileLayout,
        this.inode,
        objectIndex,
        objectOffset,
        lengths,
        landed,
        undefined,
        (i) => places[i],
      );
    } catch {
      // Not an error yet: the blocks it did not deliver are read one by one below, with every fail-over.
      failed = true;
    }
    await Promise.all(
      run.blocks.map(async (b, i) => {
        if (delivered[i]) return;
        // The copy tried first failed: each block read from another is a degraded read.
        if (failed) this.ctx.counters.degradedReads++;
        (places[i] as Buffer).set(await this.fetch(b, lengths[i] as number));
      }),
    );
  }

  /**
   * Drop-behind: a sequential reader of a file larger than the cache would not find the blocks it
   * passed again (the scan evicts them before any second pass), so they go back to the pool at once
   * instead of pushing other files' blocks out, and a fresh client touches about a readahead
   * window of new memory instead of the whole cache.
   */
  private dropBehind(first: number, last: number, end: number, size: number): void {
    const { cache } = this.ctx;
    if (this.readahead.windowBytes === 0 || size <= cache.capacityBytes) return;
    for (let b = first; b <= last; b++)
      if (end >= Math.min(size, (b + 1) * this.blockBytes)) cache.drop(this.inode, this.change, b);
  }

  private runReadahead(offset: number, length: number, size: number): void {
    if (!this.readsAhead) return;
    const { limits, cache, prefetchInFlight } = this.ctx;
    const step = onRead(this.readahead, {
      offset,
      length,
      fileSizeBytes: size,
      unitBytes: this.fileLayout.layout.stripeSize,
      blockBytes: this.blockBytes,
      windowBytesMax: limits.readaheadFileBytesMax,
      // Never more than half the cache: prefetched blocks must live until they are read.
      globalAvailableBytes:
        Math.min(limits.readaheadTotalBytesMax, Math.floor(cache.capacityBytes / 2)) -
        cache.unreadPrefetchedBytes -
        prefetchInFlight.bytes,
    });
    this.readahead = step.state;
    const wanted: number[] = [];
    for (const range of step.prefetch) {
      const first = Math.floor(range.offset / this.blockBytes);
      const last = Math.floor((range.offset + range.length - 1) / this.blockBytes);
      for (let b = first; b <= last; b++) if (!this.comingOrCached(b)) wanted.push(b);
    }
    // Blocks on the local disk come from there one by one; the rest from the OSSs in runs.
    const remote = wanted.filter((b) => {
      if (!this.onDisk(b)) return true;
      // A failed prefetch is not an error: the demand read will fetch (and retry) itself.
      this.block(b, size, true).catch(() => undefined);
      return false;
    });
    if (remote.length === 0) return;
    const runs = planPrefetchRuns(
      this.fileLayout.layout,
      this.blockBytes,
      remote,
      (b) => this.blockLength(b, size),
      limits.prefetchRequestBytesMax,
      LIMITS.checksumBlockBytes,
    );
    for (const run of runs) {
      // A failed prefetch is not an error: the demand read will fetch (and retry) itself.
      if (run.blocks.length === 1) this.block(run.blocks[0] as number, size, true).catch(() => undefined);
      else this.prefetchRun(run.objectIndex, run.objectOffset, run.blocks, run.lengths);
    }
  }

  /**
   * Blocks back to back in one object, in one request; each is in flight (and
   * can be joined) on its own and is cached as it arrives. Blocks the request
   * did not deliver are fetched one by one, with every fail-over a read has.
   */
  private prefetchRun(objectIndex: number, objectOffset: number, blocks: number[], lengths: number[]): void {
    const settle = blocks.map((b, i) => {
      let resolve!: (data: Buffer) => void;
      let reject!: (err: unknown) => void;
      const arrived = new Promise<Buffer>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      // A failed prefetch is not an error: the demand read will fetch (and retry) itself.
      this.inFlight(b, lengths[i] as number, true, arrived).catch(() => undefined);
      return { resolve, reject, done: false };
    });
    const size = this.sizeBytes();
    const leftovers = (): void => {
      settle.forEach((part, i) => {
        if (part.done) return;
        part.done = true;
        this.fetch(blocks[i] as number, lengths[i] as number).then(part.resolve, part.reject);
      });
    };
    this.ctx.io
      .readRun(
        this.fileLayout,
        this.inode,
        objectIndex,
        objectOffset,
        lengths,
        (i, data) => {
          const part = settle[i];
          if (!part || part.done) return;
          part.done = true;
          part.resolve(data);
        },
        (i) => this.siblingsOf(blocks[i] as number, objectIndex, size),
      )
      .then(leftovers, leftovers);
  }

  /** Block b's key in the shared in-flight and rebuilding sets. */
  private keyOf(b: number): string {
    return blockKey(this.inode, this.change, b);
  }

  private comingOrCached(b: number): boolean {
    return this.ctx.cache.has(this.inode, this.change, b) || this.ctx.blocksInFlight.has(this.keyOf(b));
  }

  /** Bytes [offset, offset+length) of the file, inside one block, fetched as they are (not cached). */
  private fetchRange(offset: number, length: number): Promise<Buffer> {
    const where = locateByte(this.fileLayout.layout, offset);
    // ec: no siblings, their blocks cover other ranges; a rebuild reads the same range of k chunks.
    return this.fileLayout.layout.pattern === 'ec'
      ? this.ctx.io.readEc(this.fileLayout, this.inode, where.objectIndex, where.objectOffset, length)
      : this.ctx.io.readReplicated(
          this.fileLayout,
          this.inode,
          where.objectIndex,
          where.objectOffset,
          length,
        );
  }

  /** Bytes of block b that lie inside the file. */
  private blockLength(b: number, size: number): number {
    return Math.max(0, Math.min(this.blockBytes, size - b * this.blockBytes));
  }

  private block(b: number, size: number, prefetch: boolean): Promise<Buffer> {
    const { cache, blocksInFlight } = this.ctx;
    const length = this.blockLength(b, size);
    if (prefetch && cache.has(this.inode, this.change, b)) return Promise.resolve(Buffer.alloc(0));
    const cached = prefetch ? undefined : cache.get(this.inode, this.change, b);
    if (cached && cached.length >= length) return Promise.resolve(cached);
    const key = this.keyOf(b);
    const pending = blocksInFlight.get(key);
    // Joining a prefetch: mark the block read so it counts as a readahead hit, not waste.
    if (pending)
      return prefetch ? pending : pending.then((data) => cache.get(this.inode, this.change, b) ?? data);
    return this.inFlight(b, length, prefetch, this.fetchThroughDisk(b, length));
  }

  /** Block b's name in the disk cache (read-only handles of a client with one), else undefined. */
  private diskName(b: number): string | undefined {
    return this.ctx.diskCache && this.diskPrefix !== undefined ? `${this.diskPrefix}.${b}` : undefined;
  }

  private onDisk(b: number): boolean {
    const name = this.diskName(b);
    return name !== undefined && (this.ctx.diskCache?.has(name) ?? false);
  }

  /** Block b from the disk cache when it holds it whole and sound, else from the OSSs. */
  private async fetchThroughDisk(b: number, length: number): Promise<Buffer> {
    const name = this.diskName(b);
    if (name !== undefined) {
      const kept = await this.ctx.diskCache?.get(name, length);
      if (kept) return kept;
    }
    return this.fetch(b, length);
  }

  /**
   * Block b as in flight until `arriving` settles (demand reads and rebuilds
   * join it), then cached; a prefetch counts against the readahead budget meanwhile.
   */
  private inFlight(b: number, length: number, prefetch: boolean, arriving: Promise<Buffer>): Promise<Buffer> {
    const { cache, blocksInFlight, blocksRebuilding, prefetchInFlight } = this.ctx;
    const key = this.keyOf(b);
    if (prefetch) prefetchInFlight.bytes += length;
    const fetch = arriving
      .then((data) => {
        cache.put(this.inode, this.change, b, data, prefetch);
        const name = this.diskName(b);
        if (name !== undefined && data.length === length) this.ctx.diskCache?.put(name, data);
        return data;
      })
      .finally(() => {
        blocksInFlight.delete(key);
        blocksRebuilding.delete(key);
        if (prefetch) prefetchInFlight.bytes -= length;
      });
    blocksInFlight.set(key, fetch);
    return fetch;
  }

  /** Block b from the OSSs; always awaited through inFlight, which clears its rebuilding mark. */
  private fetch(b: number, length: number): Promise<Buffer> {
    const where = locateByte(this.fileLayout.layout, b * this.blockBytes);
    if (this.fileLayout.layout.pattern === 'ec') {
      return this.ctx.io.readEc(
        this.fileLayout,
        this.inode,
        where.objectIndex,
        where.objectOffset,
        length,
        this.siblingsOf(b, where.objectIndex, this.sizeBytes()),
      );
    }
    return this.ctx.io.readReplicated(
      this.fileLayout,
      this.inode,
      where.objectIndex,
      where.objectOffset,
      length,
    );
  }

  /**
   * ec: block b is in data chunk `chunk`; the same range of data chunk j is
   * block b + (j - chunk) * (stripeSize / blockBytes) (chunks of a stripe are
   * consecutive stripe units of the file).
   */
  private siblingsOf(b: number, chunk: number, size: number): EcSiblings {
    const { cache, blocksInFlight, blocksRebuilding } = this.ctx;
    const blocksPerUnit = this.fileLayout.layout.stripeSize / this.blockBytes;
    return {
      peek: (j) => {
        const sibling = b + (j - chunk) * blocksPerUnit;
        if (cache.has(this.inode, this.change, sibling)) {
          const cached = cache.get(this.inode, this.change, sibling);
          // Cached before an append made the file longer: not whole, so not used.
          if (cached && cached.length === this.blockLength(sibling, size)) return cached;
        }
        const key = this.keyOf(sibling);
        return blocksRebuilding.has(key) ? undefined : blocksInFlight.get(key);
      },
      rebuilding: () => {
        blocksRebuilding.add(this.keyOf(b));
      },
    };
  }

  /** The file's own writes: drop cached blocks they touch. */
  invalidate(position: number, length: number): void {
    if (length <= 0) return;
    this.ctx.cache.invalidate(
      this.inode,
      Math.floor(position / this.blockBytes),
      Math.floor((position + length - 1) / this.blockBytes),
    );
  }
}
