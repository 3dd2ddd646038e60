// Open handles of recently read or written objects, so a run of reads of one
// object (a client's sequential stream, its exact small reads, a small file
// read right after its open), or of writes into it (parallel parts landing in
// the same objects), costs no open and close on the thread pool per request. Handles are shared by concurrent readers (counted), closed when
// unused for IDLE_MS or when more than `max` are open, and dropped when the
// object is deleted (under its write lock, so no reader holds one then): a
// handle never outlives its file's name. Writes use their own handles on the
// same inode, so a cached handle always reads the current bytes; writes are
// one at a time per object (its lock), a sync write's handle kept until its
// fdatasync (write.ts), and a failed first write drops its file's handles.
import { type FileHandle, open } from 'node:fs/promises';

/** A handle unused this long is closed: an object deleted behind the OSS's back is not served for longer. */
export const READ_HANDLE_IDLE_MS = 2_000;

interface Entry {
  fh: Promise<FileHandle>;
  users: number;
  lastUseMs: number;
  dropped: boolean;
}

export class ReadHandles {
  private readonly entries = new Map<string, Entry>();
  private sweeper: NodeJS.Timeout | undefined;
  /** Opens avoided and opens made (tests, /metrics). */
  readonly counts = { reused: 0, opened: 0 };

  constructor(private readonly max = 64) {}

  /** A handle on `path` opened with `flags` (and `mode`, for O_CREAT); call release() when done with it. */
  async acquire(
    path: string,
    flags: number,
    mode?: number,
  ): Promise<{ fh: FileHandle; release: () => void }> {
    const key = `${flags}:${path}`;
    let entry = this.entries.get(key);
    if (entry) this.counts.reused++;
    else {
      this.counts.opened++;
      entry = { fh: open(path, flags, mode), users: 0, lastUseMs: 0, dropped: false };
      this.entries.set(key, entry);
      this.schedule();
    }
    entry.users++;
    const held = entry;
    let fh: FileHandle;
    try {
      fh = await held.fh;
    } catch (err) {
      held.users--;
      if (this.entries.get(key) === held) this.entries.delete(key);
      throw err;
    }
    let released = false;
    return {
      fh,
      release: () => {
        if (released) return;
        released = true;
        held.users--;
        held.lastUseMs = performance.now();
        if (held.dropped && held.users === 0) void close(held);
        else {
          // Least recently used first: the map's order is the order of last release.
          if (this.entries.get(key) === held) {
            this.entries.delete(key);
            this.entries.set(key, held);
          }
          this.trim();
        }
      },
    };
  }

  /** Closes every handle on `path` (now, or when its last reader releases it). */
  drop(path: string): void {
    for (const [key, entry] of this.entries) {
      if (key.slice(key.indexOf(':') + 1) !== path) continue;
      this.entries.delete(key);
      entry.dropped = true;
      if (entry.users === 0) void close(entry);
    }
  }

  /** Closes every handle (the OST is closing). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    const all = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(all.map((e) => close(e)));
  }

  get size(): number {
    return this.entries.size;
  }

  /** Closes the least recently released idle handles beyond `max` (the map is kept in release order). */
  private trim(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.max) return;
      if (entry.users > 0) continue;
      this.entries.delete(key);
      void close(entry);
    }
  }

  private schedule(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = performance.now();
      for (const [key, entry] of this.entries) {
        if (entry.users === 0 && now - entry.lastUseMs >= READ_HANDLE_IDLE_MS) {
          this.entries.delete(key);
          void close(entry);
        }
      }
      if (this.entries.size === 0) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    }, READ_HANDLE_IDLE_MS / 2);
    this.sweeper.unref();
  }
}

async function close(entry: Entry): Promise<void> {
  // An open that failed left nothing to close (its caller got the error).
  const fh = await entry.fh.catch(() => undefined);
  // A close that fails frees the descriptor anyway; nothing reads through it again.
  await fh?.close().catch(() => undefined);
}
