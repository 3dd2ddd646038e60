// Issue 25's scale suite end to end on a real cluster with a few files and
// entries: every row is there, each stripefs rate beside its same-run node:fs
// baseline and with what bounds it (the suite itself checks every sample's
// length, that data-on-MDS files took one create each and were read without an
// OSS byte, and that the second disk-cache epoch read none either).
import { describe, expect, it } from 'vitest';
import { runSmallFilesScaleBench } from '../../bench/smallfiles-scale.js';

describe('small-file scale bench', () => {
  it('runs the loader epochs, the directory scan and the MDS memory figures', async () => {
    const results = await runSmallFilesScaleBench({ quick: true, files: 60, entries: 300 });
    expect(results.map((r) => [r.id, r.unit])).toEqual([
      ['smallfiles-scale.dom.read', 'samples/s'],
      ['smallfiles-scale.dom.read-batched', 'samples/s'],
      ['smallfiles-scale.dom.write', 'files/s'],
      ['smallfiles-scale.plain.read', 'samples/s'],
      ['smallfiles-scale.packed.getmany', 'samples/s'],
      ['smallfiles-scale.diskcache.epoch2', 'files/s'],
      ['smallfiles-scale.diskcache.epoch2-ttl', 'files/s'],
      ['smallfiles-scale.mds.rss-per-million-dom-files', 'MiB'],
      ['smallfiles-scale.scan.statahead', 'entries/s'],
      ['smallfiles-scale.scan.statahead-vs-plain', 'entries/s'],
      ['smallfiles-scale.creates', 'entries/s'],
      ['smallfiles-scale.mds.rss-per-million-entries', 'MiB'],
    ]);
    for (const r of results) {
      expect(Number.isFinite(r.value), r.id).toBe(true);
      if (r.unit !== 'MiB') {
        expect(r.value, r.id).toBeGreaterThan(0);
        expect(r.baseline, r.id).toBeGreaterThan(0);
      }
    }
    const bounded = results.filter((r) => r.note?.includes('CPU ms/'));
    expect(bounded.map((r) => r.id)).toEqual([
      'smallfiles-scale.dom.read',
      'smallfiles-scale.dom.read-batched',
      'smallfiles-scale.dom.write',
      'smallfiles-scale.plain.read',
      'smallfiles-scale.packed.getmany',
      'smallfiles-scale.scan.statahead',
    ]);
  });
});
