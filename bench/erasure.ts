// Erasure coding benchmark, on the calling thread like the client: ec:4+2
// encode and rebuilds with one and two data shards missing through the
// client's own functions (client/ec.ts: common/gf256.ts over the SIMD kernel
// of common/gf-kernel.ts), beside memory copy speed of the same run, and
// beside @subspace/reed-solomon-erasure.wasm doing the same work: its encode
// on one instance per shape, its rebuild on a fresh instance per call (a
// reused instance corrupts its heap once the missing pattern changes,
// test/bench/erasure.test.ts) and on one reused instance that only ever sees
// one pattern (its best case, unusable as it is). Rates count data bytes
// (k shards) per call, and every stripe is compared with the original after
// each call before it counts.
//   node dist/bench/erasure.js [--quick]
import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ReedSolomonErasure } from '@subspace/reed-solomon-erasure.wasm';
import { encodeParity, rebuildChunk } from '../client/ec.js';
import { memoryCopy } from './baselines.js';
import { type BenchResult, GB, result } from './types.js';

const MiB = 1 << 20;
const K = 4;
const M = 2;
/** One shard per stripe unit: the client rebuilds at most one 1 MiB cache block per chunk at a time. */
const SHARD_BYTES_LARGE = MiB;
/** A small read's rebuild, where a per-call fixed cost shows most. */
const SHARD_BYTES_SMALL = 64 * 1024;
const INSTANCES_TIMED = 50;
const ROUNDS = 8;
const MEMCPY_ROUND_BYTES = 256 * MiB;

let wasmBytes: Buffer | undefined;

/** A new instance the way the client makes one: the module bytes read once, compiled and instantiated each time. */
export function wasmInstance(): ReedSolomonErasure {
  if (!wasmBytes) {
    const main = createRequire(import.meta.url).resolve('@subspace/reed-solomon-erasure.wasm');
    wasmBytes = readFileSync(join(dirname(main), 'reed_solomon_erasure_bg.wasm'));
  }
  return ReedSolomonErasure.fromBytes(wasmBytes);
}

/** A k+m stripe of random data with its parity. */
function stripeOf(shardBytes: number): Buffer {
  const stripe = Buffer.alloc((K + M) * shardBytes);
  randomFillSync(stripe, 0, K * shardBytes);
  encodeParity(stripe, K, M);
  return stripe;
}

interface Case {
  id: string;
  shardBytes: number;
  /** One call on `shards`: a copy of the original stripe with the `zeroed` shards zeroed. */
  run: (shards: Buffer, present: boolean[]) => void;
  /** Shards wiped before each call: the parity for encode, the missing data shards for a rebuild. */
  zeroed: number[];
}

/**
 * Data GB/s of each case, the best of ROUNDS rounds run in turn (the machine
 * is shared: interleaving gives compared cases the same load, and the best
 * round is the one least disturbed). After every call the whole stripe must
 * equal the original again.
 */
function bestRates(cases: Case[], dataBytes: number): Map<string, number> {
  const best = new Map<string, number>();
  const roundBytes = dataBytes / ROUNDS;
  const originals = new Map<number, Buffer>();
  for (const c of cases)
    if (!originals.has(c.shardBytes)) originals.set(c.shardBytes, stripeOf(c.shardBytes));
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      const original = originals.get(c.shardBytes) as Buffer;
      const present = Array.from({ length: K + M }, (_, i) => !c.zeroed.includes(i));
      const shards = Buffer.allocUnsafe(original.length);
      let timedMs = 0;
      let done = 0;
      while (done < roundBytes) {
        original.copy(shards);
        for (const i of c.zeroed) shards.fill(0, i * c.shardBytes, (i + 1) * c.shardBytes);
        const started = performance.now();
        c.run(shards, present);
        timedMs += performance.now() - started;
        done += K * c.shardBytes;
        if (!shards.equals(original)) throw new Error(`${c.id}: wrong bytes after the call`);
      }
      best.set(c.id, Math.max(best.get(c.id) ?? 0, done / GB / (timedMs / 1000)));
    }
  }
  return best;
}

/** Memory copy GB/s, the best of ROUNDS rounds of MEMCPY_ROUND_BYTES. */
function bestMemoryCopy(): number {
  let best = 0;
  for (let round = 0; round < ROUNDS; round++) best = Math.max(best, memoryCopy(MEMCPY_ROUND_BYTES));
  return best / GB;
}

