// The block-stamp rules as scenarios (pure): which chunks a decode may
// combine (common/block-stamps.ts consistentInputs), how recovery rebuilds a
// slice block by block from chunks of one write each (oss/recovery/ec-slice.ts
// rebuildSlice), and which blocks a merge writes into a target that took
// client writes since its PG moved (mergePlan); and which objects a source's
// listing gives a recovery task (oss/recovery/recover-pg.ts listedFor).
import { describe, expect, it } from 'vitest';
import { consistentInputs, largestAgreement, partStamps } from '../../common/block-stamps.js';
import { encodeParity } from '../../common/erasure.js';
import { StripeError } from '../../common/errors.js';
import { mergePlan, rebuildSlice, type StampedSlice } from '../../oss/recovery/ec-slice.js';
import { listedFor } from '../../oss/recovery/recover-pg.js';

describe('consistentInputs', () => {
  it('takes k chunks of one write, the newest group when two have k', () => {
    const w = (position: number, stamp: number) => ({ position, stamps: [stamp, stamp] });
    expect(consistentInputs([w(1, 5), w(2, 7), w(3, 5)], 2)).toEqual([1, 3]);
    expect(consistentInputs([w(0, 5), w(1, 7), w(2, 5), w(3, 7)], 2)).toEqual([1, 3]);
    // Chunks of two writes only (one of each, k = 2): none.
    expect(consistentInputs([w(1, 7), w(2, 5)], 2)).toBeUndefined();
    expect(largestAgreement([w(1, 7), w(2, 5), w(3, 5)])).toBe(2);
    // Stamps differing in one block are two writes.
    expect(
      consistentInputs(
        [
          { position: 0, stamps: [5, 5] },
          { position: 1, stamps: [5, 6] },
        ],
        2,
      ),
    ).toBeUndefined();
  });

  it('never a group of old holders alone, and chunks without stamps are one group', () => {
    const placed = { position: 1, stamps: [9] };
    const oldHolders = [
      { position: 2, stamps: [4], current: false },
      { position: 3, stamps: [4], current: false },
    ];
    expect(consistentInputs([placed, ...oldHolders], 2)).toBeUndefined();
    expect(consistentInputs([placed, { position: 2, stamps: [9], current: false }], 2)).toEqual([1, 2]);
    expect(
      consistentInputs(
        [
          { position: 0, stamps: undefined },
          { position: 2, stamps: undefined },
        ],
        2,
      ),
    ).toEqual([0, 2]);
  });

  it('cuts a run read into its parts by block', () => {
    const B = 4;
    // A run read from offset 8 (block 2) over blocks 2..6: the part at 16+8 is blocks 4..5.
    expect(partStamps([12, 13, 14, 15, 16], 8, 16, 8, B)).toEqual([14, 15]);
    expect(partStamps([12, 13], 8, 16, 4, B)).toBeUndefined();
  });
});

/** An ec 2+2 stripe of `blocks` blocks of B bytes whose chunk j holds `stampOf(j, b)`'s bytes in block b. */
function stripes(blocks: number, B: number, writes: number[][]): StampedSlice[] {
  // writes[j][b]: the write (a small number, also its stamp) chunk j holds in block b.
  const chunks = Array.from({ length: 4 }, () => Buffer.alloc(blocks * B));
  for (let b = 0; b < blocks; b++) {
    // Encode each write's stripe for this block and give each chunk its own write's bytes.
    const byWrite = new Map<number, Buffer>();
    for (const w of new Set(writes.map((row) => row[b] as number))) {
      const shards = Buffer.alloc(4 * B);
      shards.fill(w, 0, B);
      shards.fill(w * 3 + 1, B, 2 * B);
      encodeParity(shards, 2, 2);
      byWrite.set(w, shards);
    }
    writes.forEach((row, j) => {
      (byWrite.get(row[b] as number) as Buffer).copy(chunks[j] as Buffer, b * B, j * B, (j + 1) * B);
    });
  }
  return chunks.map((data, j) => ({ data, stamps: (writes[j] as number[]).map((w) => w * 100) }));
}

describe('rebuildSlice', () => {
  const B = 8;
  const shape = { k: 2, m: 2, target: 0, length: 3 * B, blockBytes: B };

  it('rebuilds each block from chunks of one write, reading more where the first k disagree', async () => {
    // Block 0: all w1. Block 1: w2 reached chunks 1 and 3 only. Block 2: all w3.
    const chunks = stripes(3, B, [
      [1, 1, 3],
      [1, 2, 3],
      [1, 1, 3],
      [1, 2, 3],
    ]);
    const reads: number[] = [];
    const out = await rebuildSlice(
      [1, 2, 3].map((position) => ({ position, current: true })),
      async (s) => {
        reads.push(s.position);
        return chunks[s.position] as StampedSlice;
      },
      shape,
    );
    expect(reads).toEqual([1, 2, 3]);
    expect(out.stamps).toEqual([100, 200, 300]);
    // Block 1 is w2's data chunk 0 (bytes of value 2), never a mix.
    expect(out.data.subarray(0, B).every((x) => x === 1)).toBe(true);
    expect(out.data.subarray(B, 2 * B).every((x) => x === 2)).toBe(true);
    expect(out.data.subarray(2 * B).every((x) => x === 3)).toBe(true);
  });

  it('fails with IO_DEGRADED where no k chunks of one write can be read for a block', async () => {
    const chunks = stripes(1, B, [[1], [2], [1], [3]]);
    const err = await rebuildSlice(
      [1, 2, 3].map((position) => ({ position, current: true })),
      async (s) => chunks[s.position] as StampedSlice,
      { ...shape, length: B },
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StripeError);
    expect((err as StripeError).code).toBe('IO_DEGRADED');
  });
});

describe('mergePlan', () => {
  it('writes every block but those the target took a newer write of', () => {
    // The target took a client write (stamp 9) in block 1 since its PG moved; blocks 3-4 are holes.
    expect(mergePlan([5, 5, 5, 5, 5], [5, 9, 3, 0])).toEqual([
      { first: 0, end: 1 },
      { first: 2, end: 5 },
    ]);
    expect(mergePlan([5, 5], [])).toEqual([{ first: 0, end: 2 }]);
    expect(mergePlan([0, 0], [0, 7])).toEqual([{ first: 0, end: 1 }]);
  });
});

describe('a source listing for a recovery task', () => {
  it("gives each ec group once, from the chunk at the source's own position", () => {
    // The source holds chunk 3 of group 6.0 and, left from an earlier placement, its chunk 0.
    const objects = [
      { objectId: '6.0.c0', size: 65_536, version: 100 },
      { objectId: '6.0.c3', size: 65_536, version: 200 },
      { objectId: '7.0.c3', size: 65_536, version: 300 },
      { objectId: '8.0.c1', size: 65_536, version: 400 },
    ];
    // Before, group 6.0 was listed twice, once with chunk 0's version: that copy failed on every retry.
    expect(listedFor(true, 3, objects, [])).toEqual([
      { objectId: '6.0', size: 65_536, version: 200 },
      { objectId: '7.0', size: 65_536, version: 300 },
    ]);
    expect(listedFor(true, 3, objects, ['7.0.c3'])).toEqual([
      { objectId: '7.0', size: 65_536, version: 300 },
    ]);
    const replicated = [{ objectId: '6.0', size: 10, version: 1 }];
    expect(listedFor(false, 1, replicated, [])).toEqual(replicated);
  });
});
