// The queue between a save's packer (which fills blocks from the caller's
// parts) and its uploader (which sends them): blocks of the data file, in
// file order. MemoryStage keeps them in client memory (a copy, or for a
// synchronous save a view of the caller's buffer); DiskStage (disk-stage.ts)
// keeps them in files on the client's local disk.
import type { StagingMemory } from './staging-memory.js';

/** Bytes [offset, offset + data.length) of the data file. */
export interface StagedBlock {
  offset: number;
  data: Buffer;
  /** The staging block `data` lies in, given back once sent; none for a view of the caller's buffer. */
  owned?: Buffer;
}

export interface Stage {
  /** An empty block for the packer to fill (waits for budget). */
  emptyBlock(blockBytes: number): Promise<Buffer>;
  /** The packer hands a filled block (or a view of the caller's buffer) over. */
  put(block: StagedBlock): Promise<void>;
  /** The packer is done: every byte is staged. */
  end(): Promise<void>;
  /** The uploader's next block in file order, or undefined once all are taken. */
  next(): Promise<StagedBlock | undefined>;
  /** The uploader is done with a block (every copy answered). */
  release(block: StagedBlock): void;
  /** The packer gives back an empty block it will not fill (it failed). */
  discard(owned: Buffer): void;
  /** Stops both sides: waiting calls fail with `err`; memory and files are let go. */
  abort(err: unknown): Promise<void>;
  /** After the last release: lets go of what the stage still holds (its local folder). */
  dispose(): Promise<void>;
  /** Bytes held now and at most (memory or local disk). */
  readonly heldBytes: number;
  readonly peakBytes: number;
}

export class MemoryStage implements Stage {
  private readonly queue: StagedBlock[] = [];
  private wake: (() => void) | undefined;
  private ended = false;
  private failure: { err: unknown } | undefined;

  constructor(private readonly memory: StagingMemory) {}

  emptyBlock(blockBytes: number): Promise<Buffer> {
    this.throwIfFailed();
    return this.memory.take(blockBytes);
  }

  async put(block: StagedBlock): Promise<void> {
    this.throwIfFailed();
    this.queue.push(block);
    this.wakeUploader();
  }

  async end(): Promise<void> {
    this.ended = true;
    this.wakeUploader();
  }

  async next(): Promise<StagedBlock | undefined> {
    for (;;) {
      this.throwIfFailed();
      const block = this.queue.shift();
      if (block || this.ended) return block;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  release(block: StagedBlock): void {
    if (block.owned) this.memory.give(block.owned);
  }

  discard(owned: Buffer): void {
    this.memory.give(owned);
  }

  async abort(err: unknown): Promise<void> {
    this.failure ??= { err };
    for (const block of this.queue.splice(0)) this.release(block);
    this.wakeUploader();
  }

  async dispose(): Promise<void> {}

  get heldBytes(): number {
    return this.memory.bytes;
  }

  get peakBytes(): number {
    return this.memory.peakBytes;
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
