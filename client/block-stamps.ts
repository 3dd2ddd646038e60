// The block stamps a block the client holds was read with (common/block-stamps.ts), kept beside the
// buffer: the reader's cached and in-flight blocks of an ec stripe's other data chunks count towards
// a rebuild (client/ec-rebuild.ts) only when they hold the same write as the rebuild's other inputs,
// which their stamps say. A buffer gets its stamps where it is filled (a read of one copy, a part of
// a run, a rebuild) and nowhere else: a block from elsewhere (the disk cache, a copy) has none and is
// read again instead. Buffers are never refilled under the same object (BlockPool.take hands out a
// new view each time), so a stamp never outlives the bytes it describes.
import type { BlockStamps } from '../common/block-stamps.js';

const stampsOf = new WeakMap<Buffer, BlockStamps>();

/** Records `data`'s stamps (none: leaves it unstamped); returns `data`. */
export function withStamps(data: Buffer, stamps: BlockStamps | undefined): Buffer {
  if (stamps) stampsOf.set(data, stamps);
  return data;
}

/** The stamps `data` was filled with, if it was stamped. */
export function stampsOfBlock(data: Buffer): BlockStamps | undefined {
  return stampsOf.get(data);
}
