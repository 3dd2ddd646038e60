// A table with a named bound: when it is full, the entry idle longest makes
// room for the new one, and the drop is counted. Used for job statistics and
// the MDS's table of clients, where the keys come from outside (job ids,
// sessions) and must not grow memory without end. Finding the idlest entry is
// a scan, paid only when a new key arrives at a full table; every other
// lookup is one Map access.
export interface Seen {
  lastSeenMs: number;
}

export class BoundedTable<V extends Seen> {
  private readonly entries = new Map<string, V>();
  /** Entries dropped to make room since start. */
  dropped = 0;

  constructor(
    readonly entriesMax: number,
    private readonly onDrop: (key: string, value: V) => void = () => undefined,
  ) {
    if (!Number.isInteger(entriesMax) || entriesMax < 1) throw new Error(`entriesMax ${entriesMax}`);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  /** The entry of `key`, made by `make` when new; marked seen at `nowMs`. */
  touch(key: string, nowMs: number, make: () => V): V {
    let value = this.entries.get(key);
    if (!value) {
      if (this.entries.size >= this.entriesMax) this.dropIdlest();
      value = make();
      this.entries.set(key, value);
    }
    value.lastSeenMs = nowMs;
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  values(): IterableIterator<V> {
    return this.entries.values();
  }

  entriesList(): [string, V][] {
    return [...this.entries];
  }

  private dropIdlest(): void {
    let idlest: [string, V] | undefined;
    for (const entry of this.entries)
      if (!idlest || entry[1].lastSeenMs < idlest[1].lastSeenMs) idlest = entry;
    if (!idlest) return;
    this.entries.delete(idlest[0]);
    this.dropped++;
    this.onDrop(idlest[0], idlest[1]);
  }
}
