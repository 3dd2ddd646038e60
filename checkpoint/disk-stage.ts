// Staging on the client's local disk (the multi-tier path): the packer writes
// the data file's blocks into segment files under a bounded local folder at
// local-disk speed, the uploader reads them back and sends them, and a segment
// is deleted as soon as every block of it is acknowledged, so the folder holds
// at most stagingDiskBytesMax of staged, not yet uploaded bytes. Nothing is
// fsynced locally: a client that dies loses its staged save, which was never
// visible in the cluster, and gc removes the folder's remains.
import { randomBytes } from 'node:crypto';
import { type FileHandle, mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { StripeError } from '../common/errors.js';
import type { Stage, StagedBlock } from './stage.js';
import type { StagingMemory } from './staging-memory.js';

/** Bytes of the local staging folder in use, shared by every save of one Checkpoints. */
export class DiskBudget {
  private usedBytes = 0;
  private readonly waiters: (() => void)[] = [];
  peakBytes = 0;

  constructor(readonly bytesMax: number) {}

  async reserve(bytes: number, failed: () => void): Promise<void> {
    while (this.usedBytes + bytes > this.bytesMax) {
      await new Promise<void>((r) => this.waiters.push(r));
      failed();
    }
    this.usedBytes += bytes;
    this.peakBytes = Math.max(this.peakBytes, this.usedBytes);
  }

  free(bytes: number): void {
    this.usedBytes -= bytes;
    for (const wake of this.waiters.splice(0)) wake();
  }

  get bytes(): number {
    return this.usedBytes;
  }
}

interface Segment {
  file: FileHandle;
  path: string;
  stagedBytes: number;
  releasedBytes: number;
  sealed: boolean;
}

function stagingFull(err: unknown, folder: string): unknown {
  if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') return err;
  return new StripeError(
    'CKPT_STAGING_FULL',
    `the local staging folder ${folder} is full: free space there or stage in memory`,
    {
      folder,
    },
  );
}

export class DiskStage implements Stage {
  readonly folder: string;
  private readonly segments = new Map<number, Segment>();
  private stagedEnd = 0;
  private takenEnd = 0;
  private ended = false;
  private failure: { err: unknown } | undefined;
  private wake: (() => void) | undefined;
  private readonly segmentBytes: number;

  constructor(
    root: string,
    private readonly memory: StagingMemory,
    private readonly disk: DiskBudget,
    private readonly blockBytes: number,
    segmentBytes: number,
  ) {
    this.folder = join(root, `${Date.now()}.${randomBytes(6).toString('hex')}`);
    // Whole blocks per segment, and at least four segments in the budget, so the packer
    // waiting for room always has finished segments ahead of it that uploads will free.
    const quarter = Math.floor(disk.bytesMax / 4);
    this.segmentBytes = Math.max(
      blockBytes,
      Math.floor(Math.min(segmentBytes, quarter) / blockBytes) * blockBytes,
    );
  }

  async start(): Promise<void> {
    await mkdir(this.folder, { recursive: true });
  }

  emptyBlock(blockBytes: number): Promise<Buffer> {
    this.throwIfFailed();
    return this.memory.take(blockBytes);
  }

  async put(block: StagedBlock): Promise<void> {
    this.throwIfFailed();
    const length = block.data.length;
    await this.disk.reserve(length, () => this.throwIfFailed());
    try {
      const segment = await this.segmentFor(block.offset);
      const at = block.offset % this.segmentBytes;
      await segment.file.write(block.data, 0, length, at);
      segment.stagedBytes += length;
      if (at + length === this.segmentBytes) segment.sealed = true;
    } catch (err) {
      this.disk.free(length);
      throw stagingFull(err, this.folder);
    } finally {
      if (block.owned) this.memory.give(block.owned);
    }
    this.stagedEnd = block.offset + length;
    this.wakeUploader();
  }

  async end(): Promise<void> {
    for (const segment of this.segments.values()) segment.sealed = true;
    this.ended = true;
    this.wakeUploader();
  }

  async next(): Promise<StagedBlock | undefined> {
    for (;;) {
      this.throwIfFailed();
      if (this.takenEnd < this.stagedEnd) break;
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    const offset = this.takenEnd;
    const length = Math.min(this.blockBytes, this.stagedEnd - offset);
    this.takenEnd += length;
    const owned = await this.memory.take(this.blockBytes);
    const segment = this.segments.get(Math.floor(offset / this.segmentBytes)) as Segment;
    const { bytesRead } = await segment.file.read(owned, 0, length, offset % this.segmentBytes);
    if (bytesRead !== length)
      throw new Error(`staged segment ${segment.path}: read ${bytesRead} of ${length} bytes`);
    return { offset, data: owned.subarray(0, length), owned };
  }

  release(block: StagedBlock): void {
    if (block.owned) this.memory.give(block.owned);
    const index = Math.floor(block.offset / this.segmentBytes);
    const segment = this.segments.get(index);
    if (!segment) return;
    segment.releasedBytes += block.data.length;
    if (segment.sealed && segment.releasedBytes === segment.stagedBytes) {
      this.segments.delete(index);
      void this.drop(segment);
    }
  }

  discard(owned: Buffer): void {
    this.memory.give(owned);
  }

  async abort(err: unknown): Promise<void> {
    this.failure ??= { err };
    this.wakeUploader();
    await this.dispose();
  }

  async dispose(): Promise<void> {
    const left = [...this.segments.values()];
    this.segments.clear();
    await Promise.all(left.map((s) => this.drop(s)));
    await rm(this.folder, { recursive: true, force: true });
  }

  get heldBytes(): number {
    return this.disk.bytes;
  }

  get peakBytes(): number {
    return this.disk.peakBytes;
  }

  private async drop(segment: Segment): Promise<void> {
    // The segment is deleted next: a close that fails loses nothing.
    await segment.file.close().catch(() => {});
    await rm(segment.path, { force: true });
    this.disk.free(segment.stagedBytes);
  }

  private async segmentFor(offset: number): Promise<Segment> {
    const index = Math.floor(offset / this.segmentBytes);
    let segment = this.segments.get(index);
    if (!segment) {
      const path = join(this.folder, `segment-${String(index).padStart(6, '0')}`);
      segment = { file: await open(path, 'w+'), path, stagedBytes: 0, releasedBytes: 0, sealed: false };
      this.segments.set(index, segment);
    }
    return segment;
  }

  private wakeUploader(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private throwIfFailed(): void {
    if (this.failure) throw this.failure.err;
  }
}
