// Reads and writes of one object range with fail-over: a replica that errors,
// times out or fails its checksum is skipped for the next; an ec chunk that
// cannot be read is rebuilt from any k others; bad chunks are reported to the
// MDS for repair. When nothing works the error names the objects and OSTs.
import { segmentChecksums } from '../common/bulk/frame.js';
import { type ErrorCode, StripeError } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';
import { HOLE, placePg } from '../placement/index.js';
import type { ObjectRefFields as ObjectRef } from '../wire/index.js';
import type { BlockPool } from './block-pool.js';
import type { ClientCounters } from './counters.js';
import { rebuildChunk } from './ec.js';
import type { FileLayout } from './layout.js';
import { locateEcChunks, locateObject, type ObjectTarget } from './locate.js';
import type { MapView } from './map.js';
import type { PgHolders } from './mds-client.js';
import type { OssEndpoint, OssPool, ReadAnswer, RunAnswer } from './oss-pool.js';
import type { OstHealth } from './ost-health.js';
import { isTransientRequestCode, type RetryDeps, withRetries } from './retry.js';

export interface Touched {
  ost: number;
  endpoint: OssEndpoint;
  ref: ObjectRef;
}

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

interface Failure {
  ost: number;
  code: ErrorCode;
}

/** Codes that mean this copy is bad (not merely unreachable): report it for repair. */
const BAD_COPY: ReadonlySet<ErrorCode> = new Set(['OBJ_CHECKSUM', 'OBJ_NOT_FOUND', 'OBJ_SHORT']);

export class ObjectIo {
  constructor(
    private readonly deps: RetryDeps & {
      pool: OssPool;
      counters: ClientCounters;
      health: OstHealth;
      /** Where a rebuild takes its buffers and gives back the ones only it used. */
      blocks: BlockPool;
    },
  ) {}

  private ref(target: ObjectTarget, ost: number): ObjectRef {
    return {
      ostId: ost,
      objectId: target.objectId,
      poolId: target.poolId,
      pg: target.pg,
      mapEpoch: target.epoch,
    };
  }

  private endpoint(view: MapView, ost: number): OssEndpoint | undefined {
    const endpoint = view.osts.get(ost);
    return endpoint?.grpcAddress ? endpoint : undefined;
  }

  private report(ost: number, objectId: string, code: ErrorCode): void {
    if (!BAD_COPY.has(code)) return;
    this.deps.counters.badChunksReported++;
    // A report is advice to the MDS: the read goes on without it, and scrub finds a copy a lost report missed.
    this.deps.mds.reportBadChunk(ost, objectId, code).catch(() => undefined);
  }

  /** One read attempt on one OST; short answers are zero padded (sparse tail). */
  private async readOne(
    view: MapView,
    target: ObjectTarget,
    ost: number,
    offset: number,
    length: number,
    skip: (() => boolean) | undefined,
    shortAnswer?: { short: boolean },
  ): Promise<Buffer> {
    const endpoint = this.endpoint(view, ost);
    if (!endpoint) throw new StripeError('REQ_UNAVAILABLE', `OST ${ost} has no address`);
    const started = performance.now();
    let answer: ReadAnswer;
    try {
      answer = await this.deps.pool.readRange(endpoint, this.ref(target, ost), offset, length, skip);
    } catch (err) {
      // The OSS refuses a read that starts past the object's end: the copy holds none of the
      // range (a sparse file, or one truncated and grown again), a short answer like any other.
      if (!(shortAnswer && offset > 0 && codeOf(err) === 'OBJ_RANGE')) {
        this.deps.health.record(ost, codeOf(err));
        throw err;
      }
      answer = { sent: true, data: Buffer.alloc(0) };
    }
    if (!answer.sent)
      throw new StripeError('REQ_UNAVAILABLE', `skipped a read of ${target.objectId}: OST ${ost} is failing`);
    const { data } = answer;
    this.deps.health.record(ost, undefined);
    this.deps.counters.latencies.record('readChunk', performance.now() - started);
    this.deps.counters.addOstBytes(this.deps.counters.bytesReadPerOst, ost, data.length);
    if (data.length === length) return data;
    if (shortAnswer) shortAnswer.short = true;
    const padded = Buffer.alloc(length);
    data.copy(padded);
    return padded;
  }

