import { leafHash, PAIR_PREMIX } from './flat-draw.js';
import type { FlatLayout } from './layout.js';
import { PACKED_KEY_LEAVES_MAX } from './limits.js';

/**
 * The erasure scan when every leaf has one weight (layout.packedKeys): a pair's key is the
 * integer (u << 15) | (2^15 - 1 - leaf index), which orders pairs exactly as the draws do
 * (ln16 is increasing and the weight is shared; equal u: the leaf first in depth-first order
 * wins), so no ln16 is taken. Keys are >= 1 (fewer than 2^15 leaves) and unique per leaf.
 */
const PACKED_LEAVES_MAX = PACKED_KEY_LEAVES_MAX;
/** Positions per pass of the wide kernel: three hash words, two positions each. */
const WIDE_POSITIONS = 6;

/** Leaf index carried in the low 15 bits of a packed key. */
export function packedLeaf(key: number): number {
  return PACKED_LEAVES_MAX - 1 - (key & (PACKED_LEAVES_MAX - 1));
}

/**
 * max(a, b) for int32 a, b >= 0 without a branch: the comparison is a coin flip per leaf, and a
 * mispredicted branch cost more than the arithmetic (measured 35 % on the whole scan).
 */
function maxNonNegative(a: number, b: number): number {
  // a - b and the sum stay within int32 for a, b in [0, 2^31); `| 0` lets V8 drop overflow checks
  return (b + ((a - b) & ((b - a) >> 31))) | 0;
}

/**
 * Per (position p < n, domain d) the max packed key (pairKeyPacked), per position the max over
 * domains (posChoiceKeyPacked) and its domain (posChoice: decoded from the key's leaf, which is
 * unique, so it is the first best domain). Positions go six at a time through the wide kernel
 * while more than four remain, then two at a time. A pass may fill one row past n (odd n, or
 * n = 6q + 5), never past row RULE_SIZE_MAX - 1 (n <= RULE_SIZE_MAX, even), which keeps the
 * kernels free of width tests.
 */
export function scanPacked(layout: FlatLayout, hx: number, n: number): void {
  let base = 0;
  for (; n - base > 4; base += WIDE_POSITIONS) scanSix(layout, hx, base);
  for (; base < n; base += 2) scanTwo(layout, hx, base);
}

/**
 * Positions base .. base+5 in one pass over the leaves, leaf-major: each leaf's hash state is
 * folded once and its three hash words feed six running maxima kept in locals (measured a third
 * faster than a pass per hash word on the bench map).
 */
function scanSix(layout: FlatLayout, hx: number, base: number): void {
  const { domainStart, leafPremix, pairKeyPacked: keys } = layout;
  const domainCount = domainStart.length - 1;
  const pr0 = PAIR_PREMIX[base >> 1]!;
  const pr1 = PAIR_PREMIX[(base >> 1) + 1]!;
  const pr2 = PAIR_PREMIX[(base >> 1) + 2]!;
  const row = base * domainCount;
  let c0 = 0;
  let c1 = 0;
  let c2 = 0;
  let c3 = 0;
  let c4 = 0;
  let c5 = 0;
  for (let d = 0, i = 0; d < domainCount; d++) {
    const end = domainStart[d + 1]!;
    let k0 = 0; // keys are >= 1, so 0 is a neutral start
    let k1 = 0;
    let k2 = 0;
    let k3 = 0;
    let k4 = 0;
    let k5 = 0;
    for (; i < end; i++) {
      let state = hx ^ leafPremix[i]!; // leafState, inlined by hand: this is the hottest loop
      state = (state << 13) | (state >>> 19);
      state = (Math.imul(state, 5) + 0xe6546b64) | 0;
      const low = PACKED_LEAVES_MAX - 1 - i;
      const h0 = leafHash(state, pr0);
      const h1 = leafHash(state, pr1);
      const h2 = leafHash(state, pr2);
      k0 = maxNonNegative(k0, ((h0 & 0xffff) << 15) | low);
      k1 = maxNonNegative(k1, ((h0 >>> 16) << 15) | low);
      k2 = maxNonNegative(k2, ((h1 & 0xffff) << 15) | low);
      k3 = maxNonNegative(k3, ((h1 >>> 16) << 15) | low);
      k4 = maxNonNegative(k4, ((h2 & 0xffff) << 15) | low);
      k5 = maxNonNegative(k5, ((h2 >>> 16) << 15) | low);
    }
    keys[row + d] = k0;
    keys[row + domainCount + d] = k1;
    keys[row + 2 * domainCount + d] = k2;
    keys[row + 3 * domainCount + d] = k3;
    keys[row + 4 * domainCount + d] = k4;
    keys[row + 5 * domainCount + d] = k5;
    c0 = maxNonNegative(c0, k0);
    c1 = maxNonNegative(c1, k1);
    c2 = maxNonNegative(c2, k2);
    c3 = maxNonNegative(c3, k3);
    c4 = maxNonNegative(c4, k4);
    c5 = maxNonNegative(c5, k5);
  }
  setChoice(layout, base, c0);
  setChoice(layout, base + 1, c1);
  setChoice(layout, base + 2, c2);
  setChoice(layout, base + 3, c3);
  setChoice(layout, base + 4, c4);
  setChoice(layout, base + 5, c5);
}

/** Positions base and base + 1: one hash word per leaf. */
function scanTwo(layout: FlatLayout, hx: number, base: number): void {
  const { domainStart, leafPremix, pairKeyPacked: keys } = layout;
  const domainCount = domainStart.length - 1;
  const pr = PAIR_PREMIX[base >> 1]!;
  const row = base * domainCount;
  let c0 = 0;
  let c1 = 0;
  for (let d = 0, i = 0; d < domainCount; d++) {
    const end = domainStart[d + 1]!;
    let k0 = 0;
    let k1 = 0;
    for (; i < end; i++) {
      let state = hx ^ leafPremix[i]!;
      state = (state << 13) | (state >>> 19);
      state = (Math.imul(state, 5) + 0xe6546b64) | 0;
      const low = PACKED_LEAVES_MAX - 1 - i;
      const h = leafHash(state, pr);
      k0 = maxNonNegative(k0, ((h & 0xffff) << 15) | low);
      k1 = maxNonNegative(k1, ((h >>> 16) << 15) | low);
    }
    keys[row + d] = k0;
    keys[row + domainCount + d] = k1;
    c0 = maxNonNegative(c0, k0);
    c1 = maxNonNegative(c1, k1);
  }
  setChoice(layout, base, c0);
  setChoice(layout, base + 1, c1);
}

/** Position p's best domain overall: the domain of its best key's leaf; -1 when there is no domain. */
function setChoice(layout: FlatLayout, p: number, key: number): void {
  layout.posChoiceKeyPacked[p] = key;
  layout.posChoice[p] = key === 0 ? -1 : layout.leafDomain[packedLeaf(key)]!;
}

/**
 * Position p's best domain not held, by a branch-free max over the domains (a held domain's key
 * is masked to 0, below every real key).
 */
export function rechoosePacked(layout: FlatLayout, p: number): void {
  const { held, pairKeyPacked } = layout;
  const domainCount = held.length;
  let best = 0;
  for (let d = 0, slot = p * domainCount; d < domainCount; d++, slot++) {
    best = maxNonNegative(best, pairKeyPacked[slot]! & (held[d]! - 1));
  }
  setChoice(layout, p, best);
}
