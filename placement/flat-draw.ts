import { premixWord } from './hash.js';
import { type FlatLayout, inputState } from './layout.js';
import { ln16 } from './ln.js';

/**
 * straw2 draws over the flat leaf list. A leaf's draw for (input, attempt) is
 *   ln((u + 1) / 65536) / weight16   (computed as ln16(u) * (1 / weight16)),   u = hash32x3(x, leafId, attempt) & 0xffff,
 * an exponential race: the largest draw wins with probability weight / total weight, and a
 * leaf's draw depends on nothing but its own weight, which is what bounds data movement.
 * Ties go to the first leaf in depth-first order (strict >), as in Ceph's straw2.
 */

/**
 * Hash of leaf i's premixed id under the input state hx and premixed attempt pr: hash32x3
 * (hash.ts) inlined, because this line runs once per leaf per draw and is the whole cost.
 */
function leafHash16(hx: number, premixedId: number, pr: number): number {
  let h = hx ^ premixedId;
  h = (h << 13) | (h >>> 19);
  h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  h ^= pr;
  h = (h << 13) | (h >>> 19);
  h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  h ^= 12;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h & 0xffff;
}

/** Draw of one leaf: ln / weight, written as ln * (1 / weight) (both IEEE-exact steps, so portable). */
export function leafDrawOf(layout: FlatLayout, i: number, x: number, r: number): number {
  return ln16(leafHash16(inputState(x), layout.leafPremix[i]!, premixWord(r))) * layout.leafInvWeight[i]!;
}

/**
 * One pass over all leaves for attempt r: per failure domain, the best draw over all leaves
 * (keyAll/bestAll, out OSTs included: out does not change weights) and over in leaves only
 * (keyIn/bestIn, used to replace a member whose OST is out).
 */
export function scanDomains(layout: FlatLayout, hx: number, r: number): void {
  const { keyAll, bestAll, keyIn, bestIn, leafDomain, leafIn } = layout;
  keyAll.fill(Number.NEGATIVE_INFINITY);
  keyIn.fill(Number.NEGATIVE_INFINITY);
  bestAll.fill(-1);
  bestIn.fill(-1);
  const pr = premixWord(r);
  const { leafPremix, leafInvWeight } = layout;
  const leafCount = leafPremix.length;
  for (let i = 0; i < leafCount; i++) {
    const draw = ln16(leafHash16(hx, leafPremix[i]!, pr)) * leafInvWeight[i]!;
    const d = leafDomain[i]!;
    if (draw > keyAll[d]!) {
      keyAll[d] = draw;
      bestAll[d] = i;
    }
    if (leafIn[i] === 1 && draw > keyIn[d]!) {
      keyIn[d] = draw;
      bestIn[d] = i;
    }
  }
}

/** The winning leaf of attempt r over all leaves (out included); -1 when there is none. */
export function drawLeaf(layout: FlatLayout, hx: number, r: number): number {
  const pr = premixWord(r);
  const { leafPremix, leafInvWeight } = layout;
  const leafCount = leafPremix.length;
  let best = -1;
  let bestDraw = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < leafCount; i++) {
    const draw = ln16(leafHash16(hx, leafPremix[i]!, pr)) * leafInvWeight[i]!;
    if (draw > bestDraw) {
      bestDraw = draw;
      best = i;
    }
  }
  return best;
}

/**
 * The winning leaf of attempt r among leaves whose domain is not held, optionally in leaves
 * only. Used after retries run out and for out replacements: one bounded pass, no rejection loop.
 */
export function drawLeafExcluding(layout: FlatLayout, hx: number, r: number, inOnly: boolean): number {
  const pr = premixWord(r);
  const { held, leafDomain, leafIn, leafPremix, leafInvWeight } = layout;
  const leafCount = leafPremix.length;
  let best = -1;
  let bestDraw = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < leafCount; i++) {
    if (held[leafDomain[i]!] === 1 || (inOnly && leafIn[i] !== 1)) continue;
    const draw = ln16(leafHash16(hx, leafPremix[i]!, pr)) * leafInvWeight[i]!;
    if (draw > bestDraw) {
      bestDraw = draw;
      best = i;
    }
  }
  return best;
}