  /**
   * When a read of `ost` may give up without being sent (asked once it has its slots): the
   * OST turned suspect while the request queued, and one of `others` (the copies still to
   * try) is up and healthy. With none, a suspect OST is still the best there is, and a read
   * of the only live copy must never be skipped.
   */
  private skipFor(view: MapView, ost: number, others: () => Iterable<number | undefined>): () => boolean {
    return () => {
      if (!this.deps.health.isSuspect(ost)) return false;
      for (const other of others()) if (other !== ost && this.healthy(view, other)) return true;
      return false;
    };
  }

  /**
   * One read of an ec chunk. Every chunk of an ec file has the same length and a read never
   * passes the file's end, so a chunk shorter than the range is not a sparse tail: it is one
   * a recovery or a move is still filling, slice by slice (or one that lost a write). It
   * fails with OBJ_SHORT like a missing chunk, and the range is rebuilt from k others.
   */
  private async readChunk(
    view: MapView,
    target: ObjectTarget,
    ost: number,
    offset: number,
    length: number,
    skip: (() => boolean) | undefined,
  ): Promise<Buffer> {
    const answer = { short: false };
    const data = await this.readOne(view, target, ost, offset, length, skip, answer);
    if (!answer.short) return data;
    throw new StripeError(
      'OBJ_SHORT',
      `${target.objectId} on OST ${ost} holds less than ${offset}+${length}: it is still being filled`,
      { objectId: target.objectId, ost },
    );
  }

  /** Up and healthy first, then up but recently failing, then down. */
  private tryOrder(view: MapView, osts: number[]): number[] {
    return this.deps.health.order(osts, (ost) => view.osts.get(ost)?.up ?? false);
  }

  /** raid0 / replicated: bytes [offset, offset+length) of object `objectIndex`, from the first replica that answers. */
  readReplicated(
    fileLayout: FileLayout,
    inode: number,
    objectIndex: number,
    offset: number,
    length: number,
  ): Promise<Buffer> {
    // Set once the placed copies were read again after the PG's holders were asked.
    let settled = false;
    const secondLook = (): Promise<Buffer> => {
      settled = true;
      return attempt(this.deps.mds.mapView);
    };
    const attempt = async (view: MapView): Promise<Buffer> => {
      const target = locateObject(view, fileLayout, inode, objectIndex);
      const failures: Failure[] = [];
      const order = this.tryOrder(view, target.osts);
      // A copy shorter than the range may be one that missed writes while its
      // OST was down: prefer a full answer from another copy, and fall back to
      // the short one (a sparse tail) only when no copy has more.
      let shortCopy: Buffer | undefined;
      for (const [rank, ost] of order.entries()) {
        try {
          const answer = { short: false };
          const data = await this.readOne(
            view,
            target,
            ost,
            offset,
            length,
            this.skipFor(view, ost, () => order.slice(rank + 1)),
            answer,
          );
          if (answer.short) {
            shortCopy ??= data;
            continue;
          }
          if (rank > 0) this.deps.counters.degradedReads++;
          return data;
        } catch (err) {
          const code = codeOf(err);
          failures.push({ ost, code });
          this.report(ost, target.objectId, code);
          if (code === 'MAP_STALE') throw err;
        }
      }
      if (shortCopy) {
        // Every copy that answered is short of the range. That is a sparse tail (zeros), or a
        // copy that recovery or a rebalance is still filling, slice by slice from the start,
        // while its PG moves: then an old holder has the whole range.
        const whole = await this.readFromHolders(view, target, offset, length, failures, true);
        if (whole) return whole;
        return settled ? shortCopy : secondLook();
      }
      // Every placed copy says "no such object" (or "stale: awaiting repair"). While the PG is
      // moving (recovery, rebalance) the data may still sit on its old holders: ask them before
      // calling it a hole (never written), which reads as zeros; a stale copy never makes a hole.
      if (
        failures.length > 0 &&
        failures.every((f) => f.code === 'OBJ_NOT_FOUND' || f.code === 'OBJ_STALE')
      ) {
        const moved = await this.readFromHolders(view, target, offset, length, failures, false);
        if (moved) return moved;
        if (failures.every((f) => f.code === 'OBJ_NOT_FOUND')) {
          // No old holder had it either. The copy may have landed on its new OST while we
          // asked (the PG went clean and its old copies were purged): one more look at the
          // placed copies before calling it a hole. The same goes for a short copy above.
          return settled ? Buffer.alloc(length) : secondLook();
        }
      }
      throw new StripeError('IO_DEGRADED', `no replica of ${target.objectId} could be read`, {
        objects: [target.objectId],
        osts: target.osts,
        failures,
      });
    };
    return withRetries(this.deps, attempt);
  }

