// Reed-Solomon over GF(2^8): encoding and rebuilding, bit-compatible with
// @subspace/reed-solomon-erasure.wasm (the codec stripefs used first, kept as
// the reference the tests compare with).
//
// The code: GF(2^8) with the field polynomial x^8+x^4+x^3+x^2+1 (0x11d) and
// generator 2; the (k+m) x k encoding matrix is a Vandermonde matrix
// (row r, column c: r^c) multiplied by the inverse of its top k x k square,
// so its top k rows are the identity (systematic: data shards are stored as
// they are) and row k+i computes parity shard i. test/client/gf256.test.ts
// checks that this matrix reproduces the package's parity exactly.
//
// Encoding and rebuilding are both a small matrix times the shards, which
// the SIMD kernel of common/gf-kernel.ts computes; this module chooses the
// rows: parity rows of the encoding matrix to encode, rows of the inverse of
// the present shards' rows to rebuild lost data.

import { gfMatMul, nibbleTables } from './gf-kernel.js';

const FIELD_POLY = 0x11d;
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= FIELD_POLY;
  }
  for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255] as number;
}

export function gfMul(a: number, b: number): number {
  if (a === 0 || b === 0) return 0;
  return EXP[(LOG[a] as number) + (LOG[b] as number)] as number;
}

function gfInv(a: number): number {
  if (a === 0) throw new Error('gf256: zero has no inverse');
  return EXP[255 - (LOG[a] as number)] as number;
}

function gfPow(a: number, n: number): number {
  if (n === 0) return 1;
  if (a === 0) return 0;
  return EXP[((LOG[a] as number) * n) % 255] as number;
}

type Row = Uint8Array<ArrayBuffer>;
type Matrix = Row[];

function identity(n: number): Matrix {
  return Array.from({ length: n }, (_, r) => {
    const row = new Uint8Array(n);
    row[r] = 1;
    return row;
  });
}

function multiply(a: Matrix, b: Matrix): Matrix {
  const cols = (b[0] as Uint8Array).length;
  return a.map((row) => {
    const out = new Uint8Array(cols);
    for (let c = 0; c < cols; c++) {
      let v = 0;
      for (let i = 0; i < row.length; i++) v ^= gfMul(row[i] as number, (b[i] as Uint8Array)[c] as number);
      out[c] = v;
    }
    return out;
  });
}

/** Inverse of a square matrix by Gauss-Jordan elimination; throws when singular. */
function invert(m: Matrix): Matrix {
  const n = m.length;
  const a = m.map((row) => Uint8Array.from(row));
  const inv = identity(n);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    while (pivot < n && (a[pivot] as Uint8Array)[col] === 0) pivot++;
    if (pivot === n) throw new Error('gf256: singular matrix');
    if (pivot !== col) {
      [a[col], a[pivot]] = [a[pivot] as Row, a[col] as Row];
      [inv[col], inv[pivot]] = [inv[pivot] as Row, inv[col] as Row];
    }
    const arow = a[col] as Uint8Array;
    const irow = inv[col] as Uint8Array;
    const scale = gfInv(arow[col] as number);
    for (let c = 0; c < n; c++) {
      arow[c] = gfMul(arow[c] as number, scale);
      irow[c] = gfMul(irow[c] as number, scale);
    }
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const f = (a[r] as Uint8Array)[col] as number;
      if (f === 0) continue;
      const ar = a[r] as Uint8Array;
      const ir = inv[r] as Uint8Array;
      for (let c = 0; c < n; c++) {
        ar[c] = (ar[c] as number) ^ gfMul(f, arow[c] as number);
        ir[c] = (ir[c] as number) ^ gfMul(f, irow[c] as number);
      }
    }
  }
  return inv;
}

const ENCODING = new Map<string, Matrix>();

/** The (k+m) x k systematic encoding matrix. */
export function encodingMatrix(k: number, m: number): Matrix {
  const key = `${k}+${m}`;
  let e = ENCODING.get(key);
  if (!e) {
    if (!Number.isInteger(k) || !Number.isInteger(m) || k < 1 || m < 1 || k + m > 256)
      throw new Error(`bad ec geometry ${k}+${m}`);
    const vandermonde: Matrix = Array.from({ length: k + m }, (_, r) =>
      Uint8Array.from({ length: k }, (_, c) => gfPow(r, c)),
    );
    e = multiply(vandermonde, invert(vandermonde.slice(0, k)));
    ENCODING.set(key, e);
  }
  return e;
}

const DECODING = new Map<string, Matrix>();

/** The inverse of the encoding matrix's `rows` (k of them): row i of it rebuilds data shard i from those shards. */
function decodingMatrix(k: number, m: number, rows: readonly number[]): Matrix {
  const key = `${k}+${m}:${rows.join(',')}`;
  let decode = DECODING.get(key);
  if (!decode) {
    const encoding = encodingMatrix(k, m);
    decode = invert(rows.map((r) => encoding[r] as Row));
    if (DECODING.size > 1024) DECODING.clear();
    DECODING.set(key, decode);
  }
  return decode;
}

