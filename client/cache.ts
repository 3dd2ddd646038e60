// A byte-bounded LRU of read blocks shared by every open file of a client.
// Keys are (file, change, block index): `change` is the file's commit count
// at the MDS when the reading handle was opened, so a handle opened after
// another client committed new data never sees blocks cached before it
// (close-to-open consistency); opening drops those older blocks. A file's
// own writes invalidate its blocks.
// Blocks that readahead fetched are marked until first read, so hits and
// wasted readahead bytes (evicted or invalidated unread) are counted here.

interface Entry {
  file: number;
  change: number;
  block: number;
  data: Buffer;
  prefetchedUnread: boolean;
}

export interface CacheCounters {
  hits: number;
  misses: number;
  evictions: number;
  readaheadHitBytes: number;
  readaheadWasteBytes: number;
  /** Blocks dropped at an open because the file was committed again since they were cached. */
  staleDrops: number;
}

/** The key of a block of a file as cached under a commit count (also the key of its fetch in flight). */
export function blockKey(file: number, change: number, block: number): string {
  return `${file}:${change}:${block}`;
}

export class BlockCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byFile = new Map<number, Set<string>>();
  private bytes = 0;
  private unreadPrefetched = 0;
  readonly counters: CacheCounters = {
    hits: 0,
    misses: 0,
    evictions: 0,
    readaheadHitBytes: 0,
    readaheadWasteBytes: 0,
    staleDrops: 0,
  };

  constructor(
    readonly capacityBytes: number,
    /** Where dropped blocks go for reuse (client/block-pool.ts). */
    private readonly pool?: { recycle(block: Buffer): void },
  ) {
    if (!Number.isSafeInteger(capacityBytes) || capacityBytes < 0)
      throw new Error(`bad cache capacity ${capacityBytes}`);
  }

  get sizeBytes(): number {
    return this.bytes;
  }

  /** Bytes readahead brought in that nobody has read yet (counts against the global readahead budget). */
  get unreadPrefetchedBytes(): number {
    return this.unreadPrefetched;
  }

  get(file: number, change: number, block: number): Buffer | undefined {
    const key = blockKey(file, change, block);
    const entry = this.entries.get(key);
    if (!entry) {
      this.counters.misses++;
      return undefined;
    }
    this.counters.hits++;
    if (entry.prefetchedUnread) {
      entry.prefetchedUnread = false;
      this.unreadPrefetched -= entry.data.length;
      this.counters.readaheadHitBytes += entry.data.length;
    }
    // Refresh recency: a Map iterates in insertion order, so re-insert at the end.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.data;
  }

  has(file: number, change: number, block: number): boolean {
    return this.entries.has(blockKey(file, change, block));
  }

  put(file: number, change: number, block: number, data: Buffer, prefetched = false): void {
    if (data.length > this.capacityBytes) return;
    const key = blockKey(file, change, block);
    this.remove(key, false, data);
    const entry: Entry = { file, change, block, data, prefetchedUnread: prefetched };
    this.entries.set(key, entry);
    let keys = this.byFile.get(file);
    if (!keys) {
      keys = new Set();
      this.byFile.set(file, keys);
    }
    keys.add(key);
    this.bytes += data.length;
    if (prefetched) this.unreadPrefetched += data.length;
    while (this.bytes > this.capacityBytes) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.remove(oldest, true);
      this.counters.evictions++;
    }
  }

  /** Drops one block a reader is done with (drop-behind); its buffer goes back to the pool. */
  drop(file: number, change: number, block: number): void {
    this.remove(blockKey(file, change, block), false);
  }

  /** Drops blocks of `file` in [firstBlock, lastBlock] (all of them when no range is given). */
  invalidate(file: number, firstBlock = 0, lastBlock = Number.MAX_SAFE_INTEGER): void {
    const keys = this.byFile.get(file);
    if (!keys) return;
    for (const key of [...keys]) {
      const entry = this.entries.get(key);
      if (entry && entry.block >= firstBlock && entry.block <= lastBlock) this.remove(key, true);
    }
  }

  /** Drops the blocks of `file` cached under any other commit count than `change`. */
  retain(file: number, change: number): void {
    const keys = this.byFile.get(file);
    if (!keys) return;
    for (const key of [...keys]) {
      const entry = this.entries.get(key);
      if (entry && entry.change !== change) {
        this.remove(key, true);
        this.counters.staleDrops++;
      }
    }
  }

  /** Drops every block (the blocks go back to the pool for reuse). */
  clear(): void {
    for (const key of [...this.entries.keys()]) this.remove(key, true);
  }

  /** `kept`: the buffer is being stored again under this key, so it is not recycled. */
  private remove(key: string, countWaste: boolean, kept?: Buffer): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.data.length;
    if (entry.prefetchedUnread) {
      this.unreadPrefetched -= entry.data.length;
      if (countWaste) this.counters.readaheadWasteBytes += entry.data.length;
    }
    const keys = this.byFile.get(entry.file);
    keys?.delete(key);
    if (keys?.size === 0) this.byFile.delete(entry.file);
    if (entry.data !== kept) this.pool?.recycle(entry.data);
  }
}
