// The index records of recently used objects, decoded: meta and block groups
// (each group's crcs and stamps). Every read of an object needs both (its
// size, the crcs its blocks are verified against and the stamps it answers
// with), and a sequential writer re-reads the group it extends on each write;
// without this each request paid two classic-level lookups and decoded 1,024
// crcs.
//
// Kept in step by the index's writers: each mutation of an object's records
// calls `changed` before its batch and `remember` (or `changed` again) after
// it. A reader that looked up the database may only fill the cache when no
// mutation of any object began or ended since its lookup began
// (`generation`): readers without the object lock (stat, list, scrub) could
// otherwise put back a record a writer had just replaced.

import { INDEX_CACHE_OBJECTS } from '../limits.js';
import type { StoredMeta } from './ost-index.js';

/** One group's blocks: their crcs, and the stamp of the write each holds (0: none known). */
export interface BlockGroup {
  crcs: Uint32Array;
  stamps: Float64Array;
}

interface Entry {
  meta?: StoredMeta;
  groups: Map<number, BlockGroup>;
}

export class IndexCache {
  private readonly entries = new Map<string, Entry>();
  /** Counts mutations; a lookup that began before one must not fill the cache. */
  private generationCount = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly objectsMax = INDEX_CACHE_OBJECTS) {}

  get generation(): number {
    return this.generationCount;
  }

  private touch(objectId: string): Entry | undefined {
    const entry = this.entries.get(objectId);
    if (!entry) return undefined;
    this.entries.delete(objectId);
    this.entries.set(objectId, entry);
    return entry;
  }

  private entryFor(objectId: string): Entry {
    let entry = this.touch(objectId);
    if (!entry) {
      entry = { groups: new Map() };
      this.entries.set(objectId, entry);
      if (this.entries.size > this.objectsMax) {
        const oldest = this.entries.keys().next().value as string;
        this.entries.delete(oldest);
      }
    }
    return entry;
  }

  meta(objectId: string): StoredMeta | undefined {
    const meta = this.touch(objectId)?.meta;
    if (meta) this.hits++;
    else this.misses++;
    return meta;
  }

  /** A block group, or undefined when not cached (a group never written is not cached either). */
  group(objectId: string, group: number): BlockGroup | undefined {
    return this.entries.get(objectId)?.groups.get(group);
  }

  /** Fills from a database lookup that began at `generation`; ignored if the index changed since. */
  fill(
    objectId: string,
    generation: number,
    meta: StoredMeta | undefined,
    groups?: Map<number, BlockGroup>,
  ): void {
    if (generation !== this.generationCount) return;
    if (!meta && !groups?.size) return;
    const entry = this.entryFor(objectId);
    if (meta) entry.meta = meta;
    for (const [g, group] of groups ?? []) entry.groups.set(g, group);
  }

  /** Before a batch that changes the object's records: forget them, and stop fills that began earlier. */
  changed(objectId: string): void {
    this.generationCount++;
    this.entries.delete(objectId);
  }

  /** Forgets everything (the index changed under it: the log's replay at open). */
  clear(): void {
    this.generationCount++;
    this.entries.clear();
  }

  /** Runs `write`, a change to the object's records that leaves nothing to remember, between two `changed`. */
  async rewriting<T>(objectId: string, write: () => Promise<T>): Promise<T> {
    this.changed(objectId);
    try {
      return await write();
    } finally {
      this.changed(objectId);
    }
  }

  /** After the batch: the records it wrote (other groups are looked up again when needed). */
  remember(objectId: string, meta: StoredMeta, groups: Map<number, BlockGroup>): void {
    this.generationCount++;
    const entry = this.entryFor(objectId);
    entry.meta = meta;
    entry.groups = groups;
  }

  get size(): number {
    return this.entries.size;
  }
}
