// Write runs: the stripe units of one object that lie back to back in it go
// to its OSSs as one request of up to writeRequestBytesMax, each unit still in
// its own buffer (a vectored request, nothing copied together). A file striped
// in 1 MiB units over 6 objects has consecutive units of an object 6 MiB
// apart in the file but next to each other in the object. Pure: the IO is
// client/file-writer.ts's.
import type { Extent } from './striping.js';

export interface WriteRun {
  objectIndex: number;
  objectOffset: number;
  /** The extents it carries, back to back in the object, in file order. */
  extents: Extent[];
  bytes: number;
}

/**
 * Groups `extents` (in file order) into runs: an extent joins the open run of its object when it
 * follows that run in the object and the run stays within `bytesMax`; otherwise it opens a new one.
 * Runs come in the order of their first extent.
 */
export function planWriteRuns(extents: readonly Extent[], bytesMax: number): WriteRun[] {
  const open = new Map<number, WriteRun>();
  const runs: WriteRun[] = [];
  for (const e of extents) {
    const run = open.get(e.objectIndex);
    if (run && run.objectOffset + run.bytes === e.objectOffset && run.bytes + e.length <= bytesMax) {
      run.extents.push(e);
      run.bytes += e.length;
      continue;
    }
    const fresh: WriteRun = {
      objectIndex: e.objectIndex,
      objectOffset: e.objectOffset,
      extents: [e],
      bytes: e.length,
    };
    open.set(e.objectIndex, fresh);
    runs.push(fresh);
  }
  return runs;
}
