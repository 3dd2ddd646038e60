// Attributes by path for attrTimeoutMs: filled by lookups and by listings
// (a listing fetches every entry's attributes in one call, so `ls -l` or
// os.walk + os.stat cost no MDS call per entry), dropped by every change the
// mount makes. Other clients' changes show once an entry expires, as the
// kernel's own attribute cache does with the same timeout.
import type { Stat } from '../client/index.js';
import { MOUNT_LIMITS } from './limits.js';

interface Entry {
  stat: Stat;
  expiresAtMs: number;
}

export class AttrCache {
  private readonly entries = new Map<string, Entry>();
  hits = 0;
  misses = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly entriesMax: number = MOUNT_LIMITS.attrCacheEntriesMax,
  ) {}

  get(path: string): Stat | undefined {
    const entry = this.entries.get(path);
    if (entry && entry.expiresAtMs > this.now()) {
      this.hits++;
      return entry.stat;
    }
    if (entry) this.entries.delete(path);
    this.misses++;
    return undefined;
  }

  set(path: string, stat: Stat): void {
    if (this.ttlMs === 0) return;
    if (this.entries.size >= this.entriesMax) this.entries.clear();
    this.entries.set(path, { stat, expiresAtMs: this.now() + this.ttlMs });
  }

  drop(path: string): void {
    this.entries.delete(path);
  }

  /** Drops `path` and everything below it (a renamed or removed directory). */
  dropTree(path: string): void {
    this.entries.delete(path);
    const prefix = path === '/' ? '/' : `${path}/`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
