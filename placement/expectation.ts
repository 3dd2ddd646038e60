import { assert } from './errors.js';
import { flatLayout } from './layout.js';
import { ruleWidth } from './rule.js';
import { stepCount, steppedLayout } from './stepped-layout.js';
import type { ChooseStep, ClusterMap, RuleSpec } from './types.js';

/** Water-filling rounds are bounded by the domain count; this caps a malformed loop. */
const WATER_FILL_ROUNDS_MAX = 1 << 16;

/**
 * Expected members per input held by each OST under an ideal placement: each failure domain
 * can hold at most one member per input, so a domain whose weight share times n exceeds 1 is
 * capped at 1 and the rest is shared by weight among the others (water-filling); within a
 * domain, members are shared by OST weight. Out or zero-weight OSTs expect 0. Sums to
 * min(n, domain count). Used for the simulator's "expected" column and the ideal movement.
 */
export function expectedShares(map: ClusterMap, rule: RuleSpec): Map<number, number> {
  if (rule.steps !== undefined) return steppedShares(map, rule, rule.steps);
  const layout = flatLayout(map, rule.root ?? map.rootName, rule.failureDomain);
  const domainWeight = new Float64Array(layout.domainNames.length);
  layout.leafIds.forEach((_, i) => {
    if (layout.leafIn[i] === 1) domainWeight[layout.leafDomain[i]!]! += layout.leafWeight16[i]!;
  });
  const share = waterFill(Array.from(domainWeight), ruleWidth(rule));
  const out = new Map<number, number>();
  layout.leafIds.forEach((id, i) => {
    const d = layout.leafDomain[i]!;
    const w = layout.leafIn[i] === 1 ? layout.leafWeight16[i]! : 0;
    out.set(id, w === 0 ? 0 : (share[d]! * w) / domainWeight[d]!);
  });
  return out;
}

/**
 * Multi-step rules: each step water-fills its `count` picks over the children of every parent
 * by in weight, so an item's chance to be chosen is its parent's chance times its water-filled
 * share; a chosen domain holds one member, shared by its in OSTs by weight. The width cap on
 * the total (when the counts multiply to more than the width) is not modelled.
 */
function steppedShares(map: ClusterMap, rule: RuleSpec, steps: ChooseStep[]): Map<number, number> {
  const layout = steppedLayout(map, rule.root ?? map.rootName, steps);
  const { levels, leafIds, leafIn, leafWeight16 } = layout;
  const width = ruleWidth(rule);
  const inWeight = (first: number, end: number) => {
    let w = 0;
    for (let i = first; i < end; i++) w += leafIn[i] === 1 ? leafWeight16[i]! : 0;
    return w;
  };
  let chance = [1]; // the root is always there
  for (const level of levels) {
    const next = new Array<number>(level.itemNames.length).fill(0);
    const want = Math.max(0, Math.min(stepCount(level.count, width), width));
    chance.forEach((parentChance, parent) => {
      const first = level.childStart[parent]!;
      const end = level.childStart[parent + 1]!;
      const weights = [];
      for (let c = first; c < end; c++) weights.push(inWeight(level.itemStart[c]!, level.itemStart[c + 1]!));
      waterFill(weights, want).forEach((share, k) => {
        next[first + k] = parentChance * share;
      });
    });
    chance = next;
  }
  const last = levels.at(-1)!;
  const out = new Map<number, number>();
  chance.forEach((domainChance, d) => {
    const first = last.itemStart[d]!;
    const end = last.itemStart[d + 1]!;
    const total = inWeight(first, end);
    for (let i = first; i < end; i++) {
      const w = leafIn[i] === 1 ? leafWeight16[i]! : 0;
      out.set(leafIds[i]!, w === 0 ? 0 : (domainChance * w) / total);
    }
  });
  return out;
}

/** Shares per domain (members per input), each at most 1, summing to min(slots, non-empty domains). */
export function waterFill(weights: number[], slots: number): number[] {
  const share = weights.map(() => 0);
  const capped = weights.map((w) => w <= 0);
  let slotsLeft = Math.min(slots, capped.filter((c) => !c).length);
  for (let round = 0; round < WATER_FILL_ROUNDS_MAX; round++) {
    const free = weights.reduce((sum, w, d) => (capped[d] ? sum : sum + w), 0);
    if (free <= 0 || slotsLeft <= 0) break;
    let newlyCapped = false;
    weights.forEach((w, d) => {
      if (!capped[d] && (slotsLeft * w) / free >= 1) {
        capped[d] = true;
        share[d] = 1;
        newlyCapped = true;
      }
    });
    slotsLeft = Math.min(slots, weights.filter((w) => w > 0).length) - share.reduce((a, b) => a + b, 0);
    if (newlyCapped) continue;
    weights.forEach((w, d) => {
      if (!capped[d]) share[d] = (slotsLeft * w) / free;
    });
    break;
  }
  assert(
    share.every((s) => s >= 0 && s <= 1 + 1e-9),
    'water-filled shares stay within [0, 1]',
  );
  return share;
}
