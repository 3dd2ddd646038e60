import { assert } from './errors.js';
import { packedLeaf, rechoosePacked } from './flat-packed.js';
import { pairLeafOf } from './flat-positions.js';
import type { FlatLayout } from './layout.js';
import { type ExplainStep, HOLE, type RejectReason, type Tracer } from './types.js';

/**
 * The erasure matching (see flat-erasure.ts): (position, domain) pairs taken greedily by key,
 * as a lazy priority queue of positions ordered by their cached best free choice. Two copies of
 * one loop: `matchPositions` for float draws (ties broken by leaf, then position) and
 * `matchPositionsPacked` for packed integer keys, where equal keys mean the same leaf, so ties
 * go to the lower position and no leaf is decoded. Both compute the unique greedy matching; the
 * naive reference test checks each against the same slow greedy.
 */

/** Re-chooses position p's best free domain (ties: the first domain); -1 when all are held. */
function rechoose(layout: FlatLayout, p: number): void {
  const { held, pairKey, posChoice, posChoiceKey } = layout;
  const domainCount = held.length;
  let best = -1;
  let bestKey = Number.NEGATIVE_INFINITY;
  for (let d = 0, slot = p * domainCount; d < domainCount; d++, slot++) {
    if (held[d] === 0 && pairKey[slot]! > bestKey) {
      bestKey = pairKey[slot]!;
      best = d;
    }
  }
  posChoice[p] = best;
  posChoiceKey[p] = bestKey;
}

/** Whether position p's current choice precedes q's: key, then leaf (depth-first), then position. */
function precedes(layout: FlatLayout, p: number, q: number): boolean {
  const { posChoiceKey, posChoice } = layout;
  const kp = posChoiceKey[p]!;
  const kq = posChoiceKey[q]!;
  if (kp !== kq) return kp > kq;
  const domainCount = layout.held.length;
  const lp = pairLeafOf(layout, p * domainCount + posChoice[p]!);
  const lq = pairLeafOf(layout, q * domainCount + posChoice[q]!);
  return lp !== lq ? lp < lq : p < q;
}

/** Moves order[from] towards the back until it is in place (insertion-sort step). */
function sinkFrom(layout: FlatLayout, order: Int32Array, from: number, end: number): void {
  const p = order[from]!;
  let i = from;
  for (; i + 1 < end && precedes(layout, order[i + 1]!, p); i++) order[i] = order[i + 1]!;
  order[i] = p;
}

/**
 * The greedy matching as a lazy priority queue: positions ordered by their cached best choice;
 * the first one takes its domain if still free, else re-chooses among free domains (its key can
 * only fall) and sinks back into order. Each step assigns, drops or re-chooses one position, and
 * a position re-chooses at most once per domain, so n * (domainCount + 1) steps bound the loop.
 */
export function matchPositions(layout: FlatLayout, n: number, trace?: Tracer): void {
  const { held, posLeaf, posDomain, posChoice, posOrder } = layout;
  const domainCount = held.length;
  for (let d = 0; d < domainCount; d++) held[d] = 0;
  let end = 0; // the queue is posOrder[head .. end)
  for (let p = 0; p < n; p++) {
    posLeaf[p] = HOLE;
    posDomain[p] = HOLE;
    if (posChoice[p]! < 0) continue; // no domain at all
    let i = end++;
    for (; i > 0 && precedes(layout, p, posOrder[i - 1]!); i--) posOrder[i] = posOrder[i - 1]!;
    posOrder[i] = p;
  }
  const stepsMax = n * (domainCount + 1);
  for (let head = 0, steps = 0; head < end; steps++) {
    assert(steps < stepsMax, 'erasure matching is bounded');
    const p = posOrder[head]!;
    const d = posChoice[p]!;
    const leaf = pairLeafOf(layout, p * domainCount + d);
    if (held[d] === 0) {
      held[d] = 1;
      posDomain[p] = d;
      posLeaf[p] = leaf;
      trace?.(step(layout, p, p, leaf, 'accepted'));
      head++;
      continue;
    }
    trace?.(step(layout, p, p, leaf, 'rejected', 'failure-domain-reused'));
    rechoose(layout, p);
    if (posChoice[p]! < 0)
      head++; // every domain is held: p stays a hole
    else sinkFrom(layout, posOrder, head, end);
  }
}

/** Packed keys: q's choice precedes p's when its key is larger, or equal (same leaf) and q < p. */
function precedesPacked(keys: Int32Array, q: number, p: number): boolean {
  return keys[q]! > keys[p]! || (keys[q] === keys[p] && q < p);
}

/**
 * matchPositions for packed keys (one weight): integer keys in posChoiceKeyPacked, re-choices
 * by a branch-free max (rechoosePacked), no float compares. Same bound, same trace steps.
 */
export function matchPositionsPacked(layout: FlatLayout, n: number, trace?: Tracer): void {
  const { held, posLeaf, posDomain, posChoice, posChoiceKeyPacked: keys, posOrder: order } = layout;
  const domainCount = held.length;
  for (let d = 0; d < domainCount; d++) held[d] = 0;
  let end = 0; // the queue is order[head .. end)
  for (let p = 0; p < n; p++) {
    posLeaf[p] = HOLE;
    posDomain[p] = HOLE;
    if (posChoice[p]! < 0) continue; // no domain at all
    const key = keys[p]!;
    let i = end++;
    for (; i > 0 && keys[order[i - 1]!]! < key; i--) order[i] = order[i - 1]!; // equal keys: lower p first
    order[i] = p;
  }
  const stepsMax = n * (domainCount + 1);
  for (let head = 0, steps = 0; head < end; steps++) {
    assert(steps < stepsMax, 'erasure matching is bounded');
    const p = order[head]!;
    const d = posChoice[p]!;
    if (held[d] === 0) {
      held[d] = 1;
      posDomain[p] = d;
      posLeaf[p] = packedLeaf(layout.pairKeyPacked[p * domainCount + d]!);
      if (trace) trace(step(layout, p, p, posLeaf[p]!, 'accepted'));
      head++;
      continue;
    }
    const taken = packedLeaf(layout.pairKeyPacked[p * domainCount + d]!);
    if (trace) trace(step(layout, p, p, taken, 'rejected', 'failure-domain-reused'));
    rechoosePacked(layout, p);
    if (posChoice[p]! < 0) {
      head++; // every domain is held: p stays a hole
      continue;
    }
    let i = head; // sink p behind every position whose choice precedes its new one
    for (; i + 1 < end && precedesPacked(keys, order[i + 1]!, p); i++) order[i] = order[i + 1]!;
    order[i] = p;
  }
}

/** One explain line about position p and a leaf. */
export function step(
  layout: FlatLayout,
  p: number,
  r: number,
  leaf: number,
  outcome: ExplainStep['outcome'],
  reason?: RejectReason,
): ExplainStep {
  return {
    slot: p,
    attempt: r,
    level: 'ost',
    bucket: layout.rootName,
    candidate: layout.leafNames[leaf]!,
    candidateId: layout.leafIds[leaf]!,
    outcome,
    detail: `${layout.domainType} ${layout.domainNames[layout.leafDomain[leaf]!]}`,
    ...(reason ? { reason } : {}),
  };
}
