// The open cache's answers kept on the client's disk beside the disk cache's
// blocks, so that a client started again (the next epoch's loader process)
// opens a file whose blocks are all on its disk without asking the MDS. Only in
// the open cache's TTL mode (limits.openCacheTtlMs > 0) and only within that TTL
// of the answer, counted from the wall clock since the process that asked has
// gone: the same promise as the memory open cache, which a restart would
// otherwise cut short. Files with bytes on the MDS are not kept (those bytes
// are not on the disk). One log per identity, so a keyring never opens what
// another identity's client read; tickets are not written. Changes this client
// makes to a path (writes, truncates, renames, removals) drop its entry, in the
// log too, so a client started later does not see the old version. The log is
// a JSON line per answer or drop, read once at start (a torn last line from a
// crash is skipped) and written anew when it grows past twice its entries.
import { createHash } from 'node:crypto';
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Attr__Output } from '../proto/index.js';
import { blocksOnDisk, type DiskCache } from './disk-cache.js';
import { readBlockBytes } from './file-reader.js';
import type { Opened } from './mds-client.js';

/** Log lines past which the log is written anew from its live entries (beyond twice their count). */
const REWRITE_SLACK_LINES = 1_000;

interface Kept {
  attr: Attr__Output;
  /** Wall-clock ms of the MDS's answer. */
  atMs: number;
}

interface Line {
  /** Path. */
  p: string;
  /** Wall-clock ms of the answer (or of the drop). */
  t: number;
  /** The answer; absent: the path was dropped. */
  a?: Attr__Output;
}

export class DiskOpenIndex {
  private readonly entries = new Map<string, Kept>();
  private pending: string[] = [];
  private writing: Promise<void> | undefined;
  private linesInLog = 0;
  /** Opens answered from here, and entries found but not used (older than the TTL). */
  hits = 0;
  expired = 0;

  private constructor(
    readonly file: string,
    readonly ttlMs: number,
    private readonly entriesMax: number,
    private readonly nowMs: () => number,
  ) {}

  /** The log in `dir` (the disk cache's folder for this cluster) for `identity` (none: no keyring). */
  static async open(
    dir: string,
    identity: string | undefined,
    ttlMs: number,
    entriesMax: number,
    nowMs: () => number = Date.now,
  ): Promise<DiskOpenIndex> {
    const who = createHash('sha256')
      .update(identity ?? '')
      .digest('hex')
      .slice(0, 16);
    const index = new DiskOpenIndex(join(dir, `opens-${who}.jsonl`), ttlMs, entriesMax, nowMs);
    await index.load();
    return index;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The kept answer for `path` when it is younger than the TTL. */
  get(path: string): Attr__Output | undefined {
    const kept = this.entries.get(path);
    if (!kept) return undefined;
    if (this.nowMs() - kept.atMs >= this.ttlMs) {
      this.expired++;
      this.entries.delete(path);
      return undefined;
    }
    return kept.attr;
  }

  /**
   * The kept answer for `path`, within the TTL, when every block of that version of the file is
   * in `cache` too: then reading it needs neither the MDS nor an OSS. Else undefined (ask the MDS).
   */
  wholeOnDisk(path: string, cache: DiskCache, cacheBlockBytes: number): Opened | undefined {
    const attr = this.get(path);
    if (!attr?.layout) return undefined;
    if (!blocksOnDisk(cache, attr, readBlockBytes(attr.layout.stripeSize, cacheBlockBytes))) return undefined;
    // As the MDS answers an open of a file with no bytes on it: no bytes, not "not sent".
    return { attr, domData: Buffer.alloc(0) };
  }

  /** Keeps an open's answer the MDS just gave (its ticket left out); not a directory's, nor a file's with bytes on the MDS. */
  put(path: string, attr: Attr__Output): void {
    if (attr.type !== 'FILE_TYPE_FILE' || (attr.layout?.domBytes ?? 0) !== 0) return;
    const kept = { attr: { ...attr, ticket: '' }, atMs: this.nowMs() };
    this.entries.delete(path);
    while (this.entries.size >= this.entriesMax) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    this.entries.set(path, kept);
    this.append({ p: path, t: kept.atMs, a: kept.attr });
  }

  /** Drops `path` (this client changed it). */
  forget(path: string): void {
    if (!this.entries.delete(path)) return;
    this.append({ p: path, t: this.nowMs() });
  }

  /** Drops `path` and everything under it (a directory renamed or removed). */
  forgetTree(path: string): void {
    const prefix = path.endsWith('/') ? path : `${path}/`;
    for (const key of [...this.entries.keys()]) if (key === path || key.startsWith(prefix)) this.forget(key);
  }

  /** Resolves once every line asked for is in the log (close, tests). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private append(line: Line): void {
    this.pending.push(`${JSON.stringify(line)}\n`);
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
    });
  }

  /** Writes what is pending, one write at a time; the log is written anew once mostly dead lines. */
  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const lines = this.pending;
      this.pending = [];
      try {
        if (this.linesInLog + lines.length > 2 * this.entries.size + REWRITE_SLACK_LINES)
          await this.rewrite();
        else {
          await appendFile(this.file, lines.join(''));
          this.linesInLog += lines.length;
        }
      } catch {
        // A full or read-only disk costs the next process these answers (it asks the MDS), never an open.
      }
    }
  }

  /** The log written anew from the live entries: a temp file renamed over it. */
  private async rewrite(): Promise<void> {
    const lines = [...this.entries].map(([p, k]) => `${JSON.stringify({ p, t: k.atMs, a: k.attr })}\n`);
    const temp = `${this.file}.${process.pid}.tmp`;
    await writeFile(temp, lines.join(''));
    await rename(temp, this.file);
    this.linesInLog = lines.length;
  }

  /** What earlier clients left: the last line of each path wins; stale and torn lines are skipped. */
  private async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return; // no log yet
    }
    const now = this.nowMs();
    for (const raw of text.split('\n')) {
      if (raw === '') continue;
      this.linesInLog++;
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch {
        continue; // a line torn by a crash mid-append
      }
      this.entries.delete(line.p);
      if (line.a && now - line.t < this.ttlMs) this.entries.set(line.p, { attr: line.a, atMs: line.t });
    }
    while (this.entries.size > this.entriesMax)
      this.entries.delete(this.entries.keys().next().value as string);
  }
}
