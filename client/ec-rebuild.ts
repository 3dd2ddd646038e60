// Erasure rebuilds of a data chunk's range from k other chunks, block by
// block (`range`) or for a whole readahead run (`run`), and the ownership of
// the buffers they use. The reader's own blocks of sibling data chunks (in
// its cache or being fetched) count towards k: they are borrowed, pinned in
// the block pool while the rebuild waits for its other inputs and never
// recycled here; every other buffer (read results, zero-padded copies) is the
// rebuild's own and goes back to the pool when it is done. Which chunks are
// read, and which parity chunk a run uses, are copy rules (client/copy-rules.ts).
import { type BlockStamps, consistentInputs, largestAgreement, sameStamps } from '../common/block-stamps.js';
import { StripeError } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';
import type { BlockPool } from './block-pool.js';
import { stampsOfBlock, withStamps } from './block-stamps.js';
import type { CopyIo } from './copy-io.js';
import { type Failure, type HealthView, parityForRun, rebuildOrder } from './copy-rules.js';
import type { ClientCounters } from './counters.js';
import { rebuildChunk } from './ec.js';
import type { ObjectTarget } from './locate.js';
import type { MapView } from './map.js';

/**
 * What the file reader knows about the other data chunks of an ec stripe
 * (blocks in its cache or being fetched), so a rebuild reads only what it
 * lacks: a sequential degraded read then costs one parity read per missing
 * chunk instead of k reads.
 */
export interface EcSiblings {
  /** The same range of data chunk `chunk`, if the reader has it or is fetching it (not by a rebuild). */
  peek(chunk: number): Promise<Buffer> | Buffer | undefined;
  /** Called when this read turns into a rebuild: rebuilds never wait for each other. */
  rebuilding(): void;
}

/** The geometry of one rebuild: the stripe's chunks by position (data 0..k-1, then parity) and the lost one. */
export interface RebuildOf {
  view: MapView;
  targets: readonly ObjectTarget[];
  k: number;
  m: number;
  chunk: number;
}

/** Buffers one rebuild holds: borrowed from the reader (pinned) or its own (recycled). */
interface Held {
  borrowed: Set<Buffer>;
  own: Buffer[];
}

export interface EcRebuildDeps {
  copies: CopyIo;
  health: HealthView;
  counters: ClientCounters;
  /** Where a rebuild takes its buffers and gives back the ones only it used. */
  blocks: BlockPool;
}

/** The other data chunks' ranges the reader has or is fetching (not awaited); one that fails is simply read again. */
export async function peekSiblings(
  siblings: EcSiblings,
  k: number,
  chunk: number,
): Promise<Map<number, Promise<Buffer>>> {
  // Let a caller that is starting several block fetches at once register them all first.
  await Promise.resolve();
  const known = new Map<number, Promise<Buffer>>();
  for (let j = 0; j < k; j++) {
    if (j === chunk) continue;
    const peeked = siblings.peek(j);
    if (peeked !== undefined) known.set(j, Promise.resolve(peeked));
  }
  return known;
}

/** Checksum blocks of [offset, offset + length) at the OSS's block size (how many stamps a read of it answers with). */
function blockCount(offset: number, length: number): number {
  const B = LIMITS.checksumBlockBytes;
  return Math.floor((offset + length - 1) / B) - Math.floor(offset / B) + 1;
}

export class EcRebuild {
  constructor(private readonly deps: EcRebuildDeps) {}

