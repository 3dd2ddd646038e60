// The opt-in open and attribute cache for read-only datasets (JuiceFS's
// open-cache): with limits.openCacheTtlMs > 0, an open or stat of a path this
// client answered less than the TTL ago is answered from here, the file's
// bytes on the MDS included, without asking the MDS. The default (TTL 0) is
// close-to-open: every open asks the MDS and sees the last close of any
// client. With a TTL, another client's change to a file may stay unseen for up
// to the TTL; this client's own changes (creates, writes, truncates, renames,
// removals, attribute changes) drop the entries they touch at once. Bounded by
// entries and by the bytes on the MDS it holds; the oldest entry goes first.
import type { Opened } from './mds-client.js';
import type { DiskOpenIndex } from './open-index.js';

interface Entry {
  opened: Opened;
  atMs: number;
  bytes: number;
}

export class OpenCache {
  private readonly entries = new Map<string, Entry>();
  private heldBytes = 0;
  hits = 0;
  misses = 0;
  /** Entries found older than the TTL (each one then asked the MDS again). */
  expired = 0;
  /** Where this client's drops are also written, so a client started again does not reuse them. */
  disk: DiskOpenIndex | undefined;

  constructor(
    readonly ttlMs: number,
    private readonly entriesMax: number,
    private readonly bytesMax: number,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /** The answer for `path` if fresh; `needData`: only an answer that carries the bytes on the MDS. */
  get(path: string, needData: boolean): Opened | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(path);
    if (entry && this.nowMs() - entry.atMs >= this.ttlMs) {
      this.expired++;
      this.remove(path);
    } else if (entry && (!needData || entry.opened.domData !== undefined)) {
      this.hits++;
      return entry.opened;
    }
    this.misses++;
    return undefined;
  }

  /**
   * Keeps an answer; an attribute-only answer does not replace a fresh one with bytes of the same
   * file. An open's answer from the MDS is written to the disk log too (`fromMds` false: it came
   * from that log, and keeps the time it was given).
   */
  put(path: string, opened: Opened, fromMds = true): void {
    if (!this.enabled) return;
    if (fromMds && opened.domData !== undefined) this.disk?.put(path, opened.attr);
    const old = this.entries.get(path)?.opened;
    const sameFile = old?.attr.inode === opened.attr.inode && old?.attr.change === opened.attr.change;
    if (sameFile && opened.domData === undefined && old?.domData !== undefined) return;
    this.remove(path);
    const bytes = opened.domData?.length ?? 0;
    if (bytes > this.bytesMax) return;
    while (this.entries.size >= this.entriesMax || this.heldBytes + bytes > this.bytesMax) {
      const oldest = this.entries.keys().next().value as string;
      this.remove(oldest);
    }
    this.entries.set(path, { opened, atMs: this.nowMs(), bytes });
    this.heldBytes += bytes;
  }

  /** Whether a fresh answer is held (with the bytes on the MDS when `needData`); not counted as a hit or a miss. */
  holds(path: string, needData: boolean): boolean {
    const entry = this.entries.get(path);
    if (!entry || this.nowMs() - entry.atMs >= this.ttlMs) return false;
    return !needData || entry.opened.domData !== undefined;
  }

  /** Drops `path`: this client changed it. */
  forget(path: string): void {
    this.remove(path);
    this.disk?.forget(path);
  }

  /** `path` and everything under it (a directory renamed or removed). */
  forgetTree(path: string): void {
    const prefix = path.endsWith('/') ? path : `${path}/`;
    for (const key of [...this.entries.keys()]) if (key === path || key.startsWith(prefix)) this.remove(key);
    this.disk?.forgetTree(path);
  }

  private remove(path: string): void {
    const entry = this.entries.get(path);
    if (!entry) return;
    this.entries.delete(path);
    this.heldBytes -= entry.bytes;
  }
}
