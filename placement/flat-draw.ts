import { premixWord } from './hash.js';
import type { FlatLayout } from './layout.js';
import { RULE_SIZE_MAX } from './limits.js';
import { ln16 } from './ln.js';

/**
 * straw2 draws over the flat leaf list. A leaf's draw for (input, attempt) is
 *   ln((u + 1) / 65536) / weight16   (computed as ln16(u) * (1 / weight16)),   u = hash32x3(x, leafId, attempt) & 0xffff,
 * an exponential race: the largest draw wins with probability weight / total weight, and a
 * leaf's draw depends on nothing but its own weight, which is what bounds data movement.
 * Ties go to the first leaf in depth-first order (strict >), as in Ceph's straw2.
 *
 * Speed: ln16 is strictly increasing and 1 / weight16 is the same for leaves of one weight
 * class, so within a class the largest u is the largest draw (distinct ln16 values stay distinct
 * after the multiply: they differ by > 1e-6 relatively, far above rounding). The loops compare
 * u only and take ln16 once per class or domain winner; the outcome is bit-for-bit that of
 * computing every draw.
 */

/** Premixed attempt words of erasure draws: positions 2q and 2q + 1 share attempt q. */
export const PAIR_PREMIX = Int32Array.from({ length: RULE_SIZE_MAX >> 1 }, (_, q) => premixWord(q));

/**
 * hash32x3(x, leafId, r) (hash.ts) inlined and split: `leafState` folds the leaf id into the
 * input state (once per leaf and input), `leafU` folds the attempt and finalises (once per
 * attempt), because these lines run once per leaf per draw and are the whole cost.
 */
export function leafState(hx: number, premixedId: number): number {
  let h = hx ^ premixedId;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function leafU(state: number, pr: number): number {
  return leafHash(state, pr) & 0xffff;
}

/** The whole 32-bit hash (as an int32) of a leaf state and premixed attempt. */
export function leafHash(state: number, pr: number): number {
  let h = state ^ pr;
  h = (h << 13) | (h >>> 19);
  h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  h ^= 12;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * One pass over all leaves for attempt r: per failure domain, the best draw over all leaves
 * (keyAll/bestAll, out OSTs included: out does not change weights) and over in leaves only
 * (keyIn/bestIn, used to replace a member whose OST is out; filled only when a leaf is out).
 */
export function scanDomains(layout: FlatLayout, hx: number, r: number): void {
  const { keyAll, bestAll, bestU, leafDomain, leafClass, classInvWeight, leafPremix } = layout;
  bestAll.fill(-1);
  const pr = premixWord(r);
  const leafCount = leafPremix.length;
  for (let i = 0; i < leafCount; i++) {
    const u = leafU(leafState(hx, leafPremix[i]!), pr);
    const d = leafDomain[i]!;
    const b = bestAll[d]!;
    if (b < 0) {
      bestAll[d] = i;
      bestU[d] = u;
      continue;
    }
    const c = leafClass[i]!;
    const cb = leafClass[b]!;
    if (c === cb ? u > bestU[d]! : ln16(u) * classInvWeight[c]! > ln16(bestU[d]!) * classInvWeight[cb]!) {
      bestAll[d] = i;
      bestU[d] = u;
    }
  }
  for (let d = 0; d < keyAll.length; d++) {
    const b = bestAll[d]!;
    keyAll[d] = b < 0 ? Number.NEGATIVE_INFINITY : ln16(bestU[d]!) * classInvWeight[leafClass[b]!]!;
  }
  if (!layout.allIn) scanDomainsIn(layout, hx, pr);
}

/** keyIn/bestIn: the per-domain best over in leaves only (rare: only when some leaf is out). */
function scanDomainsIn(layout: FlatLayout, hx: number, pr: number): void {
  const { keyIn, bestIn, leafDomain, leafIn, leafPremix, leafInvWeight } = layout;
  keyIn.fill(Number.NEGATIVE_INFINITY);
  bestIn.fill(-1);
  for (let i = 0; i < leafPremix.length; i++) {
    if (leafIn[i] !== 1) continue;
    const draw = ln16(leafU(leafState(hx, leafPremix[i]!), pr)) * leafInvWeight[i]!;
    const d = leafDomain[i]!;
    if (draw > keyIn[d]!) {
      keyIn[d] = draw;
      bestIn[d] = i;
    }
  }
}
