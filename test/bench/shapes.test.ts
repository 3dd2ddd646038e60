// The API-shapes bench end to end with a small file: each layout's file read
// whole as a handle, readFile, a stream and node:fs in alternating rounds, the
// reads checked for their byte count (the bench throws otherwise), each row
// beside its same-run baseline. Counts and shape only, never speed.
import { describe, expect, it } from 'vitest';
import { LAYOUTS } from '../../bench/cli.js';
import { runShapesBench } from '../../bench/shapes.js';

describe('shapes bench', () => {
  it('reads each layout in every shape and reports readFile and stream against handle, readFile against node:fs', async () => {
    const results = await runShapesBench({ quick: true, sizeBytes: 3 * 1024 * 1024 + 17, rounds: 2 });
    expect(results.map((r) => r.id)).toEqual(
      Object.keys(LAYOUTS).flatMap((name) =>
        ['handle', 'readFile', 'readFile-vs-fs', 'stream'].map((row) => `shapes.${name}.${row}`),
      ),
    );
    for (const r of results) {
      expect([r.id, r.unit, r.command]).toEqual([r.id, 'GB/s', 'node dist/bench/shapes.js --quick']);
      expect(r.value, r.id).toBeGreaterThan(0);
      if (!r.id.endsWith('.handle')) expect(r.baseline ?? 0, r.id).toBeGreaterThan(0);
    }
    expect(results[0]?.note).toMatch(
      /^3 MiB, median of 2 alternating rounds \(s: handle [\d.]+, [\d.]+; readFile/,
    );
  });
});