  /**
   * Where the PG's data is while it moves, as of the map the read used. A read decides from
   * this that a range is a hole (zeros), so an answer it cannot trust is an error, never
   * "clean": the MDS out of reach is REQ_UNAVAILABLE, and an answer for a newer map than the
   * read's (whose placement may differ) is MAP_STALE, which refreshes the map and retries.
   */
  private async holdersOf(view: MapView, target: ObjectTarget): Promise<PgHolders> {
    let answer: PgHolders;
    try {
      answer = await this.deps.mds.pgHolders(target.poolId, target.pg);
    } catch (err) {
      throw new StripeError(
        'REQ_UNAVAILABLE',
        `cannot tell where PG ${target.poolId}.${target.pg} of ${target.objectId} is while it moves: ` +
          `the MDS did not answer (${err instanceof Error ? err.message : String(err)})`,
        { objects: [target.objectId], cause: codeOf(err) },
      );
    }
    if (answer.mapEpoch > view.epoch)
      throw new StripeError(
        'MAP_STALE',
        `PG ${target.poolId}.${target.pg} was asked about at map epoch ${view.epoch}, the MDS is at ${answer.mapEpoch}`,
        { epoch: answer.mapEpoch, requestEpoch: view.epoch, mapStale: true },
      );
    return answer;
  }

  /**
   * Reads from the PG's old holders that the placement no longer names; undefined when none
   * has the object (`wholeOnly`: none has the whole range; a short answer is passed over).
   */
  private async readFromHolders(
    view: MapView,
    target: ObjectTarget,
    offset: number,
    length: number,
    failures: Failure[],
    wholeOnly: boolean,
  ): Promise<Buffer | undefined> {
    const answer = await this.holdersOf(view, target);
    if (answer.clean) return undefined;
    const tried = new Set([...failures.map((f) => f.ost), ...(wholeOnly ? target.osts : [])]);
    let short: Buffer | undefined;
    for (const ost of answer.holders.filter((id) => id >= 0 && !tried.has(id))) {
      try {
        const reply = { short: false };
        const data = await this.readOne(view, target, ost, offset, length, undefined, reply);
        if (reply.short) {
          if (!wholeOnly) short ??= data;
          continue;
        }
        this.deps.counters.degradedReads++;
        return data;
      } catch (err) {
        failures.push({ ost, code: codeOf(err) });
      }
    }
    if (short) this.deps.counters.degradedReads++;
    return short;
  }

  /** ec: the chunk of position `chunk` from the PG's old holder of that position, if it differs. */
  private async readEcFromHolder(
    view: MapView,
    primary: ObjectTarget,
    chunk: number,
    chunkOffset: number,
    length: number,
    failures: Failure[],
  ): Promise<Buffer | undefined> {
    // Not knowing only costs the rebuild's own error here (IO_DEGRADED, retried): no guess is made.
    const answer = await this.holdersOf(view, primary).catch((err: unknown) => {
      if (codeOf(err) === 'MAP_STALE') throw err;
      return undefined;
    });
    const holder = answer && !answer.clean ? answer.holders[chunk] : undefined;
    if (holder === undefined || holder < 0 || failures.some((f) => f.ost === holder)) return undefined;
    try {
      const data = await this.readChunk(view, primary, holder, chunkOffset, length, undefined);
      this.deps.counters.degradedReads++;
      return data;
    } catch (err) {
      failures.push({ ost: holder, code: codeOf(err) });
      return undefined;
    }
  }

