// Reed-Solomon over GF(2^8), shared by the client (encode, degraded reads)
// and the OSS (recovery and scrub rebuild chunks): parity is encoded by
// @subspace/reed-solomon-erasure.wasm, missing shards are rebuilt by the
// compatible decoder in gf256.ts. Both work on one contiguous buffer of k+m
// equal shards. Runs on the calling thread: see docs/ARCHITECTURE.md
// "Client: erasure coding" for the measurement behind that choice.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ReedSolomonErasure } from '@subspace/reed-solomon-erasure.wasm';
import { rebuildShards } from './gf256.js';

/** The one WebAssembly API used here (the project's lib settings leave WebAssembly's types out). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
  RuntimeError: new () => Error;
};

let wasmModule: object | undefined;
/**
 * Encoders by geometry and shard size, least recently used first. The wasm
 * heap allocator fails (out-of-bounds traps) after some sequences of
 * different allocation sizes in one instance, so each instance only ever
 * sees one shape; a trap still drops the instance and the call is retried
 * once on a fresh one.
 */
const encoders = new Map<string, ReedSolomonErasure>();
const ENCODERS_MAX = 8;

function freshInstance(): ReedSolomonErasure {
  if (!wasmModule) {
    const require = createRequire(import.meta.url);
    const main = require.resolve('@subspace/reed-solomon-erasure.wasm');
    wasmModule = new WebAssembly.Module(readFileSync(join(dirname(main), 'reed_solomon_erasure_bg.wasm')));
  }
  // The package's constructor (private in its types) takes an instance's exports; fromBytes would compile again.
  const Codec = ReedSolomonErasure as unknown as new (exports: unknown) => ReedSolomonErasure;
  return new Codec(new WebAssembly.Instance(wasmModule).exports);
}

function encoderFor(key: string): ReedSolomonErasure {
  let e = encoders.get(key);
  if (e) encoders.delete(key);
  else e = freshInstance();
  encoders.set(key, e);
  while (encoders.size > ENCODERS_MAX) encoders.delete(encoders.keys().next().value as string);
  return e;
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
  const key = `${k}+${m}:${assertShape(shards, k, m)}`;
  let result: number;
  try {
    result = encoderFor(key).encode(shards, k, m);
  } catch (err) {
    if (!(err instanceof WebAssembly.RuntimeError)) throw err;
    encoders.delete(key);
    result = encoderFor(key).encode(shards, k, m);
  }
  check(result, 'encode');
}

/**
 * Rebuilds the missing data shards in place from any k present ones
 * (`present[i]` false marks shard i as missing or corrupt; its bytes are
 * ignored). Parity shards are not rebuilt.
 *
 * Decoding runs in common/gf256.ts, not in the wasm: the wasm build's
 * allocator corrupts its heap when one instance reconstructs more than once
 * (wrong "too few shards" results, then out-of-bounds traps), so it needed a
 * fresh instance and linear memory per rebuild; the TypeScript decoder
 * reproduces the wasm's parity bit for bit (test/client/gf256.test.ts) and
 * measured as fast as the fresh-instance wasm on 1 MiB shards, faster on
 * small ones (bench/erasure.ts).
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
