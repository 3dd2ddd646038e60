// Reed-Solomon decoding in plain TypeScript, bit-compatible with the parity
// that @subspace/reed-solomon-erasure.wasm computes (common/erasure.ts).
//
// The code: GF(2^8) with the field polynomial x^8+x^4+x^3+x^2+1 (0x11d) and
// generator 2; the (k+m) x k encoding matrix is a Vandermonde matrix
// (row r, column c: r^c) multiplied by the inverse of its top k x k square,
// so its top k rows are the identity (systematic: data shards are stored as
// they are) and row k+i computes parity shard i. test/client/gf256.test.ts
// checks that this matrix reproduces the wasm encoder's parity exactly.
//
// Why decode here and not in the wasm: the wasm build's allocator corrupts
// its own heap when one instance reconstructs more than once, so each
// rebuild needed a fresh instance (a new linear memory touched page by page:
// slow on these VMs). A rebuild of the missing shards is a few passes of
// "out ^= c * in" over the present shards, one 256-byte product table per
// coefficient, which V8 runs at memory-bound speed (bench/erasure.ts).

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

/** 256-entry tables of c * x, one per coefficient, built on first use. */
const PRODUCTS: (Uint8Array | undefined)[] = new Array(256);
function products(c: number): Uint8Array {
  let t = PRODUCTS[c];
  if (!t) {
    t = new Uint8Array(256);
    for (let x = 0; x < 256; x++) t[x] = gfMul(c, x);
    PRODUCTS[c] = t;
  }
  return t;
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

/**
 * out ^= c * input (or out = c * input when `first`): four bytes per step
 * through 32-bit views where both are 4-byte aligned, byte by byte otherwise.
 */
function mulAdd(c: number, input: Uint8Array, out: Uint8Array, first: boolean): void {
  const n = out.length;
  if (c === 1 && first) {
    out.set(input.subarray(0, n));
    return;
  }
  const t = products(c);
  let start = 0;
  if (input.byteOffset % 4 === 0 && out.byteOffset % 4 === 0) {
    const words = n >>> 2;
    const i32 = new Uint32Array(input.buffer, input.byteOffset, words);
    const o32 = new Uint32Array(out.buffer, out.byteOffset, words);
    for (let w = 0; w < words; w++) {
      const v = i32[w] as number;
      const p =
        (t[v & 255] as number) |
        ((t[(v >>> 8) & 255] as number) << 8) |
        ((t[(v >>> 16) & 255] as number) << 16) |
        ((t[v >>> 24] as number) << 24);
      o32[w] = first ? p : (o32[w] as number) ^ p;
    }
    start = words << 2;
  }
  for (let i = start; i < n; i++) {
    const p = t[input[i] as number] as number;
    out[i] = first ? p : (out[i] as number) ^ p;
  }
}

const DECODING = new Map<string, Matrix>();

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
  const encoding = encodingMatrix(k, m);
  const missingData = [];
  for (let i = 0; i < k; i++) if (!present[i]) missingData.push(i);
  if (missingData.length > 0) {
    const key = `${k}+${m}:${rows.join(',')}`;
    let decode = DECODING.get(key);
    if (!decode) {
      decode = invert(rows.map((r) => encoding[r] as Row));
      if (DECODING.size > 1024) DECODING.clear();
      DECODING.set(key, decode);
    }
    for (const i of missingData) {
      const coefficients = decode[i] as Uint8Array;
      const out = shard(i);
      let first = true;
      for (let j = 0; j < k; j++) {
        const c = coefficients[j] as number;
        if (c === 0) continue;
        mulAdd(c, shard(rows[j] as number), out, first);
        first = false;
      }
      if (first) out.fill(0);
    }
  }
  if (opts.parity === false) return;
  for (let p = k; p < total; p++) {
    if (present[p]) continue;
    const row = encoding[p] as Uint8Array;
    const out = shard(p);
    let first = true;
    for (let j = 0; j < k; j++) {
      const c = row[j] as number;
      if (c === 0) continue;
      mulAdd(c, shard(j), out, first);
      first = false;
    }
    if (first) out.fill(0);
  }
}
