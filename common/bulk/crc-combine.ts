// crc32c of a concatenation from the crcs of its parts (zlib's crc32_combine,
// for the Castagnoli polynomial). It lets each side of the bulk path compute
// one crc per block and still check the crc of a whole chunk without a second
// pass over the bytes.

const POLY_REFLECTED = 0x82f63b78;
const X0 = 0x80000000; // x^0 in the reflected representation

/** a(x) * b(x) mod p(x), reflected bit order. */
function multModP(a: number, b: number): number {
  let m = X0;
  let product = 0;
  for (;;) {
    if (a & m) {
      product ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY_REFLECTED : b >>> 1;
  }
  return product >>> 0;
}

/** x^(2^k) mod p(x) for k in 0..31. */
const X2N_TABLE: Uint32Array = (() => {
  const table = new Uint32Array(32);
  let p = X0 >>> 1; // x^1
  table[0] = p;
  for (let k = 1; k < 32; k++) {
    p = multModP(p, p);
    table[k] = p;
  }
  return table;
})();

/** x^(n * 2^k) mod p(x). */
function x2nModP(n: number, k: number): number {
  let p = X0;
  while (n > 0) {
    if (n % 2 === 1) p = multModP(X2N_TABLE[k & 31]!, p);
    n = Math.floor(n / 2);
    k++;
  }
  return p;
}

/** crc32c(A || B) given crc32c(A), crc32c(B) and the length of B in bytes. */
export function crc32cCombine(crcA: number, crcB: number, lengthB: number): number {
  if (!Number.isSafeInteger(lengthB) || lengthB < 0) throw new Error(`bad length ${lengthB}`);
  if (lengthB === 0) return crcA >>> 0;
  return (multModP(x2nModP(lengthB, 3), crcA >>> 0) ^ crcB) >>> 0;
}
