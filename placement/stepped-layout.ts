import { assert, PlacementError } from './errors.js';
import { premixWord } from './hash.js';
import { toWeight16 } from './layout.js';
import { RULE_SIZE_MAX } from './limits.js';
import { ancestorOfType, bucketNamed, indexMap, leavesUnder } from './map-index.js';
import type { ChooseStep, ClusterMap } from './types.js';

/**
 * The form of (map, take root, choose steps) that multi-step rules walk: the OSTs under the
 * root with a positive weight in depth-first order, and per step the items of its type as runs
 * of consecutive leaves (a subtree is a run in depth-first order). Step types descend the
 * hierarchy, so every item of step s lies inside one item of step s - 1 and the children of a
 * parent are a run of items too. Scratch arrays are reused across calls (never re-entered).
 */
export interface SteppedLayout {
  epoch: number;
  rootName: string;
  leafIds: Int32Array;
  leafPremix: Int32Array;
  leafWeight16: Float64Array; // integers, 16.16 fixed point, > 0
  leafInvWeight: Float64Array; // 1 / weight16
  leafIn: Uint8Array;
  leafUp: Uint8Array;
  leafNames: string[];
  zeroWeightNames: string[];
  levels: SteppedLevel[];
  // scratch
  draw: Float64Array; // per leaf: the draw of the current input (and slot, for indep)
  slotsA: Int32Array; // the items one step produced (HOLE: none), RULE_SIZE_MAX long
  slotsB: Int32Array;
  slotLeaf: Int32Array; // last step: each slot's leaf
  slotParent: Int32Array; // last step: each slot's parent item (index in the previous step)
  held: Uint8Array; // sized by the largest step's item count
  pairKey: Float64Array; // indep: per (new slot t, child c) at t * itemsMax + c, the child's best draw
  pairLeaf: Int32Array; // and that leaf
  itemsMax: number;
}

export interface SteppedLevel {
  type: string;
  count: number;
  itemNames: string[];
  itemIds: number[]; // bucket ids, or OST ids when the type is the leaf type
  /** Leaves of item j: itemStart[j] .. itemStart[j + 1] - 1. */
  itemStart: Int32Array;
  /** Items of this step under parent j of the previous step (the root for step 0): childStart[j] .. childStart[j + 1] - 1. */
  childStart: Int32Array;
  itemKey: Float64Array; // scratch: each item's best leaf draw
  itemBest: Int32Array; // scratch: that leaf
}

const layouts = new WeakMap<ClusterMap, Map<string, SteppedLayout>>();

export function steppedLayout(map: ClusterMap, rootName: string, steps: ChooseStep[]): SteppedLayout {
  const key = [rootName, ...steps.map((s) => `${s.type}=${s.count}`)].join('\u0000');
  let perMap = layouts.get(map);
  const hit = perMap?.get(key);
  if (hit && hit.epoch === map.epoch) return hit;
  if (!perMap || perMap.values().next().value?.epoch !== map.epoch) {
    perMap = new Map();
    layouts.set(map, perMap);
  }
  const layout = buildSteppedLayout(map, rootName, steps);
  perMap.set(key, layout);
  return layout;
}

