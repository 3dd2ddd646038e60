// The uploader: sends a save's staged blocks in file order through one file
// handle, lending each block (no copy) and giving it back to the stage once
// every copy acknowledged it. The handle's write-behind bound keeps at most
// inFlightBytesMax of whole blocks in flight. crc32c of every part is computed here,
// over the bytes actually sent, while earlier blocks are on the wire.

import type { StripeFileHandle } from '../client/index.js';
import { crc32c } from '../common/checksum.js';
import type { PackedPart } from './pack.js';
import type { Stage } from './stage.js';

/** crc32c of each part, fed the data file's blocks in order. */
export class PartCrcs {
  readonly crcs: number[] = [];
  private cursor = 0;

  constructor(private readonly parts: readonly PackedPart[]) {}

  add(offset: number, data: Uint8Array): void {
    const end = offset + data.length;
    while (this.cursor < this.parts.length) {
      const part = this.parts[this.cursor] as PackedPart;
      // A part runs to where the next starts; the last one listed so far runs past this block.
      const partEnd = this.parts[this.cursor + 1]?.offset ?? Number.POSITIVE_INFINITY;
      const from = Math.max(offset, part.offset);
      const to = Math.min(end, partEnd);
      if (to > from)
        this.crcs[this.cursor] = crc32c(
          data.subarray(from - offset, to - offset),
          this.crcs[this.cursor] ?? 0,
        );
      if (partEnd > end) break;
      this.cursor++;
    }
  }

  crcOf(index: number): number {
    return this.crcs[index] ?? 0;
  }
}

export interface UploadCounters {
  uploadedBytes: number;
  inFlightBlocks: number;
  inFlightBlocksPeak: number;
}

/** Sends every block of `stage`, then closes the handle (fsync on every OST, size committed at the MDS). */
export async function upload(
  stage: Stage,
  handle: StripeFileHandle,
  crcs: PartCrcs,
  counters: UploadCounters,
  onUploaded?: (uploadedBytes: number) => void,
): Promise<void> {
  // Releases still pending (they never reject: a failed send surfaces at the next write or close).
  const pending = new Set<Promise<void>>();
  for (;;) {
    const block = await stage.next();
    if (!block) break;
    crcs.add(block.offset, block.data);
    let lent: { released: Promise<void> };
    try {
      lent = await handle.writeLent(block.data, block.offset);
    } catch (err) {
      stage.release(block);
      throw err;
    }
    counters.inFlightBlocks++;
    counters.inFlightBlocksPeak = Math.max(counters.inFlightBlocksPeak, counters.inFlightBlocks);
    const released: Promise<void> = lent.released.then(() => {
      pending.delete(released);
      counters.inFlightBlocks--;
      counters.uploadedBytes += block.data.length;
      stage.release(block);
      onUploaded?.(counters.uploadedBytes);
    });
    pending.add(released);
  }
  await handle.close();
  await Promise.all(pending);
}
