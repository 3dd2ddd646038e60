// The checkpoint bench end to end on a real cluster with a small checkpoint:
// every figure is there beside its same-run baseline (the bench itself checks
// every loaded part against what it saved).
import { describe, expect, it } from 'vitest';
import { runCheckpointBench } from '../../bench/checkpoint.js';

describe('checkpoint bench', () => {
  it('saves, saves async and loads 64 parts beside one file written and read sequentially, loads in place and into new buffers', async () => {
    const results = await runCheckpointBench({ quick: true, totalBytes: 16 * 1024 * 1024, repeats: 1 });
    expect(results.map((r) => [r.id, r.unit])).toEqual([
      ['ckpt.baseline.seq-write', 'GB/s'],
      ['ckpt.save', 'GB/s'],
      ['ckpt.save-async-durable', 'GB/s'],
      ['ckpt.async-blocked', 's'],
      ['ckpt.async-blocked-first', 's'],
      ['ckpt.async-blocked-reference', 's'],
      ['ckpt.baseline.seq-read', 'GB/s'],
      ['ckpt.load', 'GB/s'],
      ['ckpt.baseline.seq-read-new', 'GB/s'],
      ['ckpt.load-new-buffers', 'GB/s'],
    ]);
    for (const r of results) {
      expect(Number.isFinite(r.value) && r.value > 0, r.id).toBe(true);
      expect(r.command).toBe('node dist/bench/checkpoint.js --quick');
      if (!r.id.startsWith('ckpt.baseline.')) expect(r.baseline, r.id).toBeGreaterThan(0);
    }
  });
});
