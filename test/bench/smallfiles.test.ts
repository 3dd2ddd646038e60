// The small-file bench end to end on a real cluster with a few files: every
// figure is there with its same-run node:fs baseline (the bench itself checks
// every byte read back and the listing's sizes).
import { describe, expect, it } from 'vitest';
import { runSmallFilesBench } from '../../bench/smallfiles.js';

describe('small-file bench', () => {
  it('writes, reads back, opens and lists the files beside node:fs; packed and disk-cache epochs too', async () => {
    const results = await runSmallFilesBench({ quick: true, files: 200 });
    expect(results.map((r) => [r.id, r.unit])).toEqual([
      ['smallfiles.read', 'files/s'],
      ['smallfiles.read-bytes', 'GB/s'],
      ['smallfiles.read-vs-direct', 'files/s'],
      ['smallfiles.read-vs-open', 'files/s'],
      ['smallfiles.write', 'files/s'],
      ['smallfiles.list-with-attrs', 'entries/s'],
      ['smallfiles.scan-statahead', 'entries/s'],
      ['smallfiles.scan-statahead-vs-plain', 'entries/s'],
      ['smallfiles.dom.read', 'files/s'],
      ['smallfiles.dom.read-vs-open', 'files/s'],
      ['smallfiles.dom.write', 'files/s'],
      ['smallfiles.packed.getmany', 'samples/s'],
      ['smallfiles.diskcache.epoch2', 'files/s'],
      ['smallfiles.diskcache.epoch2-ttl', 'files/s'],
      ['smallfiles.diskcache.epoch2-vs-epoch1', 'files/s'],
    ]);
    for (const r of results) {
      expect(Number.isFinite(r.value) && r.value > 0, r.id).toBe(true);
      expect(r.baseline, r.id).toBeGreaterThan(0);
      expect(r.command).toBe('node dist/bench/smallfiles.js --quick');
    }
  });
});
