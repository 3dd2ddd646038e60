import { describe, expect, it } from 'vitest';
import { leafHash, leafState } from '../../placement/flat-draw.js';
import { positionU } from '../../placement/flat-positions.js';
import { fmix32, HASH_SEED, hash32x3, hashString, premixWord } from '../../placement/hash.js';
import { inputState } from '../../placement/layout.js';
import { LN_SCALE, ln16 } from '../../placement/ln.js';

/** Textbook byte-wise MurmurHash3_x86_32, written independently of placement/hash.ts. */
function murmur3Bytes(bytes: Uint8Array, seed: number): number {
  let h = seed >>> 0;
  const n = bytes.length;
  let i = 0;
  const mul = (a: number, b: number) => Math.imul(a, b) >>> 0;
  const rotl = (v: number, s: number) => ((v << s) | (v >>> (32 - s))) >>> 0;
  for (; i + 4 <= n; i += 4) {
    let k = (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24)) >>> 0;
    k = mul(rotl(mul(k, 0xcc9e2d51), 15), 0x1b873593);
    h = (mul(rotl((h ^ k) >>> 0, 13), 5) + 0xe6546b64) >>> 0;
  }
  let k = 0;
  for (let j = n - 1; j >= i; j--) k = ((k << 8) | bytes[j]!) >>> 0;
  if (n > i) h = (h ^ mul(rotl(mul(k, 0xcc9e2d51), 15), 0x1b873593)) >>> 0;
  return fmix32(h, n);
}

function wordsLE(...words: number[]): Uint8Array {
  const buf = new DataView(new ArrayBuffer(words.length * 4));
  words.forEach((w, i) => {
    buf.setUint32(i * 4, w >>> 0, true);
  });
  return new Uint8Array(buf.buffer);
}

describe('hash', () => {
  it('matches published MurmurHash3_x86_32 vectors', () => {
    expect(hashString('', 0)).toBe(0);
    expect(hashString('', 1)).toBe(0x514e28b7);
    expect(hashString('hello', 0)).toBe(0x248bfa47);
    expect(hashString('Hello, world!', 1234)).toBe(0xfaf6cdb3);
  });

  it('hash32x3 is murmur3 of the 12 little-endian bytes of its words', () => {
    for (const [a, b, c] of [
      [0, 0, 0],
      [1, 2, 3],
      [0xffffffff, 7, 123456],
      [-5, -1, 2 ** 31],
    ] as const) {
      expect(hash32x3(a, b, c)).toBe(murmur3Bytes(wordsLE(a, b, c), HASH_SEED));
    }
  });

  it('pins values so any platform or refactor difference shows up', () => {
    expect([hash32x3(0, 0, 0), hash32x3(1, 2, 3), hashString('obj-1')]).toMatchInlineSnapshot(`
      [
        3539262683,
        1076673667,
        1825905530,
      ]
    `);
  });
});

describe('ln16', () => {
  it('is strictly increasing, ends at 0, starts at -2^48, and tracks log2 within 2e-7', () => {
    let prev = Number.NEGATIVE_INFINITY;
    let maxErr = 0;
    let checksum = 0;
    for (let u = 0; u < 65536; u++) {
      const v = ln16(u);
      if (!Number.isInteger(v * 64)) throw new Error(`ln16(${u}) is not a multiple of 1/64`);
      if (!(v > prev)) throw new Error(`ln16 not increasing at ${u}`);
      prev = v;
      maxErr = Math.max(maxErr, Math.abs(v / LN_SCALE - Math.log2((u + 1) / 65536)));
      checksum = (Math.imul(checksum, 31) + (v % 1000003)) | 0;
    }
    expect(ln16(0)).toBe(-(2 ** 48));
    expect(ln16(65535)).toBe(0);
    expect(maxErr).toBeLessThan(2e-7);
    expect(checksum).toMatchInlineSnapshot(`1116469420`);
  });
});

describe('inlined hash in the draw loops', () => {
  it('leafState + leafHash is hash32x3(x, id, r), and positionU takes its 16-bit halves', () => {
    for (const [x, id, r] of [
      [0, 0, 0],
      [7, 3, 1],
      [0xffffffff, 123, 2],
      [99, 0x7fffffff, 15],
    ] as const) {
      const state = leafState(inputState(x), premixWord(id));
      const whole = hash32x3(x, id, r);
      expect(leafHash(state, premixWord(r)) >>> 0).toBe(whole);
      expect(positionU(state, 2 * r)).toBe(whole & 0xffff);
      expect(positionU(state, 2 * r + 1)).toBe(whole >>> 16);
    }
  });
});
