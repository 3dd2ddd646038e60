import { leafHash, leafState } from './flat-draw.js';
import { assertDistinct } from './flat-replicated.js';
import { premixWord } from './hash.js';
import { inputState } from './layout.js';
import { ln16 } from './ln.js';
import { domainOfLeaf } from './stepped-firstn.js';
import { type SteppedLayout, type SteppedLevel, stepCount } from './stepped-layout.js';
import { type ExplainStep, HOLE, type Tracer } from './types.js';

/**
 * Attempt words of outer steps: slot q of the step that is f steps before the last draws with
 * attempt f * STEP_ATTEMPTS + (q >> 1), half q & 1. The last step (f = 0) draws exactly as the
 * one-step erasure rule (flat-positions.ts), so a one-step rule maps identically.
 */
const STEP_ATTEMPTS = 0x10000;

/**
 * Multi-step erasure rule (indep, positional):
 * 1. each step, for every slot the previous step produced, in order, opens `count` new slots
 *    (until `width`, Ceph's result cap) and fills them with distinct children of the slot's
 *    item by the greedy stable matching of the one-step rule: slot q's key for a child is the
 *    child's best leaf in q's own draw; (slot, child) pairs are taken largest key first (ties:
 *    leaf first in depth-first order, then lower slot);
 * 2. a slot whose parent is a hole, or left without a free child, is a hole. Positions never
 *    shift (Ceph drops the slots under a missing parent, which would move later positions);
 * 3. the last step's slots are the positions, each holding its matched leaf; a position whose
 *    leaf is out is replaced in place by its best in leaf among its own domain and the domains
 *    no position holds under the same parent. No other position changes.
 * With one step this is exactly the erasure rule (a test checks it).
 * Writes position p's OST to out[p] (HOLE when none) and returns how many are placed.
 */
export function placeSteppedIndep(
  layout: SteppedLayout,
  width: number,
  x: number,
  out: Int32Array,
  trace?: Tracer,
): number {
  const hx = inputState(x);
  const { levels, slotParent } = layout;
  let cur = layout.slotsA;
  let next = layout.slotsB;
  cur[0] = 0; // the take root
  let curCount = 1;
  for (let s = 0; s < levels.length; s++) {
    const level = levels[s]!;
    const fromLast = levels.length - 1 - s;
    let nextCount = 0;
    for (let j = 0; j < curCount; j++) {
      const want = Math.min(stepCount(level.count, width), width - nextCount);
      if (want <= 0) continue;
      const parent = cur[j]!;
      for (let t = 0; t < want; t++) {
        next[nextCount + t] = HOLE;
        slotParent[nextCount + t] = parent;
      }
      if (parent !== HOLE) matchSlots(layout, s, hx, fromLast, parent, nextCount, want, next, trace);
      nextCount += want;
    }
    [cur, next] = [next, cur];
    curCount = nextCount;
  }
  for (let p = curCount; p < width; p++) cur[p] = HOLE;
  replaceOut(layout, hx, cur, width, trace);
  let placed = 0;
  for (let p = 0; p < width; p++) {
    out[p] = cur[p] === HOLE ? HOLE : layout.leafIds[layout.slotLeaf[p]!]!;
    placed += cur[p] === HOLE ? 0 : 1;
  }
  assertDistinct(cur, width);
  return placed;
}

/** u of slot q (of the step fromLast steps before the last) for a leaf. */
function slotDraw(layout: SteppedLayout, hx: number, leaf: number, premixed: number, q: number): number {
  const h = leafHash(leafState(hx, layout.leafPremix[leaf]!), premixed);
  return ln16((h >>> ((q & 1) << 4)) & 0xffff) * layout.leafInvWeight[leaf]!;
}

/** Per new slot t and child c of the parent: the child's best leaf in slot base + t's draw. */
function slotKeys(
  layout: SteppedLayout,
  level: SteppedLevel,
  hx: number,
  fromLast: number,
  first: number,
  end: number,
  base: number,
  want: number,
): void {
  const { pairKey, pairLeaf, itemsMax } = layout;
  for (let t = 0; t < want; t++) {
    const q = base + t;
    const premixed = premixWord(fromLast * STEP_ATTEMPTS + (q >> 1));
    for (let c = first; c < end; c++) {
      let bestLeaf = -1;
      let bestDraw = Number.NEGATIVE_INFINITY;
      for (let i = level.itemStart[c]!; i < level.itemStart[c + 1]!; i++) {
        const d = slotDraw(layout, hx, i, premixed, q);
        if (bestLeaf < 0 || d > bestDraw) {
          bestDraw = d;
          bestLeaf = i;
        }
      }
      pairKey[t * itemsMax + c - first] = bestDraw;
      pairLeaf[t * itemsMax + c - first] = bestLeaf;
    }
  }
}

