// The erasure bench on a small amount of data: every figure is there with its
// same-run baseline and command, and the wasm codec behaviour it prices still
// holds: a reused 4+2 instance rebuilds the same missing shard again and again,
// and refuses (TOO_FEW_SHARDS_PRESENT) once the missing shard changes, so a
// reused instance is no drop-in; stripefs codes with common/gf256.ts.
import { randomFillSync } from 'node:crypto';
import { ReedSolomonErasure } from '@subspace/reed-solomon-erasure.wasm';
import { describe, expect, it } from 'vitest';
import { runErasureBench, wasmInstance } from '../../bench/erasure.js';
import { encodeParity } from '../../client/ec.js';

const MiB = 1 << 20;

describe('erasure bench', () => {
  it('reports every figure with its baseline, checked against the original bytes', async () => {
    const results = await runErasureBench({ quick: true, dataBytes: 8 * MiB });
    expect(results.map((r) => r.id)).toEqual([
      'baseline.ec.memcpy',
      'ec.encode-4+2',
      'ec.encode-4+2.vs-wasm-package',
      'ec.reconstruct-4+2.1-missing',
      'ec.reconstruct-4+2.2-missing',
      'ec.reconstruct-4+2.1-missing.vs-wasm-fresh',
      'ec.reconstruct-4+2.1-missing.vs-wasm-reused',
      'ec.encode-4+2.64k',
      'ec.reconstruct-4+2.64k.vs-wasm-fresh',
      'ec.wasm-instance-create',
    ]);
    for (const r of results) {
      expect(Number.isFinite(r.value) && r.value > 0, r.id).toBe(true);
      expect(r.command).toBe('node dist/bench/erasure.js --quick');
      if (r.id.startsWith('ec.') && r.unit === 'GB/s') {
        expect(r.baseline, r.id).toBeGreaterThan(0);
        expect(r.ratio).toBeCloseTo(r.value / (r.baseline as number));
      }
    }
  });

  it('a reused wasm instance refuses a rebuild once the missing shard changes', () => {
    const k = 4;
    const m = 2;
    const shardBytes = 64 * 1024;
    const original = Buffer.alloc((k + m) * shardBytes);
    randomFillSync(original, 0, k * shardBytes);
    encodeParity(original, k, m);
    const reused = wasmInstance();
    const rebuild = (missing: number): { code: number; equal: boolean } => {
      const shards = Buffer.from(original);
      shards.fill(0, missing * shardBytes, (missing + 1) * shardBytes);
      const present = Array.from({ length: k + m }, (_, i) => i !== missing);
      const code = reused.reconstruct(shards, k, m, present);
      return { code, equal: shards.equals(original) };
    };
    const ok = { code: ReedSolomonErasure.RESULT_OK, equal: true };
    expect(rebuild(0)).toEqual(ok);
    expect(rebuild(0)).toEqual(ok);
    expect(rebuild(1)).toEqual({
      code: ReedSolomonErasure.RESULT_ERROR_TOO_FEW_SHARDS_PRESENT,
      equal: false,
    });
  });
});