  /**
   * Rebuilds [chunkOffset, chunkOffset+length) of the lost chunk from k others that hold one write
   * (copy-rules consistentInputs), or returns undefined when no k such can be read. The reader's
   * sibling blocks (`known`, some still in flight) count towards k when they carry their block
   * stamps; the rest are read at the same time, exactly the k still needed, more only when some
   * fail or hold another write than the others, so a sequential degraded read waits for one round
   * of reads. Failed reads are added to `failures` and bad copies reported; `seen` gets the stamps
   * of every chunk read (the caller checks an old holder's chunk against them).
   */
  async range(
    of: RebuildOf,
    chunkOffset: number,
    length: number,
    failures: Failure[],
    known: ReadonlyMap<number, Promise<Buffer>>,
    seen: BlockStamps[] = [],
  ): Promise<Buffer | undefined> {
    const { view, targets, k, m, chunk } = of;
    const inputs = new Map<number, { data: Buffer; stamps: BlockStamps | undefined }>();
    const held: Held = { borrowed: new Set(), own: [] };
    const chunkOsts = targets.map((t) => t.osts[0]);
    // Positions to read, best first; a sibling that fails or comes without its stamps joins the end.
    const queue = rebuildOrder(view, this.deps.health, chunkOsts, chunk, known);
    const blocks = blockCount(chunkOffset, length);
    const arrivals = [...known].map(([j, peeked]) =>
      peeked.then(
        (data) => {
          const stamps = stampsOfBlock(data);
          if (!stamps || stamps.length !== blocks || data.length < length) queue.push(j);
          else inputs.set(j, { data: this.adoptSibling(data, length, held), stamps });
        },
        () => {
          queue.push(j);
        },
      ),
    );
    let next = 0;
    const readMore = (count: number): Promise<void>[] => {
      const batch = queue.slice(next, next + Math.max(0, count));
      next += batch.length;
      return batch.map((j) => this.readInput(of, j, chunkOffset, length, { failures, inputs, held, seen }));
    };
    // Each round reads at least one more position, so there are at most k + m rounds.
    let round = [...arrivals, ...readMore(k - known.size)];
    let chosen: number[] | undefined;
    for (;;) {
      await Promise.all(round);
      const stamped = [...inputs].map(([position, input]) => ({ position, stamps: input.stamps }));
      chosen = consistentInputs(stamped, k);
      if (chosen || next >= queue.length) break;
      round = readMore(Math.max(1, k - largestAgreement(stamped)));
    }
    try {
      if (!chosen) return undefined;
      const decodeFrom = new Map(chosen.map((j) => [j, (inputs.get(j) as { data: Buffer }).data]));
      const out = this.deps.blocks.take(length);
      rebuildChunk(k, m, chunk, decodeFrom, out);
      this.deps.counters.degradedReads++;
      return withStamps(out, inputs.get(chosen[0] as number)?.stamps);
    } finally {
      this.release(held);
    }
  }

  /** Reads position `j`'s range as a rebuild input: into `into.inputs`, or its failure into `into.failures`. */
  private async readInput(
    of: RebuildOf,
    j: number,
    chunkOffset: number,
    length: number,
    into: {
      failures: Failure[];
      inputs: Map<number, { data: Buffer; stamps: BlockStamps | undefined }>;
      held: Held;
      seen: BlockStamps[];
    },
  ): Promise<void> {
    const { copies } = this.deps;
    const target = of.targets[j] as ObjectTarget;
    const ost = target.osts[0] as number;
    const rest = () => of.targets.map((t) => t.osts[0]).filter((o) => o !== ost);
    const read = await copies.readChunk(
      of.view,
      target,
      ost,
      chunkOffset,
      length,
      copies.giveUpUnless(of.view, ost, rest),
    );
    if (read.ok) {
      into.held.own.push(read.data);
      into.inputs.set(j, { data: read.data, stamps: read.stamps });
      if (read.stamps) into.seen.push(read.stamps);
      return;
    }
    into.failures.push({ ost, code: read.code });
    copies.report(ost, target.objectId, read.code);
  }

