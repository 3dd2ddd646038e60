// The CLI bench end to end on a real cluster with small files: every figure
// is there beside the library's same-run figure, each CLI copy a real process.
import { describe, expect, it } from 'vitest';
import { runCliBench } from '../../bench/cli.js';

describe('cli bench', () => {
  it('puts and gets a file per layout and a folder beside the library doing the same', async () => {
    const results = await runCliBench({
      quick: true,
      fileBytes: 6 * 1024 * 1024 + 5,
      folderFiles: 5,
      folderFileBytes: 100_000,
      repeats: 1,
    });
    expect(results.map((r) => [r.id, r.unit])).toEqual([
      ['cli.put.raid0', 'GB/s'],
      ['cli.get.raid0', 'GB/s'],
      ['cli.put.rep3', 'GB/s'],
      ['cli.get.rep3', 'GB/s'],
      ['cli.put.ec42', 'GB/s'],
      ['cli.get.ec42', 'GB/s'],
      ['cli.put-folder', 'GB/s'],
      ['cli.get-folder', 'GB/s'],
    ]);
    for (const r of results) {
      expect(Number.isFinite(r.value) && r.value > 0, r.id).toBe(true);
      expect(r.baseline, r.id).toBeGreaterThan(0);
      expect(r.command).toBe('node dist/bench/cli.js --quick');
    }
  });
});