/** Encode and rebuild: the client's functions, a fresh wasm instance per call, one reused instance per case. */
function cases(): Case[] {
  const encode = (shards: Buffer) => encodeParity(shards, K, M);
  const packageEncode = () => {
    const codec = wasmInstance();
    return (shards: Buffer) => check(codec.encode(shards, K, M));
  };
  // As a degraded read does: each missing data chunk from k chunks wherever they lie.
  const clientPath = (shards: Buffer, present: boolean[]) => {
    const size = shards.length / (K + M);
    const chunk = (i: number) => shards.subarray(i * size, (i + 1) * size);
    const inputs = new Map<number, Buffer>();
    for (let i = 0; i < K + M; i++) if (present[i]) inputs.set(i, chunk(i));
    for (let i = 0; i < K; i++) if (!present[i]) rebuildChunk(K, M, i, inputs, chunk(i));
  };
  const check = (code: number) => {
    if (code !== ReedSolomonErasure.RESULT_OK) throw new Error(`wasm package failed with code ${code}`);
  };
  const freshPath = (shards: Buffer, present: boolean[]) =>
    check(wasmInstance().reconstruct(shards, K, M, present));
  const reusedPath = () => {
    const reused = wasmInstance();
    return (shards: Buffer, present: boolean[]) => check(reused.reconstruct(shards, K, M, present));
  };
  const L = SHARD_BYTES_LARGE;
  const S = SHARD_BYTES_SMALL;
  return [
    { id: 'encode', shardBytes: L, run: encode, zeroed: [4, 5] },
    { id: 'package-encode', shardBytes: L, run: packageEncode(), zeroed: [4, 5] },
    { id: 'client-1', shardBytes: L, run: clientPath, zeroed: [0] },
    { id: 'client-2', shardBytes: L, run: clientPath, zeroed: [0, 1] },
    { id: 'fresh-1', shardBytes: L, run: freshPath, zeroed: [0] },
    { id: 'reused-1', shardBytes: L, run: reusedPath(), zeroed: [0] },
    { id: 'encode-small', shardBytes: S, run: encode, zeroed: [4, 5] },
    { id: 'client-1-small', shardBytes: S, run: clientPath, zeroed: [0] },
    { id: 'fresh-1-small', shardBytes: S, run: freshPath, zeroed: [0] },
  ];
}

/** `dataBytes` (default 32 MiB quick, 512 MiB full) is split over ROUNDS rounds per case. */
export async function runErasureBench(opts: { quick: boolean; dataBytes?: number }): Promise<BenchResult[]> {
  const command = `node dist/bench/erasure.js${opts.quick ? ' --quick' : ''}`;
  const dataBytes = opts.dataBytes ?? (opts.quick ? 32 : 512) * MiB;
  const memcpy = { value: bestMemoryCopy(), name: 'Buffer.copy, 16 MiB buffers, same run' };
  const rates = bestRates(cases(), dataBytes);
  const rate = (id: string) => rates.get(id) as number;
  let instanceMs = Infinity;
  for (let i = 0; i < INSTANCES_TIMED; i++) {
    const started = performance.now();
    wasmInstance();
    instanceMs = Math.min(instanceMs, performance.now() - started);
  }
  const note = (bytes: number, more = '') => `${K}+${M}, ${bytes / 1024} KiB shards, data bytes/s${more}`;
  const client = ', client path (SIMD kernel)';
  const onFresh = (id: string) => ({
    value: rate(id),
    name: 'same rebuild, fresh wasm-package instance per call',
  });
  const onReused = (id: string) => ({
    value: rate(id),
    name: 'same rebuild, one reused wasm-package instance',
  });
  return [
    result('baseline.ec.memcpy', memcpy.value, 'GB/s', command),
    result('ec.encode-4+2', rate('encode'), 'GB/s', command, memcpy, note(SHARD_BYTES_LARGE)),
    result(
      'ec.encode-4+2.vs-wasm-package',
      rate('encode'),
      'GB/s',
      command,
      { value: rate('package-encode'), name: 'same encode, @subspace/reed-solomon-erasure.wasm' },
      note(SHARD_BYTES_LARGE),
    ),
    result(
      'ec.reconstruct-4+2.1-missing',
      rate('client-1'),
      'GB/s',
      command,
      memcpy,
      note(SHARD_BYTES_LARGE, client),
    ),
    result(
      'ec.reconstruct-4+2.2-missing',
      rate('client-2'),
      'GB/s',
      command,
      memcpy,
      note(SHARD_BYTES_LARGE, client),
    ),
    result(
      'ec.reconstruct-4+2.1-missing.vs-wasm-fresh',
      rate('client-1'),
      'GB/s',
      command,
      onFresh('fresh-1'),
    ),
    result(
      'ec.reconstruct-4+2.1-missing.vs-wasm-reused',
      rate('client-1'),
      'GB/s',
      command,
      onReused('reused-1'),
    ),
    result('ec.encode-4+2.64k', rate('encode-small'), 'GB/s', command, memcpy, note(SHARD_BYTES_SMALL)),
    result(
      'ec.reconstruct-4+2.64k.vs-wasm-fresh',
      rate('client-1-small'),
      'GB/s',
      command,
      onFresh('fresh-1-small'),
      note(SHARD_BYTES_SMALL, ', 1 missing'),
    ),
    result(
      'ec.wasm-instance-create',
      instanceMs,
      'ms',
      command,
      undefined,
      `compile + instantiate, best of ${INSTANCES_TIMED}`,
    ),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = await runErasureBench({ quick: process.argv.includes('--quick') });
  for (const r of results) process.stdout.write(`${JSON.stringify(r)}\n`);
}