  /**
   * A readahead run of the lost chunk: every block is rebuilt from the same ranges of the other
   * k - 1 data chunks, which the reader is fetching anyway (its sibling runs), and one parity
   * chunk, read as one run too. Only when every block has all its data siblings; otherwise (two
   * chunks lost, siblings not being read) the reader's block-by-block fallback rebuilds. A block
   * is handed to `onPart` as soon as it is rebuilt. `readDirect`: instead of failing when no
   * rebuild can be set up (the chunk is only slow, not lost).
   */
  async run(
    of: RebuildOf,
    objectOffset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer) => void,
    siblingsOf: (index: number) => EcSiblings,
    readDirect?: () => Promise<void>,
  ): Promise<void> {
    const { view, targets, k, chunk } = of;
    // The sibling runs are started in the same pass as this one: let them register first. Then
    // every part is peeked and marked rebuilding in one step (not peekSiblings, which awaits per
    // call): a run of another lost chunk peeking in between would take these blocks as coming,
    // and the two rebuilds would wait on each other.
    await Promise.resolve();
    const known = lengths.map((_, i) => {
      const siblings = siblingsOf(i);
      const found = new Map<number, Promise<Buffer>>();
      for (let j = 0; j < k; j++) {
        const peeked = j === chunk ? undefined : siblings.peek(j);
        if (peeked !== undefined) found.set(j, Promise.resolve(peeked));
      }
      return { siblings, found };
    });
    if (known.some((part) => part.found.size < k - 1)) {
      if (readDirect) return readDirect();
      throw new StripeError(
        'REQ_UNAVAILABLE',
        `not every data sibling of ${targets[chunk]?.objectId} is being read`,
      );
    }
    const chunkOsts = targets.map((t) => t.osts[0]);
    const parity = parityForRun(view, this.deps.health, chunkOsts, k, readDirect !== undefined);
    if (parity === undefined) {
      if (readDirect) return readDirect();
      throw new StripeError('REQ_UNAVAILABLE', `no healthy parity chunk of ${targets[chunk]?.objectId}`);
    }
    for (const part of known) part.siblings.rebuilding();
    const rebuilt: Promise<void>[] = [];
    await this.deps.copies.readRun(
      view,
      targets[parity] as ObjectTarget,
      chunkOsts[parity],
      objectOffset,
      lengths,
      (i, parityData, stamps) => {
        const found = (known[i] as { found: Map<number, Promise<Buffer>> }).found;
        rebuilt.push(
          this.rebuildPart(of, parity, parityData, stamps, found, lengths[i] as number, (out) =>
            onPart(i, out),
          ),
        );
      },
    );
    // A part whose sibling failed is left to the caller's fallback.
    await Promise.allSettled(rebuilt);
  }

  /**
   * One part of a run rebuild: decoded from the parity part and the siblings' blocks once they
   * arrive, and handed to `deliver`, only when every sibling holds the same write as the parity
   * part (equal block stamps); otherwise left to the caller's block-by-block fallback.
   */
  private async rebuildPart(
    of: RebuildOf,
    parity: number,
    parityData: Buffer,
    stamps: BlockStamps | undefined,
    found: ReadonlyMap<number, Promise<Buffer>>,
    length: number,
    deliver: (out: Buffer) => void,
  ): Promise<void> {
    const { k, m, chunk } = of;
    const inputs = new Map<number, Buffer>([[parity, parityData]]);
    const held: Held = { borrowed: new Set(), own: [parityData] };
    try {
      let agree = stamps !== undefined;
      await Promise.all(
        [...found].map(async ([j, peeked]) => {
          const data = await peeked;
          const sibling = stampsOfBlock(data);
          if (!stamps || !sibling || !sameStamps(sibling, stamps) || data.length < length) agree = false;
          else inputs.set(j, this.adoptSibling(data, length, held));
        }),
      );
      if (!agree) return;
      const out = this.deps.blocks.take(length);
      rebuildChunk(k, m, chunk, inputs, out);
      this.deps.counters.degradedReads++;
      deliver(withStamps(out, stamps));
    } finally {
      this.release(held);
    }
  }

  /** A sibling block as a rebuild input: the reader's own block, pinned until the rebuild is done. */
  private adoptSibling(data: Buffer, length: number, held: Held): Buffer {
    this.deps.blocks.pin(data);
    held.borrowed.add(data);
    return data.length === length ? data : data.subarray(0, length);
  }

  /** Unpins what a rebuild borrowed and recycles what it owned. */
  private release(held: Held): void {
    for (const block of held.borrowed) this.deps.blocks.unpin(block);
    for (const data of held.own) this.deps.blocks.recycle(data);
  }
}
