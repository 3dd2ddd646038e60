import { PlacementError } from './errors.js';
import { foldWord, HASH_SEED, premixWord } from './hash.js';
import { RULE_SIZE_MAX, WEIGHT_FIXED_ONE } from './limits.js';
import { ancestorOfType, bucketNamed, indexMap, leavesUnder } from './map-index.js';
import type { ClusterMap } from './types.js';

/**
 * The flat form of (map, take root, failure-domain type) that the stripefs rules draw from:
 * every OST under the root with a positive 16.16 weight, the failure domain it belongs to,
 * and scratch arrays reused across calls (single-threaded, never re-entered).
 */
export interface FlatLayout {
  epoch: number;
  rootName: string;
  domainType: string;
  leafIds: Int32Array;
  leafPremix: Int32Array; // premixWord(id), hoisted out of the per-input loop
  leafWeight16: Float64Array; // integers, 16.16 fixed point, > 0
  leafInvWeight: Float64Array; // 1 / leafWeight16, so a draw is one multiply
  leafIn: Uint8Array;
  leafUp: Uint8Array;
  leafDomain: Int32Array;
  leafNames: string[];
  domainNames: string[];
  zeroWeightNames: string[]; // OSTs under the root never drawn because their weight is 0
  // scratch, sized domainCount
  keyAll: Float64Array;
  bestAll: Int32Array;
  keyIn: Float64Array;
  bestIn: Int32Array;
  held: Uint8Array;
  posLeaf: Int32Array; // erasure scratch, RULE_SIZE_MAX long
  posDomain: Int32Array;
}

/** Ceph stores weights as 16.16 fixed point; we round the same way so imported maps agree. */
export function toWeight16(weight: number): number {
  return Math.round(weight * WEIGHT_FIXED_ONE);
}

const layouts = new WeakMap<ClusterMap, Map<string, FlatLayout>>();

/** One-entry memo in front of the WeakMap: simulations call with the same map and rule in a loop. */
let last: { map: ClusterMap; rootName: string; domainType: string; layout: FlatLayout } | undefined;

export function flatLayout(map: ClusterMap, rootName: string, domainType: string): FlatLayout {
  if (last && last.map === map && last.layout.epoch === map.epoch) {
    if (last.rootName === rootName && last.domainType === domainType) return last.layout;
  }
  const layout = flatLayoutSlow(map, rootName, domainType);
  last = { map, rootName, domainType, layout };
  return layout;
}

function flatLayoutSlow(map: ClusterMap, rootName: string, domainType: string): FlatLayout {
  let perMap = layouts.get(map);
  const key = `${rootName}\u0000${domainType}`;
  const hit = perMap?.get(key);
  if (hit && hit.epoch === map.epoch) return hit;
  const layout = buildLayout(map, rootName, domainType);
  if (!perMap || perMap.values().next().value?.epoch !== map.epoch) {
    perMap = new Map();
    layouts.set(map, perMap);
  }
  perMap.set(key, layout);
  return layout;
}

function buildLayout(map: ClusterMap, rootName: string, domainType: string): FlatLayout {
  const typeRank = map.types.indexOf(domainType);
  if (typeRank < 0) {
    throw new PlacementError(
      'PLACEMENT_INVALID_RULE',
      `failure domain '${domainType}' is not a type of this map`,
    );
  }
  const index = indexMap(map);
  const root = bucketNamed(map, rootName);
  const ids: number[] = [];
  const domainOfLeaf: number[] = [];
  const domainNames: string[] = [];
  const domainIndex = new Map<string, number>();
  const zeroWeightNames: string[] = [];
  for (const id of leavesUnder(map, root)) {
    const ost = index.ostById.get(id)!;
    if (toWeight16(ost.weight) <= 0) {
      zeroWeightNames.push(ost.name);
      continue;
    }
    const domainName = typeRank === 0 ? ost.name : ancestorOfType(map, id, domainType)?.name;
    if (domainName === undefined) {
      throw new PlacementError('PLACEMENT_INVALID_RULE', `OST '${ost.name}' has no '${domainType}' ancestor`);
    }
    let d = domainIndex.get(domainName);
    if (d === undefined) {
      d = domainNames.length;
      domainIndex.set(domainName, d);
      domainNames.push(domainName);
    }
    ids.push(id);
    domainOfLeaf.push(d);
  }
  const osts = ids.map((id) => index.ostById.get(id)!);
  const domainCount = domainNames.length;
  return {
    epoch: map.epoch,
    rootName,
    domainType,
    leafIds: Int32Array.from(ids),
    leafPremix: Int32Array.from(ids, premixWord),
    leafWeight16: Float64Array.from(osts, (o) => toWeight16(o.weight)),
    leafInvWeight: Float64Array.from(osts, (o) => 1 / toWeight16(o.weight)),
    leafIn: Uint8Array.from(osts, (o) => (o.state.in ? 1 : 0)),
    leafUp: Uint8Array.from(osts, (o) => (o.state.up ? 1 : 0)),
    leafDomain: Int32Array.from(domainOfLeaf),
    leafNames: osts.map((o) => o.name),
    domainNames,
    zeroWeightNames,
    keyAll: new Float64Array(domainCount),
    bestAll: new Int32Array(domainCount),
    keyIn: new Float64Array(domainCount),
    bestIn: new Int32Array(domainCount),
    held: new Uint8Array(domainCount),
    posLeaf: new Int32Array(RULE_SIZE_MAX),
    posDomain: new Int32Array(RULE_SIZE_MAX),
  };
}

/** Hash state after folding the input word: shared by every leaf draw of one input. */
export function inputState(x: number): number {
  return foldWord(HASH_SEED, premixWord(x));
}
