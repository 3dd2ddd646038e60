// Readahead asks for many cache blocks at once (half a window, up to 32 MiB).
// Blocks that lie back to back in the same object (consecutive stripe units
// of one object are contiguous in it: blocks b, b + width, b + 2 * width of a
// 1 MiB-stripe file) are fetched in one request of up to `runBytesMax`:
// fewer requests for both ends to handle, and the OSS reads the next span
// from its disk while it sends the last. Pure: the IO is file-reader.ts's.
import type { StripedLayout as Layout } from './layout.js';
import { locateByte } from './striping.js';

export interface PrefetchRun {
  objectIndex: number;
  objectOffset: number;
  /** File blocks in object order, each `lengths[i]` bytes, back to back in the object. */
  blocks: number[];
  lengths: number[];
}

/**
 * Groups `blocks` (block numbers, any order) into runs. A run only grows by
 * whole blocks that follow the previous one in the object, up to
 * `runBytesMax`; `segmentBytes` (the checksum block) must divide both the
 * block size and each run's start, so every segment of the answer falls in
 * one block: otherwise every block is a run of its own.
 */
export function planPrefetchRuns(
  layout: Layout,
  blockBytes: number,
  blocks: readonly number[],
  lengthOf: (block: number) => number,
  runBytesMax: number,
  segmentBytes: number,
): PrefetchRun[] {
  const located = blocks.map((block) => {
    const where = locateByte(layout, block * blockBytes);
    return {
      block,
      objectIndex: where.objectIndex,
      objectOffset: where.objectOffset,
      length: lengthOf(block),
    };
  });
  const single = (b: (typeof located)[number]): PrefetchRun => ({
    objectIndex: b.objectIndex,
    objectOffset: b.objectOffset,
    blocks: [b.block],
    lengths: [b.length],
  });
  // The reader wants the nearest blocks first.
  const nearestFirst = (runs: PrefetchRun[]): PrefetchRun[] =>
    runs.sort((a, b) => (a.blocks[0] as number) - (b.blocks[0] as number));
  if (blockBytes % segmentBytes !== 0 || runBytesMax < 2 * blockBytes)
    return nearestFirst(located.map(single));
  located.sort((a, b) => a.objectIndex - b.objectIndex || a.objectOffset - b.objectOffset);
  const runs: PrefetchRun[] = [];
  let run: PrefetchRun | undefined;
  let runBytes = 0;
  for (const b of located) {
    const follows =
      run !== undefined &&
      run.objectIndex === b.objectIndex &&
      run.lengths[run.lengths.length - 1] === blockBytes &&
      run.objectOffset + runBytes === b.objectOffset &&
      runBytes + b.length <= runBytesMax;
    if (run && follows) {
      run.blocks.push(b.block);
      run.lengths.push(b.length);
      runBytes += b.length;
      continue;
    }
    if (b.objectOffset % segmentBytes !== 0) {
      runs.push(single(b));
      run = undefined;
      continue;
    }
    run = single(b);
    runBytes = b.length;
    runs.push(run);
  }
  return nearestFirst(runs);
}
