// The data-on-MDS shapes suite end to end on a real cluster with a few files:
// a row per file set and reads in flight, each beside node:fs in the same
// shape, with CPU per sample of the client and the MDS; one read in flight is
// one Open per sample, more are OpenMany batches (the suite checks every
// sample's length); 16 in flight is read over the framed path and over gRPC.
import { describe, expect, it } from 'vitest';
import { GRPC_SHAPES, IN_FLIGHT_SHAPES, runDomShapesBench } from '../../bench/dom-shapes.js';

describe('data-on-MDS shapes bench', () => {
  it('measures each set at each number of reads in flight, one Open per sample alone, batches beyond', async () => {
    const files = 40;
    const results = await runDomShapesBench({ quick: true, files, rounds: 1 });
    expect(results.map((r) => r.id)).toEqual(
      ['tiny', 'loader'].flatMap((set) => [
        ...IN_FLIGHT_SHAPES.map((n) => `domshapes.${set}.inflight-${n}`),
        ...GRPC_SHAPES.map((n) => `domshapes.${set}.inflight-${n}-grpc`),
      ]),
    );
    for (const r of results) {
      expect(r.value, r.id).toBeGreaterThan(0);
      expect(r.baseline, r.id).toBeGreaterThan(0);
      expect(r.note, r.id).toMatch(/CPU ms\/sample client \d/);
    }
    const callsOf = (id: string) =>
      results.find((r) => r.id === id)?.note?.match(/MDS calls\/sample (.*) \(/)?.[1];
    expect(callsOf('domshapes.tiny.inflight-1')).toBe('open 1.000');
    // 40 files of 1 KiB, 64 in flight: one OpenMany for all of them.
    expect(callsOf('domshapes.tiny.inflight-64')).toBe(`openMany ${(1 / files).toFixed(3)}`);
    expect(callsOf('domshapes.loader.inflight-16-grpc')).toMatch(/^openMany /);
    expect(results.find((r) => r.id === 'domshapes.loader.inflight-16-grpc')?.note).toMatch(/over gRPC/);
  });
});
