// Client memory for staged blocks under a byte budget. take() waits while the
// budget is used up (the uploader gives blocks back as copies acknowledge
// them), so a save never holds more than its budget however large it is.
// Idle blocks are kept for the next save: fresh memory is slow to touch the
// first time, and a training job saves the same sizes again and again.

export class IdleBlocks {
  private readonly bySize = new Map<number, Buffer[]>();
  private idleBytes = 0;

  constructor(private readonly idleBytesMax: number) {}

  take(blockBytes: number): Buffer | undefined {
    const block = this.bySize.get(blockBytes)?.pop();
    if (block) this.idleBytes -= block.length;
    return block;
  }

  give(block: Buffer): void {
    if (this.idleBytes + block.length > this.idleBytesMax) return;
    const list = this.bySize.get(block.length) ?? [];
    list.push(block);
    this.bySize.set(block.length, list);
    this.idleBytes += block.length;
  }

  clear(): void {
    this.bySize.clear();
    this.idleBytes = 0;
  }

  get bytes(): number {
    return this.idleBytes;
  }
}

export class StagingMemory {
  private heldBytes = 0;
  private readonly waiters: (() => void)[] = [];
  /** Most bytes held at once: what a test or the bench checks against the budget. */
  peakBytes = 0;

  constructor(
    readonly bytesMax: number,
    private readonly idle: IdleBlocks,
  ) {}

  /** A block of `blockBytes` (contents undefined) once the budget has room for it. */
  async take(blockBytes: number): Promise<Buffer> {
    if (blockBytes > this.bytesMax)
      throw new Error(`a ${blockBytes}-byte block cannot fit a ${this.bytesMax}-byte staging budget`);
    while (this.heldBytes + blockBytes > this.bytesMax) await new Promise<void>((r) => this.waiters.push(r));
    this.heldBytes += blockBytes;
    this.peakBytes = Math.max(this.peakBytes, this.heldBytes);
    return this.idle.take(blockBytes) ?? Buffer.allocUnsafeSlow(blockBytes);
  }

  give(block: Buffer): void {
    this.heldBytes -= block.length;
    if (this.heldBytes < 0) throw new Error('staging memory given back more than taken');
    this.idle.give(block);
    // Every waiter checks again: blocks of different sizes may share one budget.
    for (const wake of this.waiters.splice(0)) wake();
  }

  get bytes(): number {
    return this.heldBytes;
  }
}
