// put and get of regular files at the library's rate: a few reused buffers,
// local reads lent to the file handle as they are (writeLent: whole units or
// stripes, no copy), remote reads straight into the buffers (large reads, the
// handle reading nothing ahead) written to the local file at their position
// while the next ones run; folders several files at a time. Pipes (stdin,
// stdout) go through the library's streams instead.
import { open } from 'node:fs/promises';
import type { StripeClient } from '../client/index.js';
import { Semaphore } from '../common/semaphore.js';
import { dataWidth, type Layout, type StripedLayout } from '../layout/index.js';
import type { Progress } from './progress.js';

const MiB = 1024 * 1024;

export const TRANSFER_LIMITS = {
  /** put: pieces of whole stripe rows of at least this many bytes; get: each object gives this much. */
  pieceBytesMin: 4 * MiB,
  /**
   * Buffers one file's copy keeps in use (put: writes not yet acknowledged; get: reads, half of
   * them at once, and writes), alone and in a folder.
   */
  putBuffers: 8,
  getBuffers: 4,
  buffersPerFolderFile: 2,
  /** Files of a folder copied at once. */
  filesInFlight: 8,
} as const;

/** Buffers of one size handed out at most `count` at a time; take() waits for one to come back. */
class BufferRing {
  private readonly free: Buffer[] = [];
  private made = 0;
  private readonly waiters: ((buffer: Buffer) => void)[] = [];
  private onDrained: (() => void) | undefined;

  constructor(
    private readonly bytes: number,
    private readonly count: number,
  ) {}

  take(): Promise<Buffer> {
    const ready = this.free.pop();
    if (ready) return Promise.resolve(ready);
    if (this.made < this.count) {
      this.made++;
      return Promise.resolve(Buffer.allocUnsafe(this.bytes));
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  give(buffer: Buffer): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter(buffer);
      return;
    }
    this.free.push(buffer);
    if (this.free.length === this.made) this.onDrained?.();
  }

  /** Resolves once every buffer handed out is back (nothing reads or writes them any more). */
  drained(): Promise<void> {
    if (this.free.length === this.made) return Promise.resolve();
    return new Promise((resolve) => {
      this.onDrained = resolve;
    });
  }
}

/**
 * A copy's piece: whole rows of stripe units (ec: whole stripes) of at least pieceBytesMin, so every
 * lent write is whole units; for get, rows of runs: every object gives at least pieceBytesMin.
 */
export function piecesOf(layout: StripedLayout, runs = false): number {
  const row = dataWidth(layout) * layout.stripeSize;
  const rows = Math.max(1, Math.ceil(TRANSFER_LIMITS.pieceBytesMin / (runs ? layout.stripeSize : row)));
  return row * rows;
}

/**
 * Copies the regular file `local` into `remote` (created, or truncated): each piece read from the
 * local file is lent to the handle as it is and its buffer reused once every copy acknowledged it.
 * Returns the bytes copied; on failure the handle is closed and the error thrown.
 */
export async function putLocalFile(
  client: StripeClient,
  local: string,
  remote: string,
  options: { layout: Layout | undefined; progress: Progress; buffers: number },
): Promise<number> {
  const source = await open(local, 'r');
  try {
    const handle = await client.open(remote, 'w', options.layout ? { layout: options.layout } : {});
    const ring = new BufferRing(piecesOf(handle.fileLayout.layout), options.buffers);
    let position = 0;
    try {
      for (;;) {
        const buffer = await ring.take();
        const { bytesRead } = await source.read(buffer, 0, buffer.length, position);
        if (bytesRead === 0) {
          ring.give(buffer);
          break;
        }
        const { released } = await handle.writeLent(buffer.subarray(0, bytesRead), position);
        void released.then(() => ring.give(buffer));
        position += bytesRead;
        options.progress.add(bytesRead);
      }
      await handle.close();
    } catch (err) {
      // The copy's own failure is what the caller hears; closing only ends the handle.
      await handle.close().catch(() => undefined);
      throw err;
    } finally {
      await ring.drained();
    }
    return position;
  } finally {
    await source.close();
  }
}

/**
 * Copies `remote` into the local file `local` (created, or truncated): pieces of whole rows of
 * runs (every object of the stripe width gives at least 4 MiB back to back, one request each),
 * half the buffers' worth read at once straight into them (the handle reads nothing ahead), each
 * written at its position as soon as it arrived. Returns the bytes copied.
 */
export async function getRemoteFile(
  client: StripeClient,
  remote: string,
  local: string,
  options: { progress: Progress; buffers: number },
): Promise<number> {
  const handle = await client.open(remote, 'r', { readahead: false });
  try {
    const target = await open(local, 'w');
    const ring = new BufferRing(piecesOf(handle.fileLayout.layout, true), options.buffers);
    const reads = new Semaphore(Math.max(1, Math.floor(options.buffers / 2)));
    let failure: unknown;
    let copied = 0;
    const copyPiece = async (buffer: Buffer, at: number, length: number): Promise<void> => {
      const { bytesRead } = await reads.run(() => handle.read(buffer, 0, length, at));
      await target.write(buffer, 0, bytesRead, at);
      copied += bytesRead;
      options.progress.add(bytesRead);
    };
    try {
      for (let at = 0; at < handle.size && failure === undefined; ) {
        const buffer = await ring.take();
        const length = Math.min(buffer.length, handle.size - at);
        copyPiece(buffer, at, length).then(
          () => ring.give(buffer),
          (err: unknown) => {
            failure ??= err;
            ring.give(buffer);
          },
        );
        at += length;
      }
      await ring.drained();
      if (failure !== undefined) throw failure;
    } finally {
      await target.close();
    }
    return copied;
  } finally {
    await handle.close();
  }
}

/** Runs `copy` on every item, `TRANSFER_LIMITS.filesInFlight` at once; fails with the first failure once all settled. */
export async function copyAll<T>(items: readonly T[], copy: (item: T) => Promise<void>): Promise<void> {
  const gate = new Semaphore(TRANSFER_LIMITS.filesInFlight);
  const settled = await Promise.allSettled(items.map((item) => gate.run(() => copy(item))));
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
}