/** Greedy matching of slots base .. base + want - 1 to distinct children of parent (holes when children run out). */
function matchSlots(
  layout: SteppedLayout,
  s: number,
  hx: number,
  fromLast: number,
  parent: number,
  base: number,
  want: number,
  next: Int32Array,
  trace?: Tracer,
): void {
  const level = layout.levels[s]!;
  const first = level.childStart[parent]!;
  const end = level.childStart[parent + 1]!;
  slotKeys(layout, level, hx, fromLast, first, end, base, want);
  const { pairKey, pairLeaf, itemsMax, held, slotLeaf } = layout;
  for (let c = first; c < end; c++) held[c] = 0;
  for (let round = 0; round < want; round++) {
    let bestT = -1;
    let bestC = -1;
    for (let t = 0; t < want; t++) {
      if (next[base + t] !== HOLE) continue;
      for (let c = first; c < end; c++) {
        if (held[c] === 1) continue;
        const slot = t * itemsMax + c - first;
        const bestSlot = bestT * itemsMax + bestC - first;
        if (bestT < 0 || pairKey[slot]! > pairKey[bestSlot]!) {
          bestT = t;
          bestC = c;
        } else if (pairKey[slot] === pairKey[bestSlot] && pairLeaf[slot]! < pairLeaf[bestSlot]!) {
          bestT = t; // equal keys: the leaf first in depth-first order (equal leaves: lower slot, kept)
          bestC = c;
        }
      }
    }
    if (bestT < 0) break; // no free child left: the remaining slots stay holes
    held[bestC] = 1;
    next[base + bestT] = bestC;
    slotLeaf[base + bestT] = pairLeaf[bestT * itemsMax + bestC - first]!;
    if (trace) traceMatch(layout, s, parent, base, bestT, bestC, trace);
  }
  for (let c = first; c < end; c++) held[c] = 0;
}

/** Explain: a slot that did not get its own best child first shows that child as taken, then its match. */
function traceMatch(
  layout: SteppedLayout,
  s: number,
  parent: number,
  base: number,
  t: number,
  c: number,
  trace: Tracer,
): void {
  const level = layout.levels[s]!;
  const first = level.childStart[parent]!;
  const end = level.childStart[parent + 1]!;
  let top = first;
  for (let d = first + 1; d < end; d++) {
    if (layout.pairKey[t * layout.itemsMax + d - first]! > layout.pairKey[t * layout.itemsMax + top - first]!)
      top = d;
  }
  if (top !== c)
    trace({ ...itemStep(layout, s, base + t, parent, top, 'rejected'), reason: 'failure-domain-reused' });
  trace(itemStep(layout, s, base + t, parent, c, 'accepted'));
}

/** Positions whose leaf is out take their best in leaf among free domains under the same parent. */
function replaceOut(layout: SteppedLayout, hx: number, cur: Int32Array, width: number, trace?: Tracer): void {
  const { held, leafIn, slotLeaf, slotParent } = layout;
  const last = layout.levels.at(-1)!;
  for (let p = 0; p < width; p++) if (cur[p] !== HOLE) held[cur[p]!] = 1;
  for (let p = 0; p < width; p++) {
    if (cur[p] === HOLE) continue;
    const old = slotLeaf[p]!;
    if (leafIn[old] === 1) {
      if (trace && layout.leafUp[old] === 0)
        trace({ ...leafStep(layout, p, old, 'note'), reason: 'down-but-in' });
      continue;
    }
    trace?.(leafStep(layout, p, old, 'rejected', 'out'));
    held[cur[p]!] = 0; // its own domain may serve the replacement
    const parent = slotParent[p]!;
    const premixed = premixWord(p >> 1);
    let best = -1;
    let bestDraw = Number.NEGATIVE_INFINITY;
    for (let c = last.childStart[parent]!; c < last.childStart[parent + 1]!; c++) {
      if (held[c] === 1) continue;
      for (let i = last.itemStart[c]!; i < last.itemStart[c + 1]!; i++) {
        if (leafIn[i] !== 1) continue;
        const d = slotDraw(layout, hx, i, premixed, p);
        if (best < 0 || d > bestDraw) {
          bestDraw = d;
          best = i;
        }
      }
    }
    cur[p] = best < 0 ? HOLE : domainOfLeaf(last, best);
    if (best < 0) continue;
    slotLeaf[p] = best;
    held[cur[p]!] = 1;
    trace?.({ ...leafStep(layout, p, best, 'accepted'), reason: 'replacement' });
  }
  for (let p = 0; p < width; p++) if (cur[p] !== HOLE) held[cur[p]!] = 0;
}

function itemStep(
  layout: SteppedLayout,
  s: number,
  slot: number,
  parent: number,
  c: number,
  outcome: ExplainStep['outcome'],
): ExplainStep {
  const level = layout.levels[s]!;
  return {
    slot,
    attempt: (layout.levels.length - 1 - s) * STEP_ATTEMPTS + slot,
    level: level.type,
    bucket: s === 0 ? layout.rootName : layout.levels[s - 1]!.itemNames[parent]!,
    candidate: level.itemNames[c]!,
    candidateId: level.itemIds[c]!,
    outcome,
  };
}

function leafStep(
  layout: SteppedLayout,
  p: number,
  leaf: number,
  outcome: ExplainStep['outcome'],
  reason?: ExplainStep['reason'],
): ExplainStep {
  const last = layout.levels.at(-1)!;
  return {
    slot: p,
    attempt: p,
    level: 'ost',
    bucket: last.itemNames[domainOfLeaf(last, leaf)]!,
    candidate: layout.leafNames[leaf]!,
    candidateId: layout.leafIds[leaf]!,
    outcome,
    ...(reason ? { reason } : {}),
  };
}
