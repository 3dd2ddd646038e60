// Recovery's ec slices, block by block by their stamps (common/block-stamps.ts):
// a slice of the target's chunk rebuilt from k other chunks that hold one
// write per block (consistentInputs: the newest group with k members, one of
// them placed), and the plan of which blocks of a slice to write into a
// target that took client writes since its PG moved (mergePlan). Pure but for
// the reads `rebuildSlice` is handed.
import { type BlockStamps, consistentInputs, type StampedInput } from '../../common/block-stamps.js';
import { reconstructAll } from '../../common/erasure.js';
import { StripeError } from '../../common/errors.js';

/** A slice as read or rebuilt: its bytes and the stamp of every block of it. */
export interface StampedSlice {
  data: Buffer;
  stamps: BlockStamps;
}

/** One chunk a rebuild may read: its ec position and whether it is a placed member. */
export interface SliceSource {
  position: number;
  current: boolean;
}

/** The blocks of a slice of `length` bytes at `blockBytes` (its offset is a block boundary). */
export function blocksOf(length: number, blockBytes: number): number {
  return Math.ceil(length / blockBytes);
}

/**
 * The chunk at `target` of [offset, offset + length), rebuilt from the others block by block:
 * each block from k chunks whose stamps for it agree (consistentInputs). Reads `sources` k at a
 * time, best first, more only while some block has no such k; fails with IO_DEGRADED when the
 * chunks that could be read hold no k of one write for some block (a write in flight: the task
 * runs again later).
 */
export async function rebuildSlice(
  sources: readonly SliceSource[],
  read: (source: SliceSource) => Promise<StampedSlice>,
  shape: { k: number; m: number; target: number; length: number; blockBytes: number },
): Promise<StampedSlice> {
  const { k, m, target, length, blockBytes } = shape;
  const blocks = blocksOf(length, blockBytes);
  const got = new Map<number, StampedSlice & { current: boolean }>();
  let next = 0;
  let lastError: unknown;
  let chosen: (number[] | undefined)[] = [];
  while (next < sources.length) {
    const batch = sources.slice(next, next + Math.max(1, k - got.size));
    next += batch.length;
    const reads = await Promise.allSettled(batch.map((s) => read(s)));
    reads.forEach((r, i) => {
      const source = batch[i] as SliceSource;
      if (r.status === 'fulfilled') got.set(source.position, { ...r.value, current: source.current });
      else lastError = r.reason;
    });
    if (got.size < k) continue;
    chosen = Array.from({ length: blocks }, (_, b) =>
      consistentInputs(
        [...got].map(
          ([position, s]): StampedInput => ({
            position,
            stamps: [s.stamps[b] ?? 0],
            current: s.current,
          }),
        ),
        k,
      ),
    );
    if (chosen.every((c) => c !== undefined)) break;
  }
  const missing = chosen.length === 0 ? 0 : chosen.indexOf(undefined);
  if (got.size < k || missing >= 0)
    throw new StripeError(
      'IO_DEGRADED',
      got.size < k
        ? `only ${got.size} of the ${k} chunks needed could be read (${(lastError as Error)?.message ?? 'no source'})`
        : `block ${missing} of the slice: no ${k} chunks of one write among ${got.size} read (a write in flight)`,
    );
  return decodeBlocks(got, chosen as number[][], { k, m, target, length, blockBytes });
}

/** Decodes each block of the target's slice from the positions chosen for it. */
function decodeBlocks(
  got: ReadonlyMap<number, StampedSlice>,
  chosen: readonly number[][],
  shape: { k: number; m: number; target: number; length: number; blockBytes: number },
): StampedSlice {
  const { k, m, target, length, blockBytes } = shape;
  const out = Buffer.alloc(length);
  const stamps: number[] = [];
  for (const [b, positions] of chosen.entries()) {
    const from = b * blockBytes;
    const len = Math.min(blockBytes, length - from);
    const shards = Buffer.alloc((k + m) * len);
    const present = new Array<boolean>(k + m).fill(false);
    for (const p of positions) {
      (got.get(p) as StampedSlice).data.copy(shards, p * len, from, from + len);
      present[p] = true;
    }
    reconstructAll(shards, k, m, present);
    shards.copy(out, from, target * len, (target + 1) * len);
    stamps.push((got.get(positions[0] as number) as StampedSlice).stamps[b] ?? 0);
  }
  return { data: out, stamps };
}

/** A run of blocks of a slice to write into the target: [first, end) with the stamps they take. */
export interface MergeRun {
  first: number;
  end: number;
}

/**
 * Which blocks of a slice a merge writes: all but those the target holds a newer write of (a larger
 * stamp): a client write it took since its PG moved, which stays. A block it does not hold (stamp
 * 0: a hole, past its end, or bytes written before stamps), holds an older write of, or the same
 * write (rewritten: a repair's copy may be rotten) is written. ec chunk writes cover whole blocks
 * (a stripe unit is a whole number of them), so a block the target keeps is whole.
 */
export function mergePlan(source: BlockStamps, held: BlockStamps): MergeRun[] {
  const runs: MergeRun[] = [];
  for (let b = 0; b < source.length; b++) {
    const take = (held[b] ?? 0) <= (source[b] ?? 0);
    if (!take) continue;
    const last = runs[runs.length - 1];
    if (last && last.end === b) last.end = b + 1;
    else runs.push({ first: b, end: b + 1 });
  }
  return runs;
}