  /**
   * ec: bytes [chunkOffset, chunkOffset+length) of data chunk `chunk`. The
   * range lies inside one stripe's shard, so the same range of any k chunks
   * rebuilds it.
   */
  readEc(
    fileLayout: FileLayout,
    inode: number,
    chunk: number,
    chunkOffset: number,
    length: number,
    siblings?: EcSiblings,
  ): Promise<Buffer> {
    return withRetries(this.deps, async (view) => {
      const targets = locateEcChunks(view, fileLayout, inode);
      const primary = targets[chunk] as ObjectTarget;
      const primaryOst = primary.osts[0];
      const failures: Failure[] = [];
      const up = primaryOst !== undefined && (view.osts.get(primaryOst)?.up ?? false);
      // A suspect primary is skipped (rebuilding costs k reads, waiting out a hang costs a
      // timeout), and so is a slow one: k reads at the other OSTs' pace beat one at its pace. If
      // k others cannot be read, the primary is still read last, below.
      const avoid =
        primaryOst !== undefined &&
        (this.deps.health.isSuspect(primaryOst) || this.deps.health.isSlow(primaryOst));
      if (primaryOst !== undefined && up && !avoid) {
        try {
          const others = () => targets.map((t) => t.osts[0]);
          return await this.readChunk(
            view,
            primary,
            primaryOst,
            chunkOffset,
            length,
            this.skipFor(view, primaryOst, others),
          );
        } catch (err) {
          const code = codeOf(err);
          if (code === 'MAP_STALE') throw err;
          failures.push({ ost: primaryOst, code });
          this.report(primaryOst, primary.objectId, code);
        }
      } else if (!up) {
        failures.push({ ost: primaryOst ?? -1, code: 'OST_DOWN' });
      }
      siblings?.rebuilding();
      const known = siblings ? await peekSiblings(siblings, fileLayout.layout.k as number, chunk) : new Map();
      const rebuilt = await this.rebuild(
        view,
        fileLayout,
        targets,
        chunk,
        chunkOffset,
        length,
        failures,
        known,
      );
      if (rebuilt) return rebuilt;
      // Not enough chunks where the map puts them: while the PG is moving, the
      // chunk of this position may still be on its old holder.
      const moved = await this.readEcFromHolder(view, primary, chunk, chunkOffset, length, failures);
      if (moved) return moved;
      // Not enough other chunks: last resort, the suspect primary itself.
      if (primaryOst !== undefined && up && failures.every((f) => f.ost !== primaryOst)) {
        try {
          return await this.readChunk(view, primary, primaryOst, chunkOffset, length, undefined);
        } catch (err) {
          failures.push({ ost: primaryOst, code: codeOf(err) });
        }
      }
      const stripe = Math.floor(chunkOffset / fileLayout.layout.stripeSize);
      throw new StripeError(
        'IO_DEGRADED',
        `not enough chunks could be read to rebuild stripe ${stripe} of ${primary.objectId} at ${chunkOffset}+${length}`,
        {
          stripes: [stripe],
          objects: targets.map((t) => t.objectId),
          osts: targets.map((t) => t.osts[0] ?? -1),
          failures,
        },
      );
    });
  }

