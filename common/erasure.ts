// Reed-Solomon over GF(2^8) through @subspace/reed-solomon-erasure.wasm,
// shared by the client (encode, degraded reads) and the OSS (recovery and
// scrub rebuild chunks). The codec works on one contiguous buffer of k+m
// equal shards. Runs on the calling thread: see docs/ARCHITECTURE.md
// "Client: erasure coding" for the measurement behind that choice.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ReedSolomonErasure } from '@subspace/reed-solomon-erasure.wasm';

let wasmBytes: Buffer | undefined;
let encoder: ReedSolomonErasure | undefined;

function freshInstance(): ReedSolomonErasure {
  if (!wasmBytes) {
    const require = createRequire(import.meta.url);
    const main = require.resolve('@subspace/reed-solomon-erasure.wasm');
    wasmBytes = readFileSync(join(dirname(main), 'reed_solomon_erasure_bg.wasm'));
  }
  return ReedSolomonErasure.fromBytes(wasmBytes);
}

function check(result: number, what: string): void {
  if (result !== ReedSolomonErasure.RESULT_OK)
    throw new Error(`reed-solomon ${what} failed with code ${result}`);
}

function assertShape(shards: Uint8Array, k: number, m: number): number {
  if (!Number.isInteger(k) || !Number.isInteger(m) || k < 1 || m < 1)
    throw new Error(`bad ec geometry ${k}+${m}`);
  if (shards.length === 0 || shards.length % (k + m) !== 0)
    throw new Error(`shards of ${shards.length} bytes do not split into ${k + m}`);
  return shards.length / (k + m);
}

/** Fills the last m shards of `shards` with parity of the first k, in place. */
export function encodeParity(shards: Uint8Array, k: number, m: number): void {
  assertShape(shards, k, m);
  encoder ??= freshInstance();
  check(encoder.encode(shards, k, m), 'encode');
}

/**
 * Rebuilds the missing data shards in place from any k present ones
 * (`present[i]` false marks shard i as missing or corrupt; its bytes are
 * ignored). Parity shards are not rebuilt (the wasm copies back data only).
 */
export function reconstruct(shards: Uint8Array, k: number, m: number, present: boolean[]): void {
  assertShape(shards, k, m);
  if (present.length !== k + m) throw new Error(`present has ${present.length} flags for ${k + m} shards`);
  const have = present.filter(Boolean).length;
  if (have < k) throw new Error(`only ${have} of ${k} shards needed are present`);
  if (have === k + m) return;
  // A fresh instance per rebuild: the wasm build corrupts its memory when a
  // second reconstruct reuses its cached decode matrix for some geometries
  // (e.g. 2+1 or 3+1 with the same missing shard twice: "memory access out of
  // bounds"). Rebuilds are rare (degraded reads) and instantiating is cheap.
  check(freshInstance().reconstruct(shards, k, m, present), 'reconstruct');
}

/**
 * Rebuilds every shard, parity included: the data shards by `reconstruct`,
 * then the parity shards by encoding again (the wasm gives back data only).
 */
export function reconstructAll(shards: Uint8Array, k: number, m: number, present: boolean[]): void {
  reconstruct(shards, k, m, present);
  if (present.slice(k).every(Boolean)) return;
  encodeParity(shards, k, m);
}
