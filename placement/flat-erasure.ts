import { drawLeaf, drawLeafExcluding } from './flat-draw.js';
import { assertDistinct } from './flat-replicated.js';
import { type FlatLayout, inputState } from './layout.js';
import { CHOOSE_TRIES_MAX } from './limits.js';
import { type ExplainStep, HOLE, type Placement, type RejectReason, type Tracer } from './types.js';

/**
 * erasure(k+m, failureDomain), indep semantics (positional):
 * - round t, position p draws once over all leaves with attempt r = p + n*t (out leaves
 *   included, as out must not disturb other positions); the winner is kept unless its failure
 *   domain is already held by another position, else p retries next round (Ceph's indep loop);
 * - after CHOOSE_TRIES_MAX rounds, a still-empty position takes one draw that skips held
 *   domains, so a satisfiable rule is always satisfied; with too few domains it stays a hole;
 * - last, a position whose leaf is out is replaced in place by a draw over in leaves outside
 *   the domains the other positions hold. No other position changes when an OST goes out.
 */
export function placeErasureFlat(layout: FlatLayout, n: number, x: number, trace?: Tracer): Placement {
  const hx = inputState(x);
  const { held, leafDomain } = layout;
  held.fill(0);
  const posLeaf = layout.posLeaf.subarray(0, n).fill(HOLE);
  const posDomain = layout.posDomain.subarray(0, n).fill(HOLE);
  const domainCount = layout.domainNames.length;
  let placed = 0;
  for (let t = 0; t < CHOOSE_TRIES_MAX && placed < n && placed < domainCount; t++) {
    for (let p = 0; p < n; p++) {
      if (posLeaf[p] !== HOLE) continue;
      const r = p + n * t;
      const leaf = drawLeaf(layout, hx, r);
      const d = leafDomain[leaf]!;
      if (held[d] === 1) {
        trace?.(
          step(
            layout,
            p,
            r,
            leaf,
            'rejected',
            posLeaf.includes(leaf) ? 'collision' : 'failure-domain-reused',
          ),
        );
        continue;
      }
      held[d] = 1;
      posLeaf[p] = leaf;
      posDomain[p] = d;
      placed++;
      trace?.(step(layout, p, r, leaf, 'accepted'));
    }
  }
  for (let p = 0; p < n; p++) {
    if (posLeaf[p] !== HOLE) continue;
    const r = p + n * CHOOSE_TRIES_MAX;
    const leaf = drawLeafExcluding(layout, hx, r, false);
    if (leaf < 0) continue;
    held[leafDomain[leaf]!] = 1;
    posLeaf[p] = leaf;
    posDomain[p] = leafDomain[leaf]!;
    trace?.({ ...step(layout, p, r, leaf, 'accepted'), reason: 'fallback' });
  }
  replaceOutMembers(layout, hx, posLeaf, posDomain, trace);
  assertDistinct(posDomain);
  const osts: number[] = new Array(n);
  let complete = true;
  for (let p = 0; p < n; p++) {
    const leaf = posLeaf[p]!;
    osts[p] = leaf === HOLE ? HOLE : layout.leafIds[leaf]!;
    if (leaf === HOLE) complete = false;
  }
  return { osts, complete };
}

function replaceOutMembers(
  layout: FlatLayout,
  hx: number,
  posLeaf: Int32Array,
  posDomain: Int32Array,
  trace?: Tracer,
): void {
  const n = posLeaf.length;
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
    const r = p + n * (CHOOSE_TRIES_MAX + 1);
    const leaf = drawLeafExcluding(layout, hx, r, true);
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
