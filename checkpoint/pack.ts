// The packer: lays a save's parts end to end in one data file and cuts that
// byte stream into blocks of whole stripe units (ec: whole stripes) aligned to
// the file, so every request the uploader sends is a whole unit, whatever the
// sizes of the parts: small parts share a unit instead of each ending in a
// partial one. Bytes are copied into staging blocks, except that a
// synchronous save lends whole aligned units of a caller's buffer as they are,
// up to lendBytesMax at once (so the uploader's requests carry write runs).
import { chunksOf, type PartSource } from './parts.js';
import type { Stage } from './stage.js';

/** Where a part starts; `bytes` is known once the part is packed. */
export interface PackedPart {
  name: string;
  offset: number;
  bytes: number;
}

export interface PackOptions {
  blockBytes: number;
  /** A lent view holds this many bytes at most (a multiple of blockBytes; default blockBytes). */
  lendBytesMax?: number;
  /** Whole units of a caller's buffer go as views (the caller keeps them unchanged until durable). */
  lend: boolean;
  /** Told each time bytes are staged (the running total). */
  onStaged?: (stagedBytes: number) => void;
}

/**
 * Packs `entries` into `stage`. `parts` is filled as it goes (a part is listed before any of its
 * bytes are staged, so the uploader can attribute every byte it sends); returns the total bytes.
 */
export async function pack(
  entries: readonly [string, PartSource][],
  stage: Stage,
  parts: PackedPart[],
  options: PackOptions,
): Promise<number> {
  const { blockBytes } = options;
  const lendBytesMax = options.lendBytesMax ?? blockBytes;
  let offset = 0;
  let block: Buffer | undefined;
  let fill = 0;
  const handOver = async (): Promise<void> => {
    if (!block || fill === 0) return;
    const owned = block;
    const data = owned.subarray(0, fill);
    block = undefined;
    fill = 0;
    await stage.put({ offset: offset - data.length, data, owned });
    options.onStaged?.(offset);
  };
  try {
    for (const [name, source] of entries) {
      const part: PackedPart = { name, offset, bytes: 0 };
      parts.push(part);
      const lendable = options.lend && source instanceof Uint8Array;
      for await (const chunk of chunksOf(name, source)) {
        let at = 0;
        while (at < chunk.length) {
          // With nothing buffered the file offset is unit aligned: a whole unit can go as it is.
          if (lendable && fill === 0 && chunk.length - at >= blockBytes) {
            const lent = Math.min(lendBytesMax, Math.floor((chunk.length - at) / blockBytes) * blockBytes);
            await stage.put({ offset, data: chunk.subarray(at, at + lent) });
            at += lent;
            offset += lent;
            options.onStaged?.(offset);
            continue;
          }
          block ??= await stage.emptyBlock(blockBytes);
          const n = Math.min(chunk.length - at, blockBytes - fill);
          chunk.copy(block, fill, at, at + n);
          fill += n;
          at += n;
          offset += n;
          if (fill === blockBytes) await handOver();
        }
      }
      part.bytes = offset - part.offset;
    }
    await handOver();
  } catch (err) {
    if (block) stage.discard(block);
    throw err;
  }
  return offset;
}
