import { leafHash, leafState } from './flat-draw.js';
import { assertDistinct } from './flat-replicated.js';
import { premixWord } from './hash.js';
import { inputState } from './layout.js';
import { ln16 } from './ln.js';
import { type SteppedLayout, type SteppedLevel, stepCount } from './stepped-layout.js';
import type { ExplainStep, Tracer } from './types.js';

/** The one draw of replicated rules (attempt 0), shared with the one-step rule (flat-replicated.ts). */
const FIRSTN_PREMIX = premixWord(0);

/**
 * Multi-step replicated rule (firstn), on the flat draws:
 * 1. every leaf draws once, as in the one-step rule; an item's key is its best leaf's draw
 *    (itself an exponential race with the item's total weight);
 * 2. each step, for every item the previous step produced, in order, takes the `count` children
 *    of its type with the largest keys, best first (ties: first in depth-first order), and
 *    stops once `width` items are out (Ceph's result cap); the output is grouped by parent, as
 *    Ceph orders it;
 * 3. each item of the last step is represented by its best leaf; a member whose leaf is out is
 *    replaced by the best in leaf of its own domain or a domain no member holds under the same
 *    parent, so a replacement keeps the rule's shape (two per rack stays two per rack); when the
 *    parent has none left, the member is dropped (short result).
 * With one step this is exactly the replicated rule (a test checks it).
 * Writes members to out[0..count) and returns count.
 */
export function placeSteppedFirstn(
  layout: SteppedLayout,
  width: number,
  x: number,
  out: Int32Array,
  trace?: Tracer,
): number {
  drawLeaves(layout, inputState(x));
  const { levels, held, slotParent } = layout;
  let cur = layout.slotsA;
  let next = layout.slotsB;
  cur[0] = 0; // the take root
  let curCount = 1;
  for (let s = 0; s < levels.length; s++) {
    const level = levels[s]!;
    itemKeys(layout, level);
    let nextCount = 0;
    for (let j = 0; j < curCount; j++) {
      const want = Math.min(stepCount(level.count, width), width - nextCount);
      const parent = cur[j]!;
      for (let t = 0; t < want; t++) {
        const c = bestFreeChild(level, held, level.childStart[parent]!, level.childStart[parent + 1]!);
        if (c < 0) break;
        held[c] = 1;
        slotParent[nextCount] = parent;
        next[nextCount++] = c;
        trace?.(itemStep(layout, s, nextCount - 1, parent, c));
      }
    }
    if (s + 1 < levels.length) for (let t = 0; t < nextCount; t++) held[next[t]!] = 0;
    [cur, next] = [next, cur];
    curCount = nextCount;
  }
  return pickLeaves(layout, cur, curCount, out, trace);
}

/** Members' leaves, best first, with out ones replaced under their parent; held marks the last step's items. */
function pickLeaves(
  layout: SteppedLayout,
  items: Int32Array,
  count: number,
  out: Int32Array,
  trace?: Tracer,
) {
  const { levels, held, leafIn, leafIds, slotParent } = layout;
  const last = levels.at(-1)!;
  let placed = 0;
  for (let t = 0; t < count; t++) {
    const d = items[t]!;
    let leaf = last.itemBest[d]!;
    if (leafIn[leaf] !== 1) {
      trace?.(leafStep(layout, t, leaf, 'rejected', 'out'));
      held[d] = 0; // its own domain may serve the replacement
      const parent = slotParent[t]!;
      leaf = bestInLeaf(layout, last, last.childStart[parent]!, last.childStart[parent + 1]!);
      if (leaf < 0) {
        held[d] = 1;
        trace?.({
          ...leafStep(layout, t, -1, 'rejected', 'no-leaf'),
          detail: 'no in OST left under the parent',
        });
        continue;
      }
      items[t] = domainOfLeaf(last, leaf);
      held[items[t]!] = 1;
      trace?.({ ...leafStep(layout, t, leaf, 'accepted'), reason: 'replacement' });
    } else if (trace) {
      trace(leafStep(layout, t, leaf, 'accepted'));
      if (layout.leafUp[leaf] === 0) trace({ ...leafStep(layout, t, leaf, 'note'), reason: 'down-but-in' });
    }
    layout.slotLeaf[placed] = items[t]!; // scratch: the kept domains, for the distinctness check
    out[placed++] = leafIds[leaf]!;
  }
  for (let t = 0; t < count; t++) held[items[t]!] = 0;
  assertDistinct(layout.slotLeaf, placed);
  return placed;
}

function drawLeaves(layout: SteppedLayout, hx: number): void {
  const { draw, leafPremix, leafInvWeight } = layout;
  for (let i = 0; i < draw.length; i++) {
    draw[i] = ln16(leafHash(leafState(hx, leafPremix[i]!), FIRSTN_PREMIX) & 0xffff) * leafInvWeight[i]!;
  }
}

/** Each item's best leaf draw (ties: the first leaf). */
function itemKeys(layout: SteppedLayout, level: SteppedLevel): void {
  const { draw } = layout;
  const { itemStart, itemKey, itemBest } = level;
  for (let j = 0; j < itemKey.length; j++) {
    let best = itemStart[j]!;
    for (let i = best + 1; i < itemStart[j + 1]!; i++) if (draw[i]! > draw[best]!) best = i;
    itemBest[j] = best;
    itemKey[j] = draw[best]!;
  }
}

function bestFreeChild(level: SteppedLevel, held: Uint8Array, first: number, end: number): number {
  let best = -1;
  for (let c = first; c < end; c++) {
    if (held[c] === 0 && (best < 0 || level.itemKey[c]! > level.itemKey[best]!)) best = c;
  }
  return best;
}

/** The best in leaf of the domains first .. end - 1 that are not held; -1 when none. */
function bestInLeaf(layout: SteppedLayout, level: SteppedLevel, first: number, end: number): number {
  const { draw, leafIn, held } = layout;
  let best = -1;
  for (let c = first; c < end; c++) {
    if (held[c] === 1) continue;
    for (let i = level.itemStart[c]!; i < level.itemStart[c + 1]!; i++) {
      if (leafIn[i] === 1 && (best < 0 || draw[i]! > draw[best]!)) best = i;
    }
  }
  return best;
}

/** Index of the item holding a leaf (binary search over the runs). */
export function domainOfLeaf(level: SteppedLevel, leaf: number): number {
  let lo = 0;
  let hi = level.itemStart.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (level.itemStart[mid]! <= leaf) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function itemStep(layout: SteppedLayout, s: number, slot: number, parent: number, c: number): ExplainStep {
  const level = layout.levels[s]!;
  return {
    slot,
    attempt: 0,
    level: level.type,
    bucket: s === 0 ? layout.rootName : layout.levels[s - 1]!.itemNames[parent]!,
    candidate: level.itemNames[c]!,
    candidateId: level.itemIds[c]!,
    outcome: 'accepted',
    detail: `key = best leaf draw ${level.itemKey[c]!.toFixed(0)}`,
  };
}

function leafStep(
  layout: SteppedLayout,
  slot: number,
  leaf: number,
  outcome: ExplainStep['outcome'],
  reason?: ExplainStep['reason'],
): ExplainStep {
  const last = layout.levels.at(-1)!;
  return {
    slot,
    attempt: 0,
    level: 'ost',
    bucket: leaf < 0 ? layout.rootName : last.itemNames[domainOfLeaf(last, leaf)]!,
    candidate: leaf < 0 ? '-' : layout.leafNames[leaf]!,
    candidateId: leaf < 0 ? -1 : layout.leafIds[leaf]!,
    outcome,
    ...(reason ? { reason } : {}),
  };
}