function buildSteppedLayout(map: ClusterMap, rootName: string, steps: ChooseStep[]): SteppedLayout {
  const ranks = steps.map((s) => map.types.indexOf(s.type));
  ranks.forEach((rank, i) => {
    if (rank < 0) badRule(`step type '${steps[i]!.type}' is not a type of this map`);
    if (i > 0 && rank >= ranks[i - 1]!)
      badRule(
        `step types must descend the hierarchy ('${steps[i]!.type}' is not below '${steps[i - 1]!.type}')`,
      );
  });
  const index = indexMap(map);
  const root = bucketNamed(map, rootName);
  const zeroWeightNames: string[] = [];
  const osts = leavesUnder(map, root)
    .map((id) => index.ostById.get(id)!)
    .filter((o) => {
      if (toWeight16(o.weight) > 0) return true;
      zeroWeightNames.push(o.name);
      return false;
    });
  const levels = steps.map((step, s) => {
    const ancestors = osts.map((o) => {
      if (ranks[s] === 0) return { name: o.name, id: o.id };
      const b = ancestorOfType(map, o.id, step.type);
      if (!b) badRule(`OST '${o.name}' has no '${step.type}' ancestor`);
      return { name: b.name, id: b.id };
    });
    return buildLevel(step, ancestors);
  });
  levels.forEach((level, s) => {
    level.childStart = childStarts(
      level.itemStart,
      s === 0 ? Int32Array.of(0, osts.length) : levels[s - 1]!.itemStart,
    );
  });
  const itemsMax = Math.max(1, ...levels.map((l) => l.itemNames.length));
  return {
    epoch: map.epoch,
    rootName,
    leafIds: Int32Array.from(osts, (o) => o.id),
    leafPremix: Int32Array.from(osts, (o) => premixWord(o.id)),
    leafWeight16: Float64Array.from(osts, (o) => toWeight16(o.weight)),
    leafInvWeight: Float64Array.from(osts, (o) => 1 / toWeight16(o.weight)),
    leafIn: Uint8Array.from(osts, (o) => (o.state.in ? 1 : 0)),
    leafUp: Uint8Array.from(osts, (o) => (o.state.up ? 1 : 0)),
    leafNames: osts.map((o) => o.name),
    zeroWeightNames,
    levels,
    draw: new Float64Array(osts.length),
    slotsA: new Int32Array(RULE_SIZE_MAX),
    slotsB: new Int32Array(RULE_SIZE_MAX),
    slotLeaf: new Int32Array(RULE_SIZE_MAX),
    slotParent: new Int32Array(RULE_SIZE_MAX),
    held: new Uint8Array(itemsMax),
    pairKey: new Float64Array(RULE_SIZE_MAX * itemsMax),
    pairLeaf: new Int32Array(RULE_SIZE_MAX * itemsMax),
    itemsMax,
  };
}

function badRule(why: string): never {
  throw new PlacementError('PLACEMENT_INVALID_RULE', why);
}

/** Items as runs of leaves with the same ancestor; asserts each ancestor is one run. */
function buildLevel(step: ChooseStep, ancestors: { name: string; id: number }[]): SteppedLevel {
  const itemNames: string[] = [];
  const itemIds: number[] = [];
  const starts: number[] = [];
  const seen = new Set<number>();
  ancestors.forEach((a, i) => {
    if (i > 0 && ancestors[i - 1]!.id === a.id) return;
    assert(!seen.has(a.id), `the leaves of ${step.type} '${a.name}' are contiguous`);
    seen.add(a.id);
    itemNames.push(a.name);
    itemIds.push(a.id);
    starts.push(i);
  });
  starts.push(ancestors.length);
  return {
    type: step.type,
    count: step.count,
    itemNames,
    itemIds,
    itemStart: Int32Array.from(starts),
    childStart: new Int32Array(0),
    itemKey: new Float64Array(itemNames.length),
    itemBest: new Int32Array(itemNames.length),
  };
}

/** For each parent run, the first child item starting inside it (children nest in parents). */
function childStarts(itemStart: Int32Array, parentStart: Int32Array): Int32Array {
  const parents = parentStart.length - 1;
  const starts = new Int32Array(parents + 1);
  let item = 0;
  for (let j = 0; j < parents; j++) {
    starts[j] = item;
    while (item < itemStart.length - 1 && itemStart[item]! < parentStart[j + 1]!) item++;
  }
  starts[parents] = item;
  assert(item === itemStart.length - 1, 'every item lies under a parent item');
  return starts;
}

/** Ceph's count rule: count > 0 is taken as is, count <= 0 means width + count. */
export function stepCount(count: number, width: number): number {
  return count > 0 ? count : count + width;
}
