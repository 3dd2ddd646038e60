import { matchPositions, matchPositionsPacked, step } from './flat-match.js';
import { bestInLeafOutsideHeld, scanPositions } from './flat-positions.js';
import { assertDistinct } from './flat-replicated.js';
import { type FlatLayout, inputState } from './layout.js';
import { HOLE, type Tracer } from './types.js';

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
 * Writes position p's OST to out[p] (HOLE when none) and returns how many positions are placed;
 * allocates nothing.
 */
export function placeErasureFlat(
  layout: FlatLayout,
  n: number,
  x: number,
  out: Int32Array,
  trace?: Tracer,
): number {
  const hx = inputState(x);
  scanPositions(layout, hx, n);
  if (layout.packedKeys) matchPositionsPacked(layout, n, trace);
  else matchPositions(layout, n, trace);
  if (!layout.allIn || trace) replaceOutMembers(layout, hx, n, trace);
  const { posLeaf, posDomain, leafIds } = layout;
  assertDistinct(posDomain, n);
  let placed = 0;
  for (let p = 0; p < n; p++) {
    const leaf = posLeaf[p]!;
    out[p] = leaf === HOLE ? HOLE : leafIds[leaf]!;
    placed += leaf === HOLE ? 0 : 1;
  }
  return placed;
}

function replaceOutMembers(layout: FlatLayout, hx: number, n: number, trace?: Tracer): void {
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
    const leaf = bestInLeafOutsideHeld(layout, hx, p);
    posLeaf[p] = leaf;
    posDomain[p] = leaf < 0 ? HOLE : layout.leafDomain[leaf]!;
    if (leaf < 0) continue;
    layout.held[posDomain[p]!] = 1;
    trace?.({ ...step(layout, p, r, leaf, 'accepted'), reason: 'replacement' });
  }
}
