// The TLS bench end to end with small sizes: two real clusters, one with TLS
// (the bench checks it refuses plain TCP) and one without, every figure beside
// the same-run figure without TLS, bytes read back equal (the bench throws
// otherwise).
import { describe, expect, it } from 'vitest';
import { runTlsBench } from '../../bench/tls.js';

describe('tls bench', () => {
  it('writes and reads the same files with TLS on and off and reports rates and CPU per GiB', async () => {
    const results = await runTlsBench({
      quick: true,
      sizeBytes: 6 * 1024 * 1024 + 5,
      smallFiles: 5,
      rounds: 2,
    });
    expect(results.map((r) => [r.id, r.unit])).toEqual([
      ['tls.seq-write', 'GB/s'],
      ['tls.seq-write.cpu', 'CPU ms/GiB'],
      ['tls.seq-read', 'GB/s'],
      ['tls.seq-read.cpu', 'CPU ms/GiB'],
      ['tls.small-write', 'GB/s'],
      ['tls.small-write.cpu', 'CPU ms/GiB'],
      ['tls.small-read', 'GB/s'],
      ['tls.small-read.cpu', 'CPU ms/GiB'],
    ]);
    for (const r of results) {
      expect(Number.isFinite(r.value) && r.value > 0, r.id).toBe(true);
      expect(r.baseline, r.id).toBeGreaterThan(0);
      expect(r.command).toBe('node dist/bench/tls.js --quick');
    }
  });
});
