// stripefs's Reed-Solomon (common/gf256.ts over the SIMD kernel of
// common/gf-kernel.ts) against @subspace/reed-solomon-erasure.wasm, whose
// parity it must match bit for bit: every geometry the layouts allow in
// practice, sizes around the kernel's 64-byte step and its tiles, rebuilds of
// any m lost shards, the same missing pattern again and again, the kernel
// against a byte-by-byte reference, and the committed kernel bytes against
// a fresh compile of its source.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ReedSolomonErasure } from '@subspace/reed-solomon-erasure.wasm';
import { describe, expect, it } from 'vitest';
import { encodeParity, rebuildChunk, reconstruct, reconstructAll } from '../../common/erasure.js';
import { gfMatMul, nibbleTables, TILE_BYTES } from '../../common/gf-kernel.js';
import { encodingMatrix, gfMul, rebuildShards } from '../../common/gf256.js';
import { seededRandom } from '../../common/random.js';
// @ts-expect-error: a plain .mjs build script without types
import { compileKernel, renderKernelModule } from '../../scripts/gen-gf-kernel.mjs';

const packageBytes = readFileSync(
  join(
    dirname(createRequire(import.meta.url).resolve('@subspace/reed-solomon-erasure.wasm')),
    'reed_solomon_erasure_bg.wasm',
  ),
);

/** The package's parity, on a fresh instance (one instance must not see several shapes). */
function packageParity(shards: Uint8Array, k: number, m: number): void {
  expect(ReedSolomonErasure.fromBytes(packageBytes).encode(shards, k, m)).toBe(ReedSolomonErasure.RESULT_OK);
}

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

  it('computes the same parity as the wasm package for k 1..12, m 1..4 and odd sizes', () => {
    for (let k = 1; k <= 12; k++) {
      for (let m = 1; m <= 4; m++) {
        for (const shard of [1, 13, 4096 + 5]) {
          const reference = randomShards(k, m, shard);
          packageParity(reference, k, m);
          const ours = reference.slice();
          ours.fill(0, k * shard);
          encodeParity(ours, k, m);
          expect(Buffer.from(ours).equals(Buffer.from(reference)), `${k}+${m} shard ${shard}`).toBe(true);
        }
      }
    }
  });

  it('matches the wasm package around the 64-byte step and across tiles', () => {
    for (const shard of [
      63,
      64,
      65,
      127,
      4096,
      TILE_BYTES - 1,
      TILE_BYTES,
      TILE_BYTES + 1,
      2 * TILE_BYTES + 77,
    ]) {
      const reference = randomShards(4, 2, shard);
      packageParity(reference, 4, 2);
      const ours = reference.slice();
      ours.fill(0xaa, 4 * shard);
      encodeParity(ours, 4, 2);
      expect(Buffer.from(ours).equals(Buffer.from(reference)), `4+2 shard ${shard}`).toBe(true);
    }
  });

  it('multiplies any coefficients, 0 and 1 included, into outputs at odd offsets', () => {
    for (const [rows, k, size] of [
      [1, 1, 1],
      [3, 5, 1000],
      [2, 4, TILE_BYTES + 3],
    ] as const) {
      const coefficients = Array.from({ length: rows }, (_, r) =>
        Uint8Array.from({ length: k }, (_, j) => (r === 0 && j === 0 ? 0 : j === 1 ? 1 : random.int(256))),
      );
      const inputs = Array.from({ length: k }, () =>
        Uint8Array.from({ length: size }, () => random.int(256)),
      );
      const backing = new Uint8Array(rows * (size + 3) + 1);
      const outputs = Array.from({ length: rows }, (_, r) =>
        backing.subarray(1 + r * (size + 3), 1 + r * (size + 3) + size),
      );
      gfMatMul(nibbleTables(coefficients, k, gfMul), inputs, outputs);
      for (let r = 0; r < rows; r++)
        for (let i = 0; i < size; i++) {
          let want = 0;
          for (let j = 0; j < k; j++)
            want ^= gfMul(
              (coefficients[r] as Uint8Array)[j] as number,
              (inputs[j] as Uint8Array)[i] as number,
            );
          if ((outputs[r] as Uint8Array)[i] !== want)
            expect.fail(`row ${r} byte ${i}: ${(outputs[r] as Uint8Array)[i]} != ${want}`);
        }
    }
    expect(() => gfMatMul(new Uint8Array(31), [new Uint8Array(4)], [new Uint8Array(4)])).toThrow(
      /31 table bytes/,
    );
    expect(() => gfMatMul(new Uint8Array(32), [new Uint8Array(4)], [new Uint8Array(5)])).toThrow(/shards of/);
  });

  it('ships the kernel bytes its .wat source compiles to', async () => {
    const text = renderKernelModule(await compileKernel());
    expect(readFileSync('common/gf-kernel-wasm.ts', 'utf8')).toBe(text);
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

  it('rebuilds one chunk, data or parity, from k chunks in separate buffers', () => {
    for (const [k, m, shard] of [
      [4, 2, 5000],
      [6, 3, 64],
      [2, 1, 1],
    ] as const) {
      const good = randomShards(k, m, shard);
      encodeParity(good, k, m);
      const chunk = (i: number) => good.subarray(i * shard, (i + 1) * shard);
      for (let want = 0; want < k + m; want++) {
        const others = [...Array(k + m).keys()].filter((i) => i !== want);
        const use = [...pick(others.length, k)].map((i) => others[i] as number);
        // Each input a copy at an odd offset of its own buffer, as blocks read from different OSSs are.
        const inputs = new Map(
          use.map((i) => {
            const at = Buffer.alloc(shard + 1);
            at.set(chunk(i), 1);
            return [i, at.subarray(1)];
          }),
        );
        const out = Buffer.alloc(shard, 0xee);
        rebuildChunk(k, m, want, inputs, out);
        expect(out.equals(Buffer.from(chunk(want))), `${k}+${m} chunk ${want} from ${use}`).toBe(true);
      }
      const few = new Map([[1, Buffer.from(chunk(1))]]);
      expect(() => rebuildChunk(k, m, 0, few, Buffer.alloc(shard))).toThrow(/only 1 of/);
      expect(() => rebuildChunk(k, m, 0, few, Buffer.alloc(shard + 1))).toThrow(/chunk 1 has/);
    }
  });

  it('refuses a rebuild with fewer than k shards present', () => {
    const shards = randomShards(4, 2, 64);
    encodeParity(shards, 4, 2);
    expect(() => reconstruct(shards, 4, 2, [false, false, false, true, true, true])).toThrow(/only 3 of 4/);
    expect(() => rebuildShards(shards, 4, 2, [true, true])).toThrow(/2 flags for 6/);
  });
});
