// The TypeScript Reed-Solomon decoder (common/gf256.ts) against the wasm
// encoder it must match bit for bit: same parity for every geometry the
// layouts allow in practice, rebuilds of any m lost shards, the same missing
// pattern again and again (what broke the wasm decoder), and per-shape wasm
// encoders that stay correct across many shapes in one process.
import { describe, expect, it } from 'vitest';
import { encodeParity, reconstruct, reconstructAll } from '../../common/erasure.js';
import { encodingMatrix, rebuildShards } from '../../common/gf256.js';
import { seededRandom } from '../../common/random.js';

const SEED = Number(process.env.STRIPEFS_SEED ?? Date.now() % 2 ** 31);
console.log(`gf256.test seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const random = seededRandom(SEED);

function randomShards(k: number, m: number, shard: number): Uint8Array {
  const buf = new Uint8Array(shard * (k + m));
  for (let i = 0; i < k * shard; i++) buf[i] = random.int(256);
  return buf;
}

/** `count` distinct shard indexes out of n, seeded. */
function pick(n: number, count: number): Set<number> {
  const out = new Set<number>();
  while (out.size < count) out.add(random.int(n));
  return out;
}

describe('gf256 Reed-Solomon', () => {
  it('is systematic: the top k rows of the encoding matrix are the identity', () => {
    for (const [k, m] of [
      [1, 1],
      [4, 2],
      [8, 3],
    ] as const) {
      const e = encodingMatrix(k, m);
      expect(e.length).toBe(k + m);
      for (let r = 0; r < k; r++)
        expect([...(e[r] as Uint8Array)]).toEqual([...Array(k).keys()].map((c) => (c === r ? 1 : 0)));
    }
  });

  it('computes the same parity as the wasm encoder for k 1..12, m 1..4 and odd sizes', () => {
    for (let k = 1; k <= 12; k++) {
      for (let m = 1; m <= 4; m++) {
        for (const shard of [1, 13, 4096 + 5]) {
          const wasm = randomShards(k, m, shard);
          encodeParity(wasm, k, m);
          const ours = wasm.slice();
          ours.fill(0, k * shard);
          rebuildShards(
            ours,
            k,
            m,
            Array.from({ length: k + m }, (_, i) => i < k),
          );
          expect(Buffer.from(ours).equals(Buffer.from(wasm)), `${k}+${m} shard ${shard}`).toBe(true);
        }
      }
    }
  });

  it('rebuilds any m lost shards, data and parity, and the same pattern again and again', () => {
    for (const [k, m] of [
      [2, 1],
      [3, 1],
      [4, 2],
      [6, 3],
      [8, 4],
    ] as const) {
      const shard = 1000 + k;
      const good = randomShards(k, m, shard);
      encodeParity(good, k, m);
      const lost = pick(k + m, m);
      const present = Array.from({ length: k + m }, (_, i) => !lost.has(i));
      for (let again = 0; again < 4; again++) {
        const broken = good.slice();
        for (const i of lost) broken.fill(0xee, i * shard, (i + 1) * shard);
        reconstructAll(broken, k, m, present);
        expect(Buffer.from(broken).equals(Buffer.from(good)), `${k}+${m} lost ${[...lost]}`).toBe(true);
        const dataOnly = good.slice();
        for (const i of lost) dataOnly.fill(0xee, i * shard, (i + 1) * shard);
        reconstruct(dataOnly, k, m, present);
        expect(
          Buffer.from(dataOnly.subarray(0, k * shard)).equals(Buffer.from(good.subarray(0, k * shard))),
        ).toBe(true);
      }
    }
  });

  it('refuses a rebuild with fewer than k shards present', () => {
    const shards = randomShards(4, 2, 64);
    encodeParity(shards, 4, 2);
    expect(() => reconstruct(shards, 4, 2, [false, false, false, true, true, true])).toThrow(/only 3 of 4/);
    expect(() => rebuildShards(shards, 4, 2, [true, true])).toThrow(/2 flags for 6/);
  });

  it('keeps the wasm encoders correct across many shapes in one process', () => {
    for (let round = 0; round < 3; round++) {
      for (let k = 1; k <= 10; k++) {
        for (const m of [1, 2, 3]) {
          const shard = 64 + 17 * k + round;
          const wasm = randomShards(k, m, shard);
          encodeParity(wasm, k, m);
          const ours = wasm.slice();
          rebuildShards(
            ours,
            k,
            m,
            Array.from({ length: k + m }, (_, i) => i < k),
          );
          expect(Buffer.from(ours).equals(Buffer.from(wasm))).toBe(true);
        }
      }
    }
  });
});
