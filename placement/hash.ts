/**
 * MurmurHash3_x86_32 over 32-bit words (little-endian word order), written with Math.imul and
 * unsigned shifts only, so every JavaScript engine on every CPU computes the same bits.
 * Why murmur3 rather than Ceph's rjenkins1: fewer operations per word (one imul pair and a
 * rotate), full avalanche from its fmix32 finaliser (it passes SMHasher), and it is trivially
 * inlined by V8. See placement/README.md.
 */

const TEXT_ENCODER = new TextEncoder();
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
/** Fixed seed: changing it reshuffles every placement in every map; treat as part of the format. */
export const HASH_SEED = 0x5f3759df;

/** Pre-mixed form of one input word (the part of a round that does not depend on the state). */
export function premixWord(word: number): number {
  let k = Math.imul(word | 0, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

/** Folds one pre-mixed word into the running state. */
export function foldWord(state: number, premixed: number): number {
  let h = state ^ premixed;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/** The murmur3 finaliser: every input bit affects every output bit. */
export function fmix32(h: number, lengthBytes: number): number {
  h ^= lengthBytes;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** hash(a, b, c): the straw2 draw hash of (input, item id, attempt). */
export function hash32x3(a: number, b: number, c: number): number {
  let h = foldWord(HASH_SEED, premixWord(a));
  h = foldWord(h, premixWord(b));
  h = foldWord(h, premixWord(c));
  return fmix32(h, 12);
}

/** Hash of a string's UTF-8 bytes (murmur3 byte form), used for object key -> PG. */
export function hashString(text: string, seed: number = HASH_SEED): number {
  const bytes = TEXT_ENCODER.encode(text);
  let h = seed | 0;
  const wholeWords = bytes.length >>> 2;
  for (let i = 0; i < wholeWords; i++) {
    const o = i * 4;
    const word = bytes[o]! | (bytes[o + 1]! << 8) | (bytes[o + 2]! << 16) | (bytes[o + 3]! << 24);
    h = foldWord(h, premixWord(word));
  }
  let tail = 0;
  const tailStart = wholeWords * 4;
  for (let i = bytes.length - 1; i >= tailStart; i--) tail = (tail << 8) | bytes[i]!;
  if (bytes.length > tailStart) h ^= premixWord(tail);
  return fmix32(h, bytes.length);
}