/**
 * Rebuilds shard `want` (data or parity) into `out` from k of the shards in
 * `inputs` (by shard index, each as long as `out`), the lowest indexes
 * first. Unlike rebuildShards the shards need not lie in one buffer: a
 * degraded read passes the blocks it read as they are.
 */
export function rebuildShard(
  k: number,
  m: number,
  want: number,
  inputs: ReadonlyMap<number, Uint8Array>,
  out: Uint8Array,
): void {
  const encoding = encodingMatrix(k, m);
  if (!Number.isInteger(want) || want < 0 || want >= k + m) throw new Error(`no shard ${want} in ${k}+${m}`);
  for (const [i, data] of inputs)
    if (data.length !== out.length) throw new Error(`chunk ${i} has ${data.length} bytes, not ${out.length}`);
  const given = inputs.get(want);
  if (given) {
    out.set(given);
    return;
  }
  const rows = [...inputs.keys()]
    .filter((i) => Number.isInteger(i) && i >= 0 && i < k + m)
    .sort((a, b) => a - b)
    .slice(0, k);
  if (rows.length < k) throw new Error(`only ${rows.length} of ${k} shards needed are present`);
  const decode = decodingMatrix(k, m, rows);
  const coefficients =
    want < k ? (decode[want] as Row) : (multiply([encoding[want] as Row], decode)[0] as Row);
  gfMatMul(
    nibbleTables([coefficients], k, gfMul),
    rows.map((r) => inputs.get(r) as Uint8Array),
    [out],
  );
}

/**
 * Rebuilds, in place, every shard i of `shards` (k+m equal shards back to
 * back) with present[i] false, from the first k present shards: missing data
 * shards through the inverse of the present rows, then missing parity shards
 * from the (now complete) data. Throws when fewer than k shards are present.
 */
export function rebuildShards(
  shards: Uint8Array,
  k: number,
  m: number,
  present: readonly boolean[],
  opts: { parity?: boolean } = {},
): void {
  const total = k + m;
  if (present.length !== total) throw new Error(`present has ${present.length} flags for ${total} shards`);
  if (shards.length % total !== 0)
    throw new Error(`shards of ${shards.length} bytes do not split into ${total}`);
  const size = shards.length / total;
  const shard = (i: number): Uint8Array => shards.subarray(i * size, (i + 1) * size);
  const rows: number[] = [];
  for (let i = 0; i < total && rows.length < k; i++) if (present[i]) rows.push(i);
  if (rows.length < k) throw new Error(`only ${rows.length} of ${k} shards needed are present`);
  const missingData = [];
  for (let i = 0; i < k; i++) if (!present[i]) missingData.push(i);
  if (missingData.length > 0) {
    const decode = decodingMatrix(k, m, rows);
    gfMatMul(
      nibbleTables(
        missingData.map((i) => decode[i] as Row),
        k,
        gfMul,
      ),
      rows.map(shard),
      missingData.map(shard),
    );
  }
  if (opts.parity === false) return;
  const missingParity = [];
  for (let p = k; p < total; p++) if (!present[p]) missingParity.push(p);
  if (missingParity.length > 0) encodeRows(shards, size, k, missingParity);
}

/**
 * Fills `parity` (m equal shards back to back) with the parity of `data` (k shards of the same
 * size back to back), two separate buffers: the data may be a view of a caller's memory.
 */
export function encodeShardsInto(data: Uint8Array, parity: Uint8Array, k: number, m: number): void {
  const size = data.length / k;
  if (data.length === 0 || !Number.isInteger(size) || parity.length !== m * size)
    throw new Error(
      `${data.length} data and ${parity.length} parity bytes do not make ${k}+${m} equal shards`,
    );
  const encoding = encodingMatrix(k, m);
  const shard = (buf: Uint8Array, i: number): Uint8Array => buf.subarray(i * size, (i + 1) * size);
  gfMatMul(
    nibbleTables(
      Array.from({ length: m }, (_, r) => encoding[k + r] as Row),
      k,
      gfMul,
    ),
    Array.from({ length: k }, (_, j) => shard(data, j)),
    Array.from({ length: m }, (_, r) => shard(parity, r)),
  );
}

/** Fills the listed parity shards from the k data shards. */
function encodeRows(shards: Uint8Array, size: number, k: number, parity: number[]): void {
  const total = shards.length / size;
  const encoding = encodingMatrix(k, total - k);
  const shard = (i: number): Uint8Array => shards.subarray(i * size, (i + 1) * size);
  gfMatMul(
    nibbleTables(
      parity.map((p) => encoding[p] as Row),
      k,
      gfMul,
    ),
    Array.from({ length: k }, (_, j) => shard(j)),
    parity.map(shard),
  );
}

/** Fills the last m shards of `shards` (k+m equal shards back to back) with the parity of the first k. */
export function encodeShards(shards: Uint8Array, k: number, m: number): void {
  const total = k + m;
  if (shards.length === 0 || shards.length % total !== 0)
    throw new Error(`shards of ${shards.length} bytes do not split into ${total}`);
  encodingMatrix(k, m); // checks the geometry
  encodeRows(
    shards,
    shards.length / total,
    k,
    Array.from({ length: m }, (_, i) => k + i),
  );
}