  /**
   * Rebuilds the range of data chunk `chunk` from k others, or returns
   * undefined when k cannot be read. The reader's own blocks of sibling chunks
   * (`known`, some still in flight) count towards k; the rest are read at the
   * same time, so a sequential degraded read waits for one round of reads.
   */
  private async rebuild(
    view: MapView,
    fileLayout: FileLayout,
    targets: ObjectTarget[],
    chunk: number,
    chunkOffset: number,
    length: number,
    failures: Failure[],
    known: Map<number, Promise<Buffer>>,
  ): Promise<Buffer | undefined> {
    const k = fileLayout.layout.k as number;
    const m = fileLayout.layout.m as number;
    // Sibling blocks are the reader's (cached or being cached): borrowed, pinned so the pool
    // cannot hand them out while the rebuild waits for its other inputs, never recycled here.
    // Every other buffer (read results, padded copies) is this rebuild's own and goes back.
    const inputs = new Map<number, Buffer>();
    const held = { borrowed: new Set<Buffer>(), own: [] as Buffer[] };
    const arrivals = [...known].map(([j, peeked]) =>
      peeked.then(
        (data) => this.adoptSibling(data, length, j, inputs, held),
        () => undefined,
      ),
    );
    // The rest by their OST's health (healthy, suspect, down), data chunks before parity.
    const rankOf = (j: number): number => {
      const ost = targets[j]?.osts[0] as number;
      return this.deps.health.rank(ost, view.osts.get(ost)?.up ?? false);
    };
    const candidates = targets
      .map((_, j) => j)
      .filter((j) => j !== chunk && !known.has(j) && targets[j]?.osts[0] !== undefined)
      .sort((a, b) => rankOf(a) - rankOf(b) || a - b);
    let next = 0;
    const readMore = (count: number): Promise<void>[] => {
      const batch = candidates.slice(next, next + Math.max(0, count));
      next += batch.length;
      return batch.map((j) => {
        const target = targets[j] as ObjectTarget;
        const ost = target.osts[0] as number;
        const rest = () => candidates.slice(next).map((i) => targets[i]?.osts[0]);
        return this.readChunk(view, target, ost, chunkOffset, length, this.skipFor(view, ost, rest)).then(
          (data) => {
            held.own.push(data);
            inputs.set(j, data);
          },
          (err) => {
            const code = codeOf(err);
            failures.push({ ost, code });
            this.report(ost, target.objectId, code);
          },
        );
      });
    };
    // Exactly the k still needed at a time; more only when some fail.
    let round = [...arrivals, ...readMore(k - known.size)];
    for (;;) {
      await Promise.all(round);
      if (inputs.size >= k || next >= candidates.length) break;
      round = readMore(k - inputs.size);
    }
    try {
      if (inputs.size < k) return undefined;
      const out = this.deps.blocks.take(length);
      rebuildChunk(k, m, chunk, inputs, out);
      this.deps.counters.degradedReads++;
      return out;
    } finally {
      this.release(held);
    }
  }

