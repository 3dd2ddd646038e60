// Reed-Solomon over GF(2^8), shared by the client (encode, degraded reads)
// and the OSS (recovery and scrub rebuild chunks), on one contiguous buffer
// of k+m equal shards. The arithmetic is common/gf256.ts over the SIMD kernel
// of common/gf-kernel.ts, which produces the same parity as
// @subspace/reed-solomon-erasure.wasm several times faster; docs/ARCHITECTURE.md
// "Client: erasure coding" has the measurements behind the choice.
import { encodeShards, encodeShardsInto, rebuildShards } from './gf256.js';

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
  encodeShards(shards, k, m);
}

/** Fills `parity` (m shards back to back) with the parity of `data` (k shards back to back), kept apart. */
export function encodeParityOf(data: Uint8Array, parity: Uint8Array, k: number, m: number): void {
  if (!Number.isInteger(k) || !Number.isInteger(m) || k < 1 || m < 1)
    throw new Error(`bad ec geometry ${k}+${m}`);
  encodeShardsInto(data, parity, k, m);
}

/**
 * Rebuilds the missing data shards in place from any k present ones
 * (`present[i]` false marks shard i as missing or corrupt; its bytes are
 * ignored). Parity shards are not rebuilt.
 */
export function reconstruct(shards: Uint8Array, k: number, m: number, present: boolean[]): void {
  assertShape(shards, k, m);
  if (present.length !== k + m) throw new Error(`present has ${present.length} flags for ${k + m} shards`);
  const have = present.filter(Boolean).length;
  if (have < k) throw new Error(`only ${have} of ${k} shards needed are present`);
  if (present.slice(0, k).every(Boolean)) return;
  rebuildShards(shards, k, m, present, { parity: false });
}

/** Rebuilds every missing shard, parity included. */
export function reconstructAll(shards: Uint8Array, k: number, m: number, present: boolean[]): void {
  assertShape(shards, k, m);
  if (present.length !== k + m) throw new Error(`present has ${present.length} flags for ${k + m} shards`);
  const have = present.filter(Boolean).length;
  if (have < k) throw new Error(`only ${have} of ${k} shards needed are present`);
  if (have === k + m) return;
  rebuildShards(shards, k, m, present);
}

/**
 * Rebuilds chunk `want` of a k+m stripe into `out` from any k of `inputs`
 * (chunk index to bytes, each as long as `out`), wherever each lies in memory.
 */
export { rebuildShard as rebuildChunk } from './gf256.js';
