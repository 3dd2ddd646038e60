import { assert, PlacementError } from './errors.js';
import type { BucketItem, ClusterMap, OstItem } from './types.js';

/** Lookup tables derived from a map. Maps are treated as immutable values (every edit returns a copy). */
export interface MapIndex {
  ostById: Map<number, OstItem>;
  bucketById: Map<number, BucketItem>;
  bucketByName: Map<string, BucketItem>;
  parentOf: Map<number, number>;
}

const cache = new WeakMap<ClusterMap, { epoch: number; index: MapIndex }>();

/** Memoised per (map object, epoch); a map mutated in place without an epoch bump is a caller bug. */
export function indexMap(map: ClusterMap): MapIndex {
  const hit = cache.get(map);
  if (hit && hit.epoch === map.epoch) return hit.index;
  const index: MapIndex = {
    ostById: new Map(map.osts.map((o) => [o.id, o])),
    bucketById: new Map(map.buckets.map((b) => [b.id, b])),
    bucketByName: new Map(map.buckets.map((b) => [b.name, b])),
    parentOf: new Map(),
  };
  for (const b of map.buckets) for (const c of b.children) index.parentOf.set(c, b.id);
  cache.set(map, { epoch: map.epoch, index });
  return index;
}

export function bucketNamed(map: ClusterMap, name: string): BucketItem {
  const b = indexMap(map).bucketByName.get(name);
  if (!b) throw new PlacementError('PLACEMENT_INVALID_RULE', `no bucket named '${name}' in the map`);
  return b;
}

/** OST ids under a bucket, in depth-first child order (the order every draw iterates in). */
export function leavesUnder(map: ClusterMap, bucket: BucketItem): number[] {
  const index = indexMap(map);
  const out: number[] = [];
  const walk = (b: BucketItem, depth: number): void => {
    assert(depth <= map.types.length, 'hierarchy deeper than its type list');
    for (const c of b.children) {
      if (c >= 0) out.push(c);
      else walk(index.bucketById.get(c)!, depth + 1);
    }
  };
  walk(bucket, 0);
  return out;
}

/** The ancestor bucket of the given type (or the item itself when it is a bucket of that type). */
export function ancestorOfType(map: ClusterMap, itemId: number, type: string): BucketItem | undefined {
  const index = indexMap(map);
  let id: number | undefined = itemId;
  for (let depth = 0; id !== undefined && depth <= map.types.length; depth++) {
    const b = index.bucketById.get(id);
    if (b && b.type === type) return b;
    id = index.parentOf.get(id);
  }
  return undefined;
}

/** Name of an item for messages and explain output. */
export function itemName(map: ClusterMap, id: number): string {
  const index = indexMap(map);
  return (id >= 0 ? index.ostById.get(id)?.name : index.bucketById.get(id)?.name) ?? `#${id}`;
}
