// Drives the GF(2^8) SIMD kernel (common/gf-kernel.wat, compiled into
// common/gf-kernel-wasm.ts by scripts/gen-gf-kernel.mjs): outputs[r] = XOR
// over j of c[r][j] * inputs[j], the one operation Reed-Solomon encoding and
// rebuilding are made of (common/gf256.ts picks the coefficients).
//
// The kernel works in its own linear memory, so the shards pass through it in
// tiles: each input's next TILE_BYTES are copied in, the kernel writes every
// output's tile, and those are copied out. A tile of all k+m shards stays in
// the core's cache, and the copies run at memory speed; the products take one
// 16-entry table lookup per nibble, 16 bytes per instruction, several times
// faster than the wasm Reed-Solomon package's byte loop (bench/erasure.ts).
// One instance per thread, made on first use.
import { GF_KERNEL_WASM_BASE64 } from './gf-kernel-wasm.js';

/** The WebAssembly API used here (the project's lib settings leave WebAssembly's types out). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};

interface KernelExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  matmul(tables: number, srcs: number, k: number, dsts: number, rows: number, len: number): void;
}

/** Bytes of each shard per kernel call: 6 shards of 16 KiB fit a core's L2 with room to spare. */
export const TILE_BYTES = 16 * 1024;
const WASM_PAGE_BYTES = 65536;
/** The kernel steps 64 bytes at a time: a tile's length is rounded up to this. */
const STEP_BYTES = 64;

let kernel: KernelExports | undefined;

function instance(): KernelExports {
  if (!kernel) {
    const module = new WebAssembly.Module(Buffer.from(GF_KERNEL_WASM_BASE64, 'base64'));
    kernel = new WebAssembly.Instance(module).exports as KernelExports;
  }
  return kernel;
}

/**
 * The kernel's tables for a coefficient matrix (rows x k): 32 bytes per
 * coefficient c, the products c * 0..15 then c * (0..15 << 4).
 */
export function nibbleTables(
  coefficients: readonly Uint8Array[],
  k: number,
  mul: (a: number, b: number) => number,
): Uint8Array {
  const tables = new Uint8Array(coefficients.length * k * 32);
  let at = 0;
  for (const row of coefficients) {
    for (let j = 0; j < k; j++) {
      const c = row[j] as number;
      for (let x = 0; x < 16; x++) {
        tables[at + x] = mul(c, x);
        tables[at + 16 + x] = mul(c, x << 4);
      }
      at += 32;
    }
  }
  return tables;
}

/**
 * outputs[r][i] = XOR over j of c[r][j] * inputs[j][i], with the coefficients
 * given as nibbleTables(c). Every input and output has the same length; an
 * output may not overlap an input.
 */
export function gfMatMul(
  tables: Uint8Array,
  inputs: readonly Uint8Array[],
  outputs: readonly Uint8Array[],
): void {
  const k = inputs.length;
  const rows = outputs.length;
  if (tables.length !== rows * k * 32)
    throw new Error(`gf kernel: ${tables.length} table bytes for ${rows}x${k}`);
  if (rows === 0) return;
  const size = (outputs[0] as Uint8Array).length;
  for (const s of [...inputs, ...outputs])
    if (s.length !== size) throw new Error(`gf kernel: shards of ${s.length} and ${size} bytes`);
  if (size === 0) return;
  const tile = Math.min(TILE_BYTES, (size + STEP_BYTES - 1) & ~(STEP_BYTES - 1));
  // Memory: tables, the input and output offset arrays, then one tile per shard.
  const srcs = tables.length;
  const dsts = srcs + 4 * k;
  const tilesAt = (dsts + 4 * rows + STEP_BYTES - 1) & ~(STEP_BYTES - 1);
  const needed = tilesAt + (k + rows) * tile;
  const kx = instance();
  const have = kx.memory.buffer.byteLength;
  if (needed > have) kx.memory.grow(Math.ceil((needed - have) / WASM_PAGE_BYTES));
  const mem = new Uint8Array(kx.memory.buffer);
  const words = new DataView(kx.memory.buffer);
  mem.set(tables, 0);
  for (let j = 0; j < k; j++) words.setUint32(srcs + 4 * j, tilesAt + j * tile, true);
  for (let r = 0; r < rows; r++) words.setUint32(dsts + 4 * r, tilesAt + (k + r) * tile, true);
  for (let off = 0; off < size; off += tile) {
    const n = Math.min(tile, size - off);
    for (let j = 0; j < k; j++) mem.set((inputs[j] as Uint8Array).subarray(off, off + n), tilesAt + j * tile);
    // Bytes past n in a short last tile are stale: only their products' first n bytes are kept.
    kx.matmul(0, srcs, k, dsts, rows, (n + STEP_BYTES - 1) & ~(STEP_BYTES - 1));
    for (let r = 0; r < rows; r++) {
      const from = tilesAt + (k + r) * tile;
      (outputs[r] as Uint8Array).set(mem.subarray(from, from + n), off);
    }
  }
}
