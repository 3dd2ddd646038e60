import { assert } from './errors.js';
import { bestInLeafOutsideHeld, pairLeafOf, scanPositions } from './flat-positions.js';
import { assertDistinct } from './flat-replicated.js';
import { type FlatLayout, inputState } from './layout.js';
import { type ExplainStep, HOLE, type Placement, type RejectReason, type Tracer } from './types.js';

/**
 * erasure(k+m, failureDomain), indep semantics (positional), as a stable matching:
 * - position p draws every leaf once (u from hash32x3(x, leaf, p >> 1), half p & 1; out leaves
 *   included, as out must not disturb other positions); its key for a domain is the domain's
 *   best leaf draw;
 * - (position, domain) pairs are taken greedily by key, largest first (ties: the leaf first
 *   in depth-first order, then the lower position), skipping taken positions and domains. This is
 *   the unique stable matching when positions and domains rank each other by the same keys;
 * - with too few domains the positions left over are holes;
 * - last, a position whose leaf is out is replaced in place by its best in leaf outside the
 *   domains the other positions hold. No other position changes when an OST goes out.
 * Why not Ceph's retry loop: a weight change alters only the keys of pairs with that OST's
 * domain, and the greedy order of every pair above them is unchanged, so a change cascades
 * only through pairs ranked below it. See placement/README.md for the measured movement.
 */
export function placeErasureFlat(layout: FlatLayout, n: number, x: number, trace?: Tracer): Placement {
  const hx = inputState(x);
  scanPositions(layout, hx, n);
  matchPositions(layout, n, trace);
  if (!layout.allIn || trace) replaceOutMembers(layout, n, trace);
  const { posLeaf, posDomain, leafIds } = layout;
  assertDistinct(posDomain, n);
  const osts: number[] = new Array(n);
  let complete = true;
  for (let p = 0; p < n; p++) {
    const leaf = posLeaf[p]!;
    osts[p] = leaf === HOLE ? HOLE : leafIds[leaf]!;
    if (leaf === HOLE) complete = false;
  }
  return { osts, complete };
}

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
function matchPositions(layout: FlatLayout, n: number, trace?: Tracer): void {
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

function replaceOutMembers(layout: FlatLayout, n: number, trace?: Tracer): void {
  const { posLeaf, posDomain } = layout;
  for (let p = 0; p < n; p++) {
    const old = posLeaf[p]!;
    if (old === HOLE) continue;
    if (layout.leafIn[old] === 1) {
      if (trace && layout.leafUp[old] === 0)
        trace({ ...step(layout, p, -1, old, 'note'), reason: 'down-but-in' });
      continue;
    }
    trace?.(step(layout, p, -1, old, 'rejected', 'out'));
    layout.held[posDomain[p]!] = 0; // its own domain may serve the replacement
    const r = p; // the position's own draw: its best in leaf among the domains left to it
    const leaf = bestInLeafOutsideHeld(layout, p);
    posLeaf[p] = leaf;
    posDomain[p] = leaf < 0 ? HOLE : layout.leafDomain[leaf]!;
    if (leaf < 0) continue;
    layout.held[posDomain[p]!] = 1;
    trace?.({ ...step(layout, p, r, leaf, 'accepted'), reason: 'replacement' });
  }
}

function step(
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
