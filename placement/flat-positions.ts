import { leafHash, leafState, PAIR_PREMIX } from './flat-draw.js';
import { packedLeaf, scanPacked } from './flat-packed.js';
import type { FlatLayout } from './layout.js';
import { ln16 } from './ln.js';

/**
 * Erasure draws: position p's draw of leaf i uses
 *   u(x, i, p) = (hash32x3(x, leafId_i, p >> 1) >>> (16 * (p & 1))) & 0xffff,
 * i.e. one murmur3 word gives the 16-bit u of two positions (its low and high halves, which
 * the fmix32 finaliser makes independent). The draw is ln16(u) / weight16, as everywhere.
 */

/** u of position p's draw of a leaf whose state (input and id folded) is given. */
export function positionU(state: number, p: number): number {
  return (leafHash(state, PAIR_PREMIX[p >> 1]!) >>> ((p & 1) << 4)) & 0xffff;
}

/**
 * Per (position p < n, domain d) at p * domainCount + d: the best leaf of d in p's draw
 * (pairLeaf) and its key (pairKey): the draw, or when every leaf has one weight the packed
 * (u, first leaf) integer, which orders pairs identically without ln16. Ties go to the leaf
 * first in depth-first order. Also each position's best domain overall (posChoice, posChoiceKey;
 * ties: the first domain), where the matching starts.
 */
export function scanPositions(layout: FlatLayout, hx: number, n: number): void {
  if (layout.packedKeys) {
    scanPacked(layout, hx, n);
    return;
  }
  const { leafPremix, leafStates, posChoice, posChoiceKey } = layout;
  for (let i = 0; i < leafPremix.length; i++) leafStates[i] = leafState(hx, leafPremix[i]!);
  for (let p = 0; p < n; p++) {
    posChoice[p] = -1;
    posChoiceKey[p] = Number.NEGATIVE_INFINITY;
  }
  scanWeighted(layout, n);
}

/** The leaf of a (position, domain) pair: decoded from the packed key, or as the weighted scan stored it. */
export function pairLeafOf(layout: FlatLayout, slot: number): number {
  return layout.packedKeys ? packedLeaf(layout.pairKeyPacked[slot]!) : layout.pairLeaf[slot]!;
}

/**
 * Several weights: per position pair and domain, the leaf with the largest draw. One hash per
 * leaf serves both positions of the pair; leaves of the current best's weight compare by u, and
 * ln16 is taken only across weights and once per (position, domain) for the key.
 */
function scanWeighted(layout: FlatLayout, n: number): void {
  const { domainStart, leafStates } = layout;
  const domainCount = domainStart.length - 1;
  for (let p = 0; p < n; p += 2) {
    const pr = PAIR_PREMIX[p >> 1]!;
    for (let d = 0, first = 0; d < domainCount; d++) {
      const end = domainStart[d + 1]!;
      let evenLeaf = first;
      let oddLeaf = first;
      const h0 = leafHash(leafStates[first]!, pr);
      let evenU = h0 & 0xffff;
      let oddU = h0 >>> 16;
      for (let i = first + 1; i < end; i++) {
        const h = leafHash(leafStates[i]!, pr);
        if (beats(layout, i, h & 0xffff, evenLeaf, evenU)) {
          evenLeaf = i;
          evenU = h & 0xffff;
        }
        if (beats(layout, i, h >>> 16, oddLeaf, oddU)) {
          oddLeaf = i;
          oddU = h >>> 16;
        }
      }
      first = end;
      recordPair(layout, p, d, evenLeaf, evenU);
      if (p + 1 < n) recordPair(layout, p + 1, d, oddLeaf, oddU);
    }
  }
}

/** Whether leaf i drawing u beats leaf b drawing ub (ties keep b, the earlier leaf). */
function beats(layout: FlatLayout, i: number, u: number, b: number, ub: number): boolean {
  const { leafClass, classInvWeight } = layout;
  const c = leafClass[i]!;
  const cb = leafClass[b]!;
  return c === cb ? u > ub : ln16(u) * classInvWeight[c]! > ln16(ub) * classInvWeight[cb]!;
}

function recordPair(layout: FlatLayout, p: number, d: number, leaf: number, u: number): void {
  const { pairKey, pairLeaf, posChoice, posChoiceKey, leafClass, classInvWeight } = layout;
  const slot = p * (layout.domainStart.length - 1) + d;
  const key = ln16(u) * classInvWeight[leafClass[leaf]!]!;
  pairKey[slot] = key;
  pairLeaf[slot] = leaf;
  if (key > posChoiceKey[p]!) {
    posChoiceKey[p] = key;
    posChoice[p] = d;
  }
}

/**
 * Position p's best in leaf among domains not held (its own draw, so the replacement of an
 * out member is the member's next choice); -1 when there is none. One bounded pass.
 */
export function bestInLeafOutsideHeld(layout: FlatLayout, hx: number, p: number): number {
  const { held, leafDomain, leafIn, leafPremix, leafInvWeight } = layout;
  let best = -1;
  let bestDraw = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < leafPremix.length; i++) {
    if (held[leafDomain[i]!] === 1 || leafIn[i] !== 1) continue;
    const draw = ln16(positionU(leafState(hx, leafPremix[i]!), p)) * leafInvWeight[i]!;
    if (draw > bestDraw) {
      bestDraw = draw;
      best = i;
    }
  }
  return best;
}
