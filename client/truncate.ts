// Truncate of a file's objects, before the MDS commits the new size: each
// object (every copy) longer than the new size needs is cut with an empty
// truncating write, so bytes past the end never come back when the file
// grows again (a grown file's new range reads as zeros: objects shorter
// than the range are sparse tails). Growing needs no object change.
//
// ec files are write-once: their chunk objects can be cut only at a stripe
// boundary (each chunk then keeps whole shards and the parity stays right).
// Growing an ec file, or cutting inside a stripe, is refused with
// LAYOUT_READ_ONLY.
import { StripeError } from '../common/errors.js';
import { Semaphore } from '../common/semaphore.js';
import type { ClientContext } from './context.js';
import type { FileLayout } from './layout.js';
import { locateEcChunks, locateObject } from './locate.js';
import type { Touched } from './object-io.js';
import { ecStripeDataBytes, objectDataBytes } from './striping.js';

const EMPTY = new Uint8Array(0);

export function checkTruncateSize(sizeBytes: number): void {
  if (!Number.isSafeInteger(sizeBytes) || sizeBytes < 0)
    throw new StripeError(
      'REQ_INVALID',
      `truncate size ${sizeBytes}: must be a whole number of bytes, 0 or more`,
    );
}

/** Whether an ec file of `oldSizeBytes` can be cut (or left) at `newSizeBytes`; throws LAYOUT_READ_ONLY if not. */
export function checkEcTruncate(fileLayout: FileLayout, oldSizeBytes: number, newSizeBytes: number): void {
  const { layout } = fileLayout;
  if (layout.pattern !== 'ec' || newSizeBytes === oldSizeBytes) return;
  const stripeBytes = ecStripeDataBytes(layout);
  if (newSizeBytes > oldSizeBytes || newSizeBytes % stripeBytes !== 0) {
    throw new StripeError(
      'LAYOUT_READ_ONLY',
      `ec files are write-once: truncate only shrinks them to a multiple of ${stripeBytes} bytes ` +
        `(k x stripe size), not from ${oldSizeBytes} to ${newSizeBytes}`,
      { sizeBytes: oldSizeBytes, newSizeBytes, stripeDataBytes: stripeBytes },
    );
  }
}

/** Bytes of a file of `sizeBytes` that its striped component holds (past the part on the MDS). */
export function stripedBytesOf(fileLayout: FileLayout, sizeBytes: number): number {
  return Math.max(0, sizeBytes - (fileLayout.domBytes ?? 0));
}

/**
 * Cuts every object of the file that is longer than `newSizeBytes` needs
 * (old size: what the caller knows is written). Returns the copies written,
 * to flush (fsync) before the size is committed. The part of a file on the MDS
 * is cut by the commit of its size.
 */
export async function truncateObjects(
  ctx: ClientContext,
  inode: number,
  fileLayout: FileLayout,
  oldFileBytes: number,
  newFileBytes: number,
): Promise<Touched[]> {
  const oldSizeBytes = stripedBytesOf(fileLayout, oldFileBytes);
  const newSizeBytes = stripedBytesOf(fileLayout, newFileBytes);
  checkEcTruncate(fileLayout, oldSizeBytes, newSizeBytes);
  if (newSizeBytes >= oldSizeBytes) return [];
  const { layout } = fileLayout;
  const cuts: { at: number; locate: Parameters<ClientContext['io']['writeTarget']>[0] }[] = [];
  if (layout.pattern === 'ec') {
    const at = (newSizeBytes / ecStripeDataBytes(layout)) * layout.stripeSize;
    const width = (layout.k ?? 0) + (layout.m ?? 0);
    for (let j = 0; j < width; j++)
      cuts.push({ at, locate: (view) => locateEcChunks(view, fileLayout, inode)[j]! });
  } else {
    for (let i = 0; i < (layout.stripeCount ?? 1); i++) {
      const at = objectDataBytes(layout, newSizeBytes, i);
      if (objectDataBytes(layout, oldSizeBytes, i) > at)
        cuts.push({ at, locate: (view) => locateObject(view, fileLayout, inode, i) });
    }
  }
  const slots = new Semaphore(ctx.limits.inFlightTotalMax);
  const touched: Touched[] = [];
  // One version for the cut: an ec file's chunks are cut together.
  const stamp = ctx.io.versions.next();
  const done = await Promise.allSettled(
    cuts.map((cut) =>
      slots.run(async () => {
        touched.push(...(await ctx.io.writeTarget(cut.locate, cut.at, EMPTY, { truncate: true, stamp })));
      }),
    ),
  );
  for (const result of done) if (result.status === 'rejected') throw result.reason;
  return touched;
}