  /**
   * Readahead's one-request fetch of blocks back to back in one object
   * (client/prefetch-runs.ts): one attempt at the copy a read would try first
   * (a healthy, up replica; an ec chunk's own OST), each part handed to
   * `onPart` as it arrives. Anything else (an error, a short copy, no healthy
   * copy, no bulk path) rejects, and the caller fetches the parts not yet
   * handed over one by one, with every fail-over and rebuild a read has.
   */
  async readRun(
    fileLayout: FileLayout,
    inode: number,
    objectIndex: number,
    objectOffset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer) => void,
    siblingsOf?: (index: number) => EcSiblings,
  ): Promise<void> {
    const view = this.deps.mds.mapView;
    if (fileLayout.layout.pattern !== 'ec') {
      const target = locateObject(view, fileLayout, inode, objectIndex);
      const ost = this.tryOrder(view, target.osts)[0];
      return this.runFrom(view, target, ost, objectOffset, lengths, onPart);
    }
    const targets = locateEcChunks(view, fileLayout, inode);
    const ost = targets[objectIndex]?.osts[0];
    const direct = () =>
      this.runFrom(view, targets[objectIndex] as ObjectTarget, ost, objectOffset, lengths, onPart);
    if (!siblingsOf) return direct();
    const rebuild = (otherwise?: () => Promise<void>) =>
      this.rebuildRun(
        view,
        fileLayout,
        targets,
        objectIndex,
        objectOffset,
        lengths,
        onPart,
        siblingsOf,
        otherwise,
      );
    if (!this.healthy(view, ost)) return rebuild();
    // A slow chunk: rebuilt from its siblings and a parity run when those are at hand, else read as it is.
    return this.deps.health.isSlow(ost) ? rebuild(direct) : direct();
  }

  private healthy(view: MapView, ost: number | undefined): ost is number {
    return ost !== undefined && (view.osts.get(ost)?.up ?? false) && !this.deps.health.isSuspect(ost);
  }

  /** One run request to one OST (readRun's common part). */
  private async runFrom(
    view: MapView,
    target: ObjectTarget,
    ost: number | undefined,
    objectOffset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer) => void,
  ): Promise<void> {
    if (!this.healthy(view, ost))
      throw new StripeError('REQ_UNAVAILABLE', `no healthy copy of ${target.objectId} to read ahead from`);
    const endpoint = this.endpoint(view, ost);
    if (!endpoint) throw new StripeError('REQ_UNAVAILABLE', `OST ${ost} has no address`);
    const started = performance.now();
    let answer: RunAnswer;
    try {
      answer = await this.deps.pool.readRun(
        endpoint,
        this.ref(target, ost),
        objectOffset,
        lengths,
        (index, data) => {
          this.deps.counters.addOstBytes(this.deps.counters.bytesReadPerOst, ost, data.length);
          onPart(index, data);
        },
        () => this.deps.health.isSuspect(ost),
      );
    } catch (err) {
      this.deps.health.record(ost, codeOf(err));
      throw err;
    }
    // Not sent, or the copy ended early: nothing learnt about the OST, and the caller reads what is left.
    if (!answer.sent || !answer.complete) return;
    this.deps.health.record(ost, undefined);
    this.deps.counters.latencies.record(
      lengths.length > 1 ? 'readRun' : 'readChunk',
      performance.now() - started,
    );
  }

  /**
   * ec, the run's own chunk unavailable: every block of the run is rebuilt
   * from the same ranges of the other k - 1 data chunks, which the reader is
   * fetching anyway (its sibling runs), and one parity chunk, read as one run
   * too. Only when every block has all its data siblings; otherwise (two
   * chunks lost, siblings not being read) the caller's block-by-block
   * fallback rebuilds. A block is handed over as soon as it is rebuilt.
   */
  private async rebuildRun(
    view: MapView,
    fileLayout: FileLayout,
    targets: ObjectTarget[],
    chunk: number,
    objectOffset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer) => void,
    siblingsOf: (index: number) => EcSiblings,
    /** Instead of failing when no rebuild can be set up (the chunk is only slow, not lost). */
    otherwise?: () => Promise<void>,
  ): Promise<void> {
    const k = fileLayout.layout.k as number;
    const m = fileLayout.layout.m as number;
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
      if (otherwise) return otherwise();
      throw new StripeError(
        'REQ_UNAVAILABLE',
        `not every data sibling of ${targets[chunk]?.objectId} is being read`,
      );
    }
    // A parity chunk on a healthy OST, one that is not slow if there is one.
    const usable = Array.from({ length: m }, (_, p) => k + p).filter((j) =>
      this.healthy(view, targets[j]?.osts[0]),
    );
    const parity =
      usable.find((j) => !this.deps.health.isSlow(targets[j]?.osts[0] as number)) ??
      (otherwise ? undefined : usable[0]);
    if (parity === undefined) {
      if (otherwise) return otherwise();
      throw new StripeError('REQ_UNAVAILABLE', `no healthy parity chunk of ${targets[chunk]?.objectId}`);
    }
    for (const part of known) part.siblings.rebuilding();
    const rebuilt: Promise<void>[] = [];
    await this.runFrom(
      view,
      targets[parity] as ObjectTarget,
      targets[parity]?.osts[0],
      objectOffset,
      lengths,
      (i, parityData) => {
        const length = lengths[i] as number;
        const inputs = new Map<number, Buffer>([[parity, parityData]]);
        const held = { borrowed: new Set<Buffer>(), own: [parityData] };
        const arrivals = [...(known[i] as { found: Map<number, Promise<Buffer>> }).found].map(([j, peeked]) =>
          peeked.then((data) => this.adoptSibling(data, length, j, inputs, held)),
        );
        rebuilt.push(
          Promise.all(arrivals)
            .then(() => {
              const out = this.deps.blocks.take(length);
              rebuildChunk(k, m, chunk, inputs, out);
              this.deps.counters.degradedReads++;
              onPart(i, out);
            })
            .finally(() => this.release(held)),
        );
      },
    );
    // A part whose sibling failed is left to the caller's fallback.
    await Promise.allSettled(rebuilt);
  }

  /** A sibling block as a rebuild input: the reader's own block pinned, or a zero-padded copy of a short one. */
  private adoptSibling(
    data: Buffer,
    length: number,
    j: number,
    inputs: Map<number, Buffer>,
    held: { borrowed: Set<Buffer>; own: Buffer[] },
  ): void {
    if (data.length >= length) {
      this.deps.blocks.pin(data);
      held.borrowed.add(data);
      inputs.set(j, data.length === length ? data : data.subarray(0, length));
      return;
    }
    // A shorter block ends at the end of the file: the chunk is stored zero padded.
    const copy = this.deps.blocks.take(length);
    copy.set(data);
    copy.fill(0, data.length);
    held.own.push(copy);
    inputs.set(j, copy);
  }

  /** Unpins what a rebuild borrowed and recycles what it owned. */
  private release(held: { borrowed: Set<Buffer>; own: Buffer[] }): void {
    for (const block of held.borrowed) this.deps.blocks.unpin(block);
    for (const data of held.own) this.deps.blocks.recycle(data);
  }

  /**
   * Writes `data` at `offset` to every copy of a target (the up ones when the map says some are down and min_size allows), returning what to flush at sync.
   * `truncate`: each copy ends at offset + data.length afterwards (an empty write at N cuts the object to N bytes).
   */
  writeTarget(
    locate: (view: MapView) => ObjectTarget,
    offset: number,
    data: Uint8Array,
    options: { truncate?: boolean } = {},
  ): Promise<Touched[]> {
    // Once for every replica and every retry: the bulk path's per-segment crcs, and from them the whole crc.
    const checksums = segmentChecksums(data, offset, LIMITS.checksumBlockBytes);
    const checksum = checksums.whole;
    return withRetries(this.deps, async (view) => {
      const target = locate(view);
      if (target.osts.length === 0)
        throw new StripeError('IO_FAILED', `no OST holds ${target.objectId}`, { objects: [target.objectId] });
      const started = performance.now();
      const touched: Touched[] = this.copiesToWrite(view, target).map((ost) => {
        const endpoint = this.endpoint(view, ost);
        if (!endpoint)
          throw new StripeError('IO_FAILED', `OST ${ost} has no address`, {
            objects: [target.objectId],
            osts: [ost],
          });
        return { ost, endpoint, ref: this.ref(target, ost) };
      });
      const results = await Promise.allSettled(
        touched.map((t) =>
          this.deps.pool.writeChunk(t.endpoint, t.ref, offset, data, checksum, checksums, options.truncate),
        ),
      );
      this.deps.counters.latencies.record('writeChunk', performance.now() - started);
      const failures: Failure[] = [];
      results.forEach((result, i) => {
        const ost = (touched[i] as Touched).ost;
        if (result.status === 'fulfilled')
          this.deps.counters.addOstBytes(this.deps.counters.bytesWrittenPerOst, ost, data.length);
        else failures.push({ ost, code: codeOf(result.reason) });
      });
      if (failures.length === 0) {
        // Copies skipped because their OST is down missed this write: the MDS
        // re-copies them from a good copy once the OST is back.
        for (const ost of target.osts.filter((o) => !touched.some((t) => t.ost === o))) {
          this.deps.mds
            .reportBadChunk(ost, target.objectId, 'WRITE_SKIPPED', target.poolId, target.pg)
            // A lost report leaves the skipped copy to deep scrub; the write itself stands (min_size copies).
            .catch(() => undefined);
        }
        return touched;
      }
      const stale = failures.some((f) => f.code === 'MAP_STALE');
      const final = failures.find((f) => !isTransientRequestCode(f.code));
      throw new StripeError(
        final ? final.code : 'IO_FAILED',
        `writing ${target.objectId} failed on OSTs ${failures.map((f) => f.ost).join(',')}`,
        {
          objects: [target.objectId],
          osts: target.osts,
          failures,
          mapStale: stale,
        },
      );
    });
  }

  /**
   * The copies a write goes to: all of them; or, when the map says some are
   * down, only the up ones if they are at least the pool's min_size (Ceph's
   * rule: a PG with min_size members up accepts writes). Below min_size every
   * copy is tried (the map may be behind), so the write fails as before. An
   * ec chunk on a down OST is left out (none written) while its PG has k +
   * min_size members up; a raid0 object has one home and is always tried.
   */
  private copiesToWrite(view: MapView, target: ObjectTarget): number[] {
    const up = target.osts.filter((ost) => view.osts.get(ost)?.up ?? false);
    if (up.length === target.osts.length) return target.osts;
    return this.mayLeaveOut(view, target.poolId, target.pg, up.length, target.osts.length) ? up : target.osts;
  }

  /**
   * Whether copies on down OSTs may be left to the MDS's repair (Ceph's min_size rule): a replicated
   * object with `upCopies` of its `copies` at least min_size; an ec chunk (one home) when at least
   * k + min_size members of its PG, which hold the stripe's k+m chunks, are up. Never a raid0 object.
   */
  private mayLeaveOut(view: MapView, poolId: number, pg: number, upCopies: number, copies: number): boolean {
    const pool = view.pools.get(poolId);
    const minSize = view.poolMinSizes.get(poolId);
    if (!pool || minSize === undefined) return false;
    if (pool.rule.kind === 'replicated') return copies > 1 && upCopies >= Math.max(1, minSize);
    const members = placePg(view.map, pool, pg).osts.filter((ost) => ost !== HOLE);
    const upMembers = members.filter((ost) => view.osts.get(ost)?.up ?? false).length;
    return members.length === pool.rule.k + pool.rule.m && upMembers >= pool.rule.k + minSize;
  }

  /**
   * fsyncs every written copy at its OSS (each retried like any request). A copy whose OST the
   * map marks down is not waited for (a flush in flight to it is given up when the map says so)
   * and is left to the MDS's repair, reported as a write that copy missed, where mayLeaveOut
   * allows (replicated: min_size copies flushed; ec: min_size extra members of the PG up), like a
   * copy skipped at write time. A raid0 object, too few copies, or a copy that failed on an OST
   * still up fails the flush.
   */
  async flushAll(touched: Touched[]): Promise<void> {
    const byObject = new Map<string, Touched[]>();
    for (const t of touched) {
      const id = t.ref.objectId ?? '';
      const copies = byObject.get(id);
      if (copies) copies.push(t);
      else byObject.set(id, [t]);
    }
    await Promise.all([...byObject.values()].map((copies) => this.flushCopies(copies)));
  }

  private async flushCopies(copies: Touched[]): Promise<void> {
    const results = await Promise.allSettled(copies.map((t) => this.flushCopy(t)));
    // Copies not flushed: failed (their code), or skipped because their OST is down.
    const failures = copies.flatMap((t, i): Failure[] => {
      const r = results[i];
      if (r?.status === 'fulfilled') return r.value ? [] : [{ ost: t.ost, code: 'OST_DOWN' }];
      return [{ ost: t.ost, code: codeOf(r?.reason) }];
    });
    if (failures.length === 0) return;
    const view = this.deps.mds.mapView;
    const ref = (copies[0] as Touched).ref;
    const poolId = ref.poolId ?? 0;
    // Only copies on OSTs the map marks down are left to recovery; a failed flush on an up OST fails.
    const down = failures.every((f) => view.osts.get(f.ost)?.up === false);
    const flushed = copies.length - failures.length;
    if (down && this.mayLeaveOut(view, poolId, ref.pg ?? 0, flushed, copies.length)) {
      for (const f of failures)
        this.deps.mds
          .reportBadChunk(f.ost, ref.objectId ?? '', 'WRITE_SKIPPED', poolId, ref.pg ?? 0)
          // A lost report leaves the skipped copy to deep scrub; the flush itself stands (min_size copies).
          .catch(() => undefined);
      return;
    }
    throw new StripeError(
      'IO_FAILED',
      `flushing ${ref.objectId} failed on OSTs ${failures.map((f) => f.ost).join(',')} ` +
        `(${flushed} of ${copies.length} copies flushed, too few for the pool's min_size)`,
      { objects: [ref.objectId], osts: copies.map((t) => t.ost), failures },
    );
  }

  /** fsync of one copy; false when its OST is marked down (not flushed). */
  private flushCopy(t: Touched): Promise<boolean> {
    return withRetries(this.deps, async (view) => {
      if (view.osts.get(t.ost)?.up === false) return false;
      await this.deps.pool.flush(t.endpoint, t.ref);
      return true;
    });
  }
}

function codeOf(err: unknown): ErrorCode {
  return err instanceof StripeError ? err.code : 'REQ_INTERNAL';
}

/** The other data chunks' ranges the reader has or is fetching (not awaited); one that fails is simply read again. */
async function peekSiblings(
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
