// getMany's read plan, pure: the samples asked for (any order, duplicates
// allowed) become ranges of their shards, sorted by offset, neighbours merged
// when the gap between them is small and the merged range stays bounded.
// Each range remembers which samples it serves and where they lie in it.
import type { SampleEntry } from './format.js';

export interface PlannedRange {
  shard: number;
  offsetBytes: number;
  lengthBytes: number;
  /** Samples inside the range, each with its place in the range's bytes. */
  members: { sample: number; atBytes: number; lengthBytes: number }[];
}

export interface RangePlanOptions {
  /** Samples closer than this are read in one range; the bytes between them are read and dropped. */
  gapBytesMax: number;
  /** A range stops growing at this size (one larger sample is still one range). */
  rangeBytesMax: number;
}

/** The ranges that read every sample of `wanted` (indices into `samples`) once. */
export function planRanges(
  samples: readonly SampleEntry[],
  wanted: Iterable<number>,
  options: RangePlanOptions,
): PlannedRange[] {
  const unique = [...new Set(wanted)];
  unique.sort((a, b) => {
    const sa = samples[a] as SampleEntry;
    const sb = samples[b] as SampleEntry;
    return sa.shard - sb.shard || sa.offsetBytes - sb.offsetBytes || a - b;
  });
  const ranges: PlannedRange[] = [];
  let current: PlannedRange | undefined;
  for (const i of unique) {
    const s = samples[i] as SampleEntry;
    const end = s.offsetBytes + s.lengthBytes;
    if (current && mayJoin(current, s, end, options)) {
      current.lengthBytes = Math.max(current.lengthBytes, end - current.offsetBytes);
    } else {
      current = { shard: s.shard, offsetBytes: s.offsetBytes, lengthBytes: s.lengthBytes, members: [] };
      ranges.push(current);
    }
    current.members.push({
      sample: i,
      atBytes: s.offsetBytes - current.offsetBytes,
      lengthBytes: s.lengthBytes,
    });
  }
  return ranges;
}

function mayJoin(range: PlannedRange, s: SampleEntry, end: number, options: RangePlanOptions): boolean {
  if (range.shard !== s.shard) return false;
  const rangeEnd = range.offsetBytes + range.lengthBytes;
  if (s.offsetBytes - rangeEnd > options.gapBytesMax) return false;
  return Math.max(end, rangeEnd) - range.offsetBytes <= options.rangeBytesMax;
}
