// The byte math, checked exhaustively on small geometries (the math does not
// depend on the stripe size being large) against a byte-by-byte reference.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StripedLayout as Layout } from '../../client/layout.js';
import { planPrefetchRuns } from '../../client/prefetch-runs.js';
import {
  assembleStripe,
  disassembleStripe,
  ecChunkObjectBytes,
  ecShardBytes,
  ecStripeCount,
  fileOffsetOf,
  locateByte,
  mapRange,
  objectDataBytes,
} from '../../client/striping.js';
import { planWriteRuns } from '../../client/write-runs.js';

const SEED = Number(process.env.STRIPEFS_SEED ?? Date.now() % 2 ** 31);
console.log(`striping.test seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

function small(pattern: Layout['pattern'], stripeSize: number, width: number): Layout {
  if (pattern === 'ec') return { pattern, stripeSize, k: width, m: 2, failureDomain: 'host' };
  if (pattern === 'replicated')
    return { pattern, stripeSize, stripeCount: width, replicas: 3, failureDomain: 'host' };
  return { pattern, stripeSize, stripeCount: width };
}

/** Reference: walk bytes one by one, the definition in docs/ARCHITECTURE.md. */
function referenceLocate(layout: Layout, o: number): [number, number] {
  const s = layout.stripeSize;
  const c = layout.pattern === 'ec' ? (layout.k as number) : (layout.stripeCount as number);
  if (layout.pattern === 'ec') {
    const stripe = Math.floor(o / (c * s));
    return [Math.floor((o % (c * s)) / s), stripe * s + (o % s)];
  }
  const u = Math.floor(o / s);
  return [u % c, Math.floor(u / c) * s + (o % s)];
}

describe('striping byte math', () => {
  it('the documented examples', () => {
    const raid = small('raid0', 1048576, 4);
    expect(locateByte(raid, 5 * 1048576 + 7)).toEqual({ unit: 5, objectIndex: 1, objectOffset: 1048576 + 7 });
    const ec = small('ec', 1048576, 4);
    expect(locateByte(ec, 9 * 1048576 + 3)).toEqual({
      unit: 9,
      objectIndex: 1,
      objectOffset: 2 * 1048576 + 3,
    });
  });

  for (const pattern of ['raid0', 'replicated', 'ec'] as const) {
    it(`${pattern}: every byte of every small file maps as the reference says, injectively`, () => {
      for (const stripeSize of [1, 2, 4, 8]) {
        for (let width = 1; width <= 6; width++) {
          const layout = small(pattern, stripeSize, width);
          const seen = new Set<string>();
          for (let o = 0; o < 3 * stripeSize * width + 5; o++) {
            const where = locateByte(layout, o);
            expect([where.objectIndex, where.objectOffset]).toEqual(referenceLocate(layout, o));
            expect(fileOffsetOf(layout, where.objectIndex, where.objectOffset)).toBe(o);
            const key = `${where.objectIndex}:${where.objectOffset}`;
            expect(seen.has(key)).toBe(false);
            seen.add(key);
          }
        }
      }
    });

    it(`${pattern}: mapRange covers the range exactly, one unit per extent`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 6 }),
          fc.integer({ min: 1, max: 8 }),
          fc.nat(5000),
          fc.nat(600),
          (sizeLog, width, offset, length) => {
            const layout = small(pattern, 2 ** sizeLog, width);
            const extents = mapRange(layout, offset, length);
            let at = offset;
            const bad: string[] = [];
            for (const e of extents) {
              const [obj, off] = referenceLocate(layout, e.fileOffset);
              const ok =
                e.fileOffset === at &&
                e.length > 0 &&
                Math.floor(e.fileOffset / layout.stripeSize) === e.unit &&
                Math.floor((e.fileOffset + e.length - 1) / layout.stripeSize) === e.unit &&
                e.objectIndex === obj &&
                e.objectOffset === off;
              if (!ok) bad.push(JSON.stringify(e));
              at += e.length;
            }
            expect(bad).toEqual([]);
            expect(at).toBe(offset + length);
          },
        ),
        { seed: SEED, numRuns: 300 },
      );
    });

    it(`${pattern}: objectDataBytes counts the bytes each object holds`, () => {
      for (const stripeSize of [1, 2, 4]) {
        for (let width = 1; width <= 5; width++) {
          const layout = small(pattern, stripeSize, width);
          for (let fileSize = 0; fileSize < 4 * stripeSize * width + 3; fileSize++) {
            const counts = new Array<number>(width).fill(0);
            const maxEnd = new Array<number>(width).fill(0);
            for (let o = 0; o < fileSize; o++) {
              const [obj, off] = referenceLocate(layout, o);
              counts[obj] = (counts[obj] ?? 0) + 1;
              maxEnd[obj] = Math.max(maxEnd[obj] ?? 0, off + 1);
            }
            for (let i = 0; i < width; i++) {
              expect(objectDataBytes(layout, fileSize, i)).toBe(counts[i]);
              // Objects are dense: their data ends where their bytes end.
              expect(maxEnd[i]).toBe(counts[i]);
            }
          }
        }
      }
    });
  }

  it('ec: shard sizes and chunk object sizes cover every data chunk', () => {
    for (const stripeSize of [1, 2, 4, 8]) {
      for (let k = 1; k <= 5; k++) {
        const layout = small('ec', stripeSize, k);
        for (let fileSize = 0; fileSize < 3 * k * stripeSize + 2; fileSize++) {
          const stripes = ecStripeCount(layout, fileSize);
          expect(stripes).toBe(Math.ceil(fileSize / (k * stripeSize)));
          const chunkBytes = ecChunkObjectBytes(layout, fileSize);
          for (let j = 0; j < k; j++)
            expect(chunkBytes).toBeGreaterThanOrEqual(objectDataBytes(layout, fileSize, j));
          if (stripes > 0) {
            const last = ecShardBytes(layout, fileSize, stripes - 1);
            expect(last).toBe(Math.min(stripeSize, fileSize - (stripes - 1) * k * stripeSize));
            expect(objectDataBytes(layout, fileSize, 0)).toBe(chunkBytes);
          }
        }
      }
    }
  });

  it('ec: assembleStripe and disassembleStripe round-trip and pad with zeros', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 200 }),
        (sizeLog, k, seedBytes) => {
          const stripeSize = 2 ** sizeLog;
          const layout: Layout = { pattern: 'ec', stripeSize, k, m: 2, failureDomain: 'host' };
          const dataBytes = 1 + (seedBytes % (k * stripeSize));
          const data = Buffer.from(Array.from({ length: dataBytes }, (_, i) => (i * 7 + seedBytes) & 0xff));
          const shardBytes = Math.min(stripeSize, dataBytes);
          const shards = assembleStripe(layout, data, shardBytes);
          expect(shards.length).toBe((k + 2) * shardBytes);
          expect(disassembleStripe(layout, shards, shardBytes, dataBytes).equals(data)).toBe(true);
          // Bytes of each data shard beyond the data are zero; parity space is untouched (zero).
          for (let j = 0; j < k + 2; j++) {
            for (let x = 0; x < shardBytes; x++) {
              const fileOffset = j * stripeSize + x;
              if (j >= k || fileOffset >= dataBytes) expect(shards[j * shardBytes + x]).toBe(0);
              else expect(shards[j * shardBytes + x]).toBe(data[fileOffset]);
            }
          }
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
  });
});

describe('readahead runs (planPrefetchRuns)', () => {
  const seg = 4;
  it('covers every block once, each run back to back in one object, aligned and bounded', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Layout['pattern']>('raid0', 'replicated', 'ec'),
        fc.integer({ min: 1, max: 4 }), // blocks per stripe unit
        fc.integer({ min: 1, max: 5 }), // width
        fc.uniqueArray(fc.integer({ min: 0, max: 80 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 6 }), // run limit in blocks
        fc.integer({ min: 1, max: 200 }), // file size in segments
        (pattern, perUnit, width, blocks, runBlocks, sizeSegments) => {
          const blockBytes = 2 * seg;
          const layout = small(pattern, blockBytes * perUnit, width);
          const size = sizeSegments * seg;
          const present = blocks.filter((b) => b * blockBytes < size);
          const lengthOf = (b: number) => Math.min(blockBytes, size - b * blockBytes);
          const runs = planPrefetchRuns(layout, blockBytes, present, lengthOf, runBlocks * blockBytes, seg);
          expect(runs.flatMap((r) => r.blocks).sort((a, b) => a - b)).toEqual(
            [...present].sort((a, b) => a - b),
          );
          for (const run of runs) {
            expect(run.objectOffset % seg).toBe(0);
            expect(run.lengths.reduce((a, n) => a + n, 0)).toBeLessThanOrEqual(
              Math.max(blockBytes, runBlocks * blockBytes),
            );
            let at = run.objectOffset;
            run.blocks.forEach((b, i) => {
              const where = locateByte(layout, b * blockBytes);
              expect([where.objectIndex, where.objectOffset]).toEqual([run.objectIndex, at]);
              expect(run.lengths[i]).toBe(lengthOf(b));
              if (i < run.blocks.length - 1) expect(run.lengths[i]).toBe(blockBytes);
              at += run.lengths[i] as number;
            });
          }
          // Nearest first.
          const firsts = runs.map((r) => r.blocks[0] as number);
          expect(firsts).toEqual([...firsts].sort((a, b) => a - b));
        },
      ),
    );
  });

  it('merges a readahead burst per object and leaves misaligned blocks single', () => {
    const layout = small('raid0', 8, 4);
    const burst = Array.from({ length: 32 }, (_, i) => i); // 8 blocks per object
    const runs = planPrefetchRuns(layout, 8, burst, () => 8, 32, 4);
    expect(runs).toHaveLength(8);
    expect(runs[0]).toEqual({
      objectIndex: 0,
      objectOffset: 0,
      blocks: [0, 4, 8, 12],
      lengths: [8, 8, 8, 8],
    });
    // A block size the segment does not divide: every block alone.
    expect(planPrefetchRuns(layout, 6, [0, 4, 8], () => 6, 32, 4)).toHaveLength(3);
  });
});

describe('write runs', () => {
  it('joins the extents of one object back to back in it, up to the byte bound, in the order of their first extent', () => {
    const layout = { pattern: 'raid0', stripeSize: 4, stripeCount: 2 } as const;
    // 24 bytes: units 0..5 alternate objects 0 and 1, three units each, back to back in each object.
    const extents = mapRange(layout as Layout, 0, 24);
    const runs = planWriteRuns(extents, 8);
    expect(runs.map((r) => [r.objectIndex, r.objectOffset, r.bytes, r.extents.length])).toEqual([
      [0, 0, 8, 2],
      [1, 0, 8, 2],
      [0, 8, 4, 1],
      [1, 8, 4, 1],
    ]);
    // A write starting inside a unit: its first extent is partial and still followed in its object.
    const partial = planWriteRuns(mapRange(layout as Layout, 2, 12), 100);
    expect(partial.map((r) => [r.objectIndex, r.objectOffset, r.bytes])).toEqual([
      [0, 2, 6],
      [1, 0, 6],
    ]);
  });
});
