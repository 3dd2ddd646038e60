// The bytes of a multipart upload's parts that go into their slots of the
// data file (s3/store/uploads.ts), written together. A part's 8 MiB alone
// covers 1-2 stripe units of each object (replicated:3 over 6 objects: 6
// runs, 18 requests, each made durable on its own); parts that lie next to
// each other in the file, written as one range, give each object one run per
// 4 MiB (client/write-runs.ts). So the buffers of parts whose bytes have
// arrived wait in one queue per upload while the previous batch is written;
// each batch is every queued buffer, its neighbours written as one range
// (StripeFileHandle.writeLentv) through one grow-only handle whose close makes
// them durable (one MDS open per batch, not per part). A buffer's promise
// settles once its bytes are durable, or with the batch's failure.
// raid0 and replicated only: an ec write is one request per chunk per stripe
// whatever its neighbours, and a dom file's parts are written in order.
import type { Layout, StripeClient } from '../../client/index.js';
import { DATA_NAME } from './uploads.js';

interface Queued {
  data: Uint8Array;
  position: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** What the slot writers did, for the admin stats and tests. */
export const slotWriterCounters = { batches: 0, ranges: 0, buffers: 0 };

class SlotWriter {
  private queue: Queued[] = [];
  private running = false;

  constructor(
    private readonly client: StripeClient,
    private readonly path: string,
    private readonly onIdle: () => void,
  ) {}

  write(data: Uint8Array, position: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ data, position, resolve, reject });
      if (this.running) return;
      this.running = true;
      // After this turn of the event loop: buffers queued in the same turn go in one batch.
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.sort((a, b) => a.position - b.position);
      this.queue = [];
      try {
        await this.writeBatch(batch);
        for (const q of batch) q.resolve();
      } catch (err) {
        for (const q of batch) q.reject(err);
      }
    }
    this.running = false;
    this.onIdle();
  }

  private async writeBatch(batch: Queued[]): Promise<void> {
    const ranges = rangesOf(batch);
    slotWriterCounters.batches++;
    slotWriterCounters.ranges += ranges.length;
    slotWriterCounters.buffers += batch.length;
    // Its close makes the bytes durable and commits no size: Complete grows `data` once.
    const handle = await this.client.open(this.path, 'r+', { growOnly: true, deferSize: true });
    try {
      for (const [i, range] of ranges.entries()) {
        await handle.writeLentv(
          range.map((q) => q.data),
          (range[0] as Queued).position,
          { final: i === ranges.length - 1 },
        );
      }
    } finally {
      await handle.close();
    }
  }
}

/** `batch` (sorted by position) cut where one buffer does not end where the next begins. */
function rangesOf(batch: Queued[]): Queued[][] {
  const ranges: Queued[][] = [];
  let current: Queued[] = [];
  let end = -1;
  for (const q of batch) {
    if (current.length > 0 && q.position !== end) {
      ranges.push(current);
      current = [];
    }
    current.push(q);
    end = q.position + q.data.length;
  }
  if (current.length > 0) ranges.push(current);
  return ranges;
}

const writers = new Map<string, SlotWriter>();

/** Layouts whose parts are written through a slot writer (see the top of this file). */
export function batchesSlots(layout: Layout | undefined): boolean {
  return layout !== undefined && (layout.pattern === 'raid0' || layout.pattern === 'replicated');
}

/**
 * Writes `data` into the data file of the upload in `dir` at `position`, in a batch with the other
 * buffers queued for it; settles once the bytes are durable.
 */
export function writeToSlot(
  client: StripeClient,
  dir: string,
  data: Uint8Array,
  position: number,
): Promise<void> {
  let writer = writers.get(dir);
  if (!writer) {
    const made = new SlotWriter(client, `${dir}/${DATA_NAME}`, () => {
      if (writers.get(dir) === made) writers.delete(dir);
    });
    writers.set(dir, made);
    writer = made;
  }
  return writer.write(data, position);
}
