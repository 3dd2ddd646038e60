import { assert, PlacementError } from './errors.js';
import { OST_WEIGHT_MAX } from './limits.js';
import { ancestorOfType, indexMap, leavesUnder } from './map-index.js';
import { checkStructure } from './map-validate.js';
import type { BucketItem, ClusterMap, OstState } from './types.js';

/** Deep copy with the epoch bumped: every mutation yields a new map value and a higher epoch. */
function nextEpoch(map: ClusterMap): ClusterMap {
  const copy: ClusterMap = {
    epoch: map.epoch + 1,
    types: [...map.types],
    osts: map.osts.map((o) => ({ ...o, state: { ...o.state } })),
    buckets: map.buckets.map((b) => ({ ...b, children: [...b.children] })),
    rootName: map.rootName,
  };
  assert(copy.epoch > map.epoch, 'epoch must increase on every change');
  return copy;
}

function ostIndex(map: ClusterMap, ostId: number): number {
  const i = map.osts.findIndex((o) => o.id === ostId);
  if (i < 0) throw new PlacementError('PLACEMENT_INVALID_MAP', `no OST with id ${ostId}`);
  return i;
}

export function setOstState(map: ClusterMap, ostId: number, state: Partial<OstState>): ClusterMap {
  const next = nextEpoch(map);
  const ost = next.osts[ostIndex(next, ostId)]!;
  ost.state = { up: state.up ?? ost.state.up, in: state.in ?? ost.state.in };
  return next;
}

export function setOstWeight(map: ClusterMap, ostId: number, weight: number): ClusterMap {
  if (!Number.isFinite(weight) || weight < 0 || weight > OST_WEIGHT_MAX) {
    throw new PlacementError(
      'PLACEMENT_INVALID_MAP',
      `weight of OST ${ostId}: expected [0, ${OST_WEIGHT_MAX}]`,
    );
  }
  const next = nextEpoch(map);
  next.osts[ostIndex(next, ostId)]!.weight = weight;
  return next;
}

/** Finds the bucket `name` of `type` under `parent`, creating it when absent. */
function ensureBucket(map: ClusterMap, parent: BucketItem, name: string, type: string): BucketItem {
  if (!map.types.includes(type)) {
    throw new PlacementError('PLACEMENT_INVALID_MAP', `map has no '${type}' level; cannot place '${name}'`);
  }
  const existing = map.buckets.find((b) => b.name === name);
  if (existing) {
    if (existing.type !== type || !parent.children.includes(existing.id)) {
      throw new PlacementError(
        'PLACEMENT_INVALID_MAP',
        `'${name}' exists but is not a ${type} under ${parent.name}`,
      );
    }
    return existing;
  }
  const id = Math.min(-1, ...map.buckets.map((b) => b.id)) - 1;
  const bucket: BucketItem = { id, name, type, children: [] };
  map.buckets.push(bucket);
  parent.children.push(id);
  return bucket;
}

export function addOsts(
  map: ClusterMap,
  where: { datacenter?: string; rack: string; host: string },
  osts: { id: number; name: string; weight: number }[],
): ClusterMap {
  const next = nextEpoch(map);
  let parent = next.buckets.find((b) => b.name === next.rootName)!;
  if (where.datacenter !== undefined) parent = ensureBucket(next, parent, where.datacenter, 'datacenter');
  const rack = ensureBucket(next, parent, where.rack, 'rack');
  const host = ensureBucket(next, rack, where.host, 'host');
  for (const o of osts) {
    next.osts.push({
      id: o.id,
      name: o.name,
      weight: o.weight,
      state: { up: true, in: true },
      host: host.name,
    });
    host.children.push(o.id);
  }
  checkStructure(next); // duplicate ids or names are rejected here with the field path
  return next;
}

/**
 * Removes OSTs from the map for good (Ceph's `osd purge`), and every bucket left empty by it (a
 * host whose OSTs are all gone, then its rack...; never the root). Placement skips an out OST
 * before it draws, so removing OSTs that are out moves nothing.
 */
export function removeOsts(map: ClusterMap, ostIds: readonly number[]): ClusterMap {
  for (const id of ostIds) ostIndex(map, id);
  const gone = new Set<number>(ostIds);
  const next = nextEpoch(map);
  next.osts = next.osts.filter((o) => !gone.has(o.id));
  for (let round = 0; round <= next.types.length; round++) {
    for (const b of next.buckets) b.children = b.children.filter((c) => !gone.has(c));
    const empty = next.buckets.filter((b) => b.children.length === 0 && b.name !== next.rootName);
    if (empty.length === 0) break;
    for (const b of empty) gone.add(b.id);
    next.buckets = next.buckets.filter((b) => !gone.has(b.id));
  }
  checkStructure(next);
  return next;
}

export function failureDomainOf(map: ClusterMap, ostId: number, type: string): string | undefined {
  if (type === map.types[0]) return indexMap(map).ostById.get(ostId)?.name;
  return ancestorOfType(map, ostId, type)?.name;
}

/** Failure domains of `type` under the root that hold weight (and, with onlyIn, an in OST). */
export function countFailureDomains(map: ClusterMap, type: string, opts?: { onlyIn?: boolean }): number {
  const index = indexMap(map);
  const root = index.bucketByName.get(map.rootName)!;
  const domains = new Set<string>();
  for (const id of leavesUnder(map, root)) {
    const ost = index.ostById.get(id)!;
    if (ost.weight <= 0 || (opts?.onlyIn && !ost.state.in)) continue;
    const name = failureDomainOf(map, id, type);
    if (name !== undefined) domains.add(name);
  }
  return domains.size;
}
