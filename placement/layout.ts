import { assert, PlacementError } from './errors.js';
import { foldWord, HASH_SEED, premixWord } from './hash.js';
import { PACKED_KEY_LEAVES_MAX, RULE_SIZE_MAX, WEIGHT_FIXED_ONE } from './limits.js';
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
  /** Weight class of each leaf: leaves of one class share a weight, so u alone orders their draws. */
  leafClass: Int32Array;
  classInvWeight: Float64Array; // 1 / weight16 of each class
  allIn: boolean; // no leaf is out: the in-only scan and out replacement are skipped
  /**
   * One weight and fewer than 2^15 leaves: erasure keys are packed (u, leaf) integers
   * (flat-positions.ts), all >= 1 because the leaf part 2^15 - 1 - index is (index <= 2^15 - 2).
   */
  packedKeys: boolean;
  /** Leaves of domain d are leafIndex domainStart[d] .. domainStart[d+1]-1 (depth-first order keeps them together). */
  domainStart: Int32Array;
  leafNames: string[];
  domainNames: string[];
  zeroWeightNames: string[]; // OSTs under the root never drawn because their weight is 0
  // scratch, sized domainCount
  keyAll: Float64Array;
  bestAll: Int32Array;
  keyIn: Float64Array;
  bestIn: Int32Array;
  held: Uint8Array;
  bestU: Int32Array; // u of each domain's best leaf, sized domainCount
  leafStates: Int32Array; // weighted erasure scratch: each leaf's hash state for the current input
  posLeaf: Int32Array; // erasure scratch, RULE_SIZE_MAX long
  posDomain: Int32Array;
  posChoice: Int32Array; // erasure: each unplaced position's best free domain (-1: none left)
  posChoiceKey: Float64Array; // its key
  posChoiceKeyPacked: Int32Array; // its key when packedKeys (0: none)
  posOrder: Int32Array; // erasure: unplaced positions, best choice first
  // erasure: per (position p, domain d) at p * domainCount + d, the best leaf of d in p's draw
  pairLeaf: Int32Array; // written by the weighted scan only (packed keys carry the leaf)
  pairKey: Float64Array; // its key (the draw), written by the weighted scan
  pairKeyPacked: Int32Array; // the packed (u, leaf) key when packedKeys
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

interface LeafList {
  ids: number[];
  domainOfLeaf: number[];
  domainNames: string[];
  zeroWeightNames: string[];
}

/** Leaves under the root in depth-first order with their failure domain; weight-0 OSTs set aside. */
function collectLeaves(map: ClusterMap, rootName: string, domainType: string): LeafList {
  const typeRank = map.types.indexOf(domainType);
  if (typeRank < 0) {
    throw new PlacementError(
      'PLACEMENT_INVALID_RULE',
      `failure domain '${domainType}' is not a type of this map`,
    );
  }
  const index = indexMap(map);
  const list: LeafList = { ids: [], domainOfLeaf: [], domainNames: [], zeroWeightNames: [] };
  const domainIndex = new Map<string, number>();
  for (const id of leavesUnder(map, bucketNamed(map, rootName))) {
    const ost = index.ostById.get(id)!;
    if (toWeight16(ost.weight) <= 0) {
      list.zeroWeightNames.push(ost.name);
      continue;
    }
    const domainName = typeRank === 0 ? ost.name : ancestorOfType(map, id, domainType)?.name;
    if (domainName === undefined) {
      throw new PlacementError('PLACEMENT_INVALID_RULE', `OST '${ost.name}' has no '${domainType}' ancestor`);
    }
    let d = domainIndex.get(domainName);
    if (d === undefined) {
      d = list.domainNames.length;
      domainIndex.set(domainName, d);
      list.domainNames.push(domainName);
    }
    list.ids.push(id);
    list.domainOfLeaf.push(d);
  }
  return list;
}

function buildLayout(map: ClusterMap, rootName: string, domainType: string): FlatLayout {
  const { ids, domainOfLeaf, domainNames, zeroWeightNames } = collectLeaves(map, rootName, domainType);
  const index = indexMap(map);
  const osts = ids.map((id) => index.ostById.get(id)!);
  const domainCount = domainNames.length;
  const weights16 = osts.map((o) => toWeight16(o.weight));
  const classWeights = [...new Set(weights16)];
  return {
    epoch: map.epoch,
    rootName,
    domainType,
    leafIds: Int32Array.from(ids),
    leafPremix: Int32Array.from(ids, premixWord),
    leafWeight16: Float64Array.from(weights16),
    leafInvWeight: Float64Array.from(osts, (o) => 1 / toWeight16(o.weight)),
    leafIn: Uint8Array.from(osts, (o) => (o.state.in ? 1 : 0)),
    leafUp: Uint8Array.from(osts, (o) => (o.state.up ? 1 : 0)),
    leafDomain: Int32Array.from(domainOfLeaf),
    leafClass: Int32Array.from(weights16, (w) => classWeights.indexOf(w)),
    classInvWeight: Float64Array.from(classWeights, (w) => 1 / w),
    allIn: osts.every((o) => o.state.in),
    packedKeys: classWeights.length === 1 && ids.length < PACKED_KEY_LEAVES_MAX,
    domainStart: domainStarts(domainOfLeaf, domainNames.length),
    leafNames: osts.map((o) => o.name),
    domainNames,
    zeroWeightNames,
    keyAll: new Float64Array(domainCount),
    bestAll: new Int32Array(domainCount),
    keyIn: new Float64Array(domainCount),
    bestIn: new Int32Array(domainCount),
    held: new Uint8Array(domainCount),
    bestU: new Int32Array(domainCount),
    leafStates: new Int32Array(ids.length),
    posLeaf: new Int32Array(RULE_SIZE_MAX),
    posDomain: new Int32Array(RULE_SIZE_MAX),
    posChoice: new Int32Array(RULE_SIZE_MAX),
    posChoiceKey: new Float64Array(RULE_SIZE_MAX),
    posChoiceKeyPacked: new Int32Array(RULE_SIZE_MAX),
    posOrder: new Int32Array(RULE_SIZE_MAX),
    pairLeaf: new Int32Array(RULE_SIZE_MAX * domainCount),
    pairKey: new Float64Array(RULE_SIZE_MAX * domainCount),
    pairKeyPacked: new Int32Array(RULE_SIZE_MAX * domainCount),
  };
}

/** Start of each domain's run of leaves; asserts that runs are contiguous (a subtree is, in DFS). */
function domainStarts(domainOfLeaf: number[], domainCount: number): Int32Array {
  const starts = new Int32Array(domainCount + 1);
  starts[domainCount] = domainOfLeaf.length;
  domainOfLeaf.forEach((d, i) => {
    if (i === 0 || domainOfLeaf[i - 1] !== d) {
      assert(d === 0 || domainOfLeaf[i - 1] === d - 1, 'leaves of a failure domain are contiguous');
      starts[d] = i;
    }
  });
  return starts;
}

/** Hash state after folding the input word: shared by every leaf draw of one input. */
export function inputState(x: number): number {
  return foldWord(HASH_SEED, premixWord(x));
}
