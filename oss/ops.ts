// The OSS request layer, shared by the gRPC service and the bulk path: find
// the OST, validate the ref, apply the stale-map rule and the fault knobs,
// count metrics, then call the storage operation. Transports stay thin.
import { StripeError } from '../common/errors.js';
import type { RequestTag } from '../common/jobs/job-id.js';
import type { Logger } from '../common/logging.js';
import { type Clock, systemClock } from '../common/random.js';
import type { ObjectRefFields } from '../wire/index.js';
import type { FaultKnobs, OstFaults } from './faults.js';
import { type JobOp, OssJobUsage, registerJobMetrics } from './job-usage.js';
import { LEASE_RENEW_WAIT_MS } from './limits.js';
import type { MapView } from './map-view.js';
import type { OpName, OssMetrics } from './metrics.js';
import { validateObjectId } from './object-id.js';
import { StalePgs } from './stale-pgs.js';
import type {
  BlockStamps,
  ObjectStore,
  ReadPiece,
  WritePiece,
  WriteResult,
  WriteVersion,
} from './store/index.js';
import { WriteFence } from './write-fence.js';

export interface OstHandle {
  ost: ObjectStore;
  faults: OstFaults;
}

/** What every object request names (wire/object-ref.ts decodes it). */
export type Ref = ObjectRefFields;

/** Job statistics entries kept when the builder names no bound (oss.jobsMax). */
const JOBS_MAX_DEFAULT = 1024;

/** The ops job statistics count, by their kind there. */
const JOB_OPS: Partial<Record<OpName, JobOp>> = { read: 'read', write: 'write', flush: 'other' };

/** An op of a client whose requests are tagged with a job (job statistics count it). */
interface TaggedOp {
  op: OpName;
  tag: RequestTag | undefined;
}

/** What a timed op tallies beside its result: time waiting on the peer, and bytes moved. */
interface OpTally {
  ms: number;
  bytes: number;
}

/** Waits for `work` or `ms`, whichever comes first. */
async function raceTimeout(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

export class OssCore {
  closing = false;
  inFlight = 0;
  /**
   * The read lease: reads are served until this time (monotonic ms), the sending time of the last
   * answered registration or heartbeat plus the lease the MDS gave (mds.heartbeatTimeoutMs). 0:
   * not yet heard (a restarted OSS has forgotten its stale copies and MarkStale may reach it late
   * or not at all); Infinity: the MDS gave no lease. A stopped or cut-off OSS whose lease lapsed
   * may have been marked down and missed writes it has not heard of: it refuses reads until the
   * MDS answers again, before the MDS can have accepted a write that skipped it.
   */
  private readLeaseUntilMs = 0;
  /** The sending time (monotonic ms) of the newest registration or heartbeat the MDS answered. */
  private lastAnswerSentAtMs = Number.NEGATIVE_INFINITY;
  /**
   * The map epoch the MDS's last applied stale list was computed at: which copies and PGs of
   * these OSTs to refuse is known for reads made with that map or an older one. A read made with
   * a newer map may reach an OST its PG was just placed on and is being filled (its copy holds
   * only the writes since the move), which the list for that map names.
   */
  private staleListEpoch = 0;
  /**
   * The newest map epoch an MDS answer that extended the lease was computed at: reads are served
   * only once this OSS has applied that map (the stale-map rule needs it; the MDS lets writes use a
   * map that takes a PG from an OST once its OSS has the map or its lease lapsed).
   */
  private leaseMapEpoch = 0;
  /** Holds writes made with a map the MDS does not yet let writes use (write-fence.ts). */
  readonly writeFence: WriteFence;
  /** Fetches the MDS's current map now (set by the MDS link); resolves once answered or failed. */
  fetchMap: (() => Promise<void>) | undefined;
  /** Reads refused because the lease had lapsed (or was never given). */
  leaseRefusals = 0;
  /** Sends a heartbeat now and resolves once it is answered or failed (set by the MDS link once registered). */
  renewLease: (() => Promise<void>) | undefined;
  /** Whole PGs of these OSTs that await a full backfill (stale-pgs.ts). */
  readonly stalePgs: StalePgs;
  /** Job statistics: each tagged client request, counted once it finished. */
  readonly jobs: OssJobUsage;
  private drained: (() => void) | undefined;

  constructor(
    readonly handles: OstHandle[],
    readonly mapView: MapView,
    readonly metrics: OssMetrics,
    readonly logger: Logger,
    /** Times each op and its waits on the peer (a test's clock makes the figures exact). */
    private readonly clock: Clock = systemClock,
    /** Client session and job pairs job statistics count at most (oss.jobsMax). */
    jobsMax = JOBS_MAX_DEFAULT,
  ) {
    this.stalePgs = new StalePgs(clock);
    this.writeFence = new WriteFence(clock);
    metrics.watchWriteFence(this.writeFence);
    this.jobs = new OssJobUsage(jobsMax, () => clock.nowMs());
    registerJobMetrics(metrics.registry, this.jobs);
  }

  handle(ostId: number): OstHandle {
    const found = this.handles.find((h) => h.ost.id === ostId);
    if (!found) throw new StripeError('MAP_UNKNOWN_OST', `no OST with id ${ostId} on this OSS`, { ostId });
    return found;
  }

  handleByName(name: string): OstHandle | undefined {
    return this.handles.find((h) => h.ost.name === name);
  }

  /**
   * Common entry: bookkeeping, validation, faults, `ready` (a read's lease), stale map (`data`: see
   * MapView.check); then `work`.
   */
  private async begin(
    ref: Ref,
    kind: 'read' | 'write' | 'meta',
    data?: 'read' | 'write',
    ready?: (h: OstHandle) => Promise<void>,
  ): Promise<OstHandle> {
    if (this.closing) throw new StripeError('REQ_UNAVAILABLE', 'the OSS is shutting down');
    const h = this.handle(ref.ostId);
    validateObjectId(ref.objectId);
    await h.faults.before(kind);
    if (this.closing) throw new StripeError('REQ_UNAVAILABLE', 'the OSS is shutting down');
    await ready?.(h);
    await this.mapView.check(ref, async () => (await h.ost.stat(ref.objectId)) !== undefined, data);
    return h;
  }

  /**
   * Runs one op and records its latency. `work` adds to `peer.ms` the time it spent waiting on
   * the other end (a reader draining the socket, a writer's next bytes): the OST's own service
   * time, which the heartbeat's p50 (slow-disk detection) is made of, leaves that out, so a
   * busy client does not make a healthy OST look slow. The request histogram keeps it all.
   */
  private async timed<T>(
    ostId: number,
    which: OpName | TaggedOp,
    work: (peer: OpTally) => Promise<T>,
  ): Promise<T> {
    const { op, tag } = typeof which === 'string' ? { op: which, tag: undefined } : which;
    const jobOp = tag ? JOB_OPS[op] : undefined;
    const started = this.clock.monotonicMs();
    const peer: OpTally = { ms: 0, bytes: 0 };
    this.inFlight++;
    const label = this.handles.find((h) => h.ost.id === ostId)?.ost.name ?? 'unknown';
    try {
      const result = await work(peer);
      const ms = this.clock.monotonicMs() - started;
      this.metrics.record(label, op, 'ok', ms, ms - peer.ms);
      if (jobOp) this.jobs.record(tag, jobOp, peer.bytes, ms, true);
      return result;
    } catch (err) {
      const code = err instanceof StripeError ? err.code : 'REQ_INTERNAL';
      if (code === 'OBJ_CHECKSUM') this.metrics.checksumError(label);
      const ms = this.clock.monotonicMs() - started;
      this.metrics.record(label, op, code, ms, ms - peer.ms);
      if (jobOp) this.jobs.record(tag, jobOp, peer.bytes, ms, false);
      if (!(err instanceof StripeError)) this.logger.error({ err, op }, 'unexpected failure');
      throw err;
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) this.drained?.();
    }
  }

  write(
    ref: Ref,
    offset: number,
    length: number,
    declaredCrc: number,
    truncate: boolean,
    pieces: AsyncIterable<WritePiece>,
    tag?: RequestTag,
    /** The writer's stamp (a client write) or the source version (a recovery copy): see WriteVersion. */
    version: WriteVersion = {},
    /** `sync`: a flush after the write, in the same request (WriteParams.sync). */
    options: { sync?: boolean } = {},
  ): Promise<WriteResult> {
    return this.timed(ref.ostId, { op: 'write', tag }, async (peer) => {
      const h = await this.begin(ref, 'write', 'write');
      await this.writeFence.admit(ref.mapEpoch, h.ost.name, this.fetchMap);
      const faults = h.faults;
      const metrics = this.metrics;
      const clock = this.clock;
      const source = pieces[Symbol.asyncIterator]();
      async function* throttled(): AsyncGenerator<WritePiece> {
        for (;;) {
          const asked = clock.monotonicMs();
          const next = await source.next();
          peer.ms += clock.monotonicMs() - asked;
          if (next.done) return;
          const piece = next.value;
          await faults.throttle(piece.data.length);
          metrics.moved(h.ost.name, 'write', piece.data.length);
          peer.bytes += piece.data.length;
          yield piece;
        }
      }
      const { poolId, pg, objectId } = ref;
      const sync = options.sync ? { sync: true } : {};
      return h.ost.write(
        { objectId, poolId, pg, offset, length, declaredCrc, truncate, ...version, ...sync },
        throttled(),
      );
    });
  }

  /**
   * Streams a read: `onStart` gets the object size before the first span.
   * `onSpan` gets the pieces of one disk span at a time (ObjectStore.readSpans).
   * Pieces carry their true crc; a corrupt-read knob flips bits after it.
   * `readerVerifies`: the reader checks every piece (see ObjectStore.readSpans).
   */
  async read(
    ref: Ref,
    offset: number,
    length: number,
    onStart: (objectSize: number, blockStamps: BlockStamps) => Promise<void> | void,
    onSpan: (pieces: ReadPiece[]) => Promise<void> | void,
    opts: { readerVerifies?: boolean; tag?: RequestTag | undefined } = {},
  ): Promise<void> {
    const { readerVerifies = false, tag } = opts;
    await this.timed(ref.ostId, { op: 'read', tag }, async (peer) => {
      // The lease and the map it was given at come before the stale-map rule, which needs that map.
      const h = await this.begin(ref, 'read', 'read', async (h) => {
        await this.refuseWithoutLease(h);
        await this.refuseAheadOfList(h, ref.mapEpoch);
        await this.refuseBehindLease(h);
      });
      this.stalePgs.check(ref.ostId, h.ost.name, ref);
      let size = 0;
      let stamps: BlockStamps = [];
      const spans = h.ost.readSpans(
        ref.objectId,
        offset,
        length,
        (s, blockStamps) => {
          size = s;
          stamps = blockStamps;
        },
        readerVerifies,
      );
      let started = false;
      const waitPeer = async (sent: Promise<void> | void): Promise<void> => {
        const at = this.clock.monotonicMs();
        await sent;
        peer.ms += this.clock.monotonicMs() - at;
      };
      for await (const pieces of spans) {
        if (!started) {
          started = true;
          await waitPeer(onStart(size, stamps));
        }
        let bytes = 0;
        for (const piece of pieces) {
          bytes += piece.data.length;
          piece.data = h.faults.corrupt(piece.data);
        }
        await h.faults.throttle(bytes);
        this.metrics.moved(h.ost.name, 'read', bytes);
        peer.bytes += bytes;
        await waitPeer(onSpan(pieces));
      }
      if (!started) await waitPeer(onStart(size, stamps));
    });
  }

  /**
   * Applies the MDS's answer to a registration or heartbeat sent at `answer.sentAtMs` (monotonic):
   * marks the copies and whole PGs it lists as missing writes, clears PG marks it no longer lists,
   * and extends the read lease by `answer.readLeaseMs` from the sending time (0: no lease).
   */
  applyStaleCopies(
    list: readonly { ostId: number; objectIds: string[]; stalePgs?: { poolId: number; pg: number }[] }[],
    answer: { sentAtMs: number; readLeaseMs: number; mapEpoch?: number } = { sentAtMs: 0, readLeaseMs: 0 },
  ): void {
    const now = this.clock.monotonicMs();
    const ostIds = this.handles.flatMap((h) => (h.ost.id === undefined ? [] : [h.ost.id]));
    // The MDS made the list after the call was sent: marks from before it that the list leaves out
    // are of repairs done or dropped since (a MarkStale or an older answer that arrived late, after
    // the repair cleared the mark, would otherwise refuse the copy for good).
    if (answer.sentAtMs > 0)
      for (const h of this.handles) {
        if (h.ost.id === undefined) continue;
        const keep = new Set(list.find((l) => l.ostId === h.ost.id)?.objectIds ?? []);
        h.ost.keepStaleOnly(keep, answer.sentAtMs);
      }
    for (const { ostId, objectIds } of list)
      this.handles.find((h) => h.ost.id === ostId)?.ost.markStale(objectIds, now);
    this.stalePgs.replace(
      ostIds,
      list.map((l) => ({ ostId: l.ostId, pgs: l.stalePgs ?? [] })),
      answer.sentAtMs,
    );
    const until = answer.readLeaseMs > 0 ? answer.sentAtMs + answer.readLeaseMs : Number.POSITIVE_INFINITY;
    this.readLeaseUntilMs = Math.max(this.readLeaseUntilMs, until);
    this.lastAnswerSentAtMs = Math.max(this.lastAnswerSentAtMs, answer.sentAtMs);
    this.leaseMapEpoch = Math.max(this.leaseMapEpoch, answer.mapEpoch ?? 0);
    this.writeFence.leaseMs = answer.readLeaseMs;
    // No epoch (a caller that is not the MDS link): nothing is gated on it.
    this.staleListEpoch = Math.max(this.staleListEpoch, answer.mapEpoch ?? Number.MAX_SAFE_INTEGER);
  }

  /** The clock the lease is kept on (monotonic ms): the MDS link stamps its calls with it. */
  monotonicMs(): number {
    return this.clock.monotonicMs();
  }

  /** Whether reads are served now (the lease holds). */
  leaseHolds(): boolean {
    return this.clock.monotonicMs() < this.readLeaseUntilMs;
  }

  /**
   * A lapsed lease is renewed first: the read waits (at most LEASE_RENEW_WAIT_MS) for the answer
   * to a heartbeat sent after it began. That answer lists every skip the MDS accepted before the
   * read began (a skip is recorded before its write is acknowledged), so the read is safe once it
   * is applied, however late it came: a loaded MDS whose answers take longer than the lease itself
   * delays reads by one round trip instead of refusing them all.
   */
  private async refuseWithoutLease(h: OstHandle): Promise<void> {
    if (this.leaseHolds()) return;
    if (this.renewLease && this.readLeaseUntilMs > 0) {
      const beganMs = this.clock.monotonicMs();
      // A renewal already in flight may have been sent before this read began: then one more.
      await this.renewUntil(this.renewLease, () => this.lastAnswerSentAtMs >= beganMs);
      if (this.leaseHolds() || this.lastAnswerSentAtMs >= beganMs) return;
    }
    this.leaseRefusals++;
    throw new StripeError(
      'REQ_UNAVAILABLE',
      this.readLeaseUntilMs === 0
        ? `${h.ost.name} has not yet heard from the MDS which of its copies missed writes: read another copy or try again shortly`
        : `${h.ost.name} has not heard from the MDS for longer than its read lease and may have missed writes: read another copy or try again shortly`,
    );
  }

  /**
   * Asks the MDS (heartbeat renewals, one after another) until `done`, an ask goes unanswered (the
   * MDS away) or LEASE_RENEW_WAIT_MS have passed.
   */
  private async renewUntil(renew: () => Promise<unknown>, done: () => boolean): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let waitedOut = false;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        waitedOut = true;
        resolve();
      }, LEASE_RENEW_WAIT_MS);
    });
    while (!waitedOut && !done()) {
      const before = this.lastAnswerSentAtMs;
      await Promise.race([renew(), waited]);
      if (this.lastAnswerSentAtMs === before) break; // not answered (MDS away) or waited out
    }
    clearTimeout(timer);
  }

  /**
   * A read made with a map newer than the MDS's last stale list asks the MDS first, as a lapsed
   * lease does: it waits (at most LEASE_RENEW_WAIT_MS) for a heartbeat answer computed at its map
   * or a newer one, then is served, or refused (REQ_UNAVAILABLE, transient: readers take another copy).
   */
  private async refuseAheadOfList(h: OstHandle, readEpoch: number): Promise<void> {
    if (readEpoch <= this.staleListEpoch) return;
    // A renewal in flight may be answered from an older map: then one more.
    if (this.renewLease) await this.renewUntil(this.renewLease, () => this.staleListEpoch >= readEpoch);
    if (readEpoch <= this.staleListEpoch) return;
    throw new StripeError(
      'REQ_UNAVAILABLE',
      `${h.ost.name} has not yet heard from the MDS which of its copies to refuse under map epoch ${readEpoch}: read another copy or try again shortly`,
    );
  }

  /**
   * A lease given at a map this OSS has not applied yet (its answer came before the map stream's
   * message, or the OSS was cut off while the map changed) serves no read until that map is here:
   * the read fetches it (at most LEASE_RENEW_WAIT_MS), then the stale-map rule runs on it, or is
   * refused (REQ_UNAVAILABLE, transient).
   */
  private async refuseBehindLease(h: OstHandle): Promise<void> {
    if (this.mapView.epoch >= this.leaseMapEpoch) return;
    if (this.fetchMap) await raceTimeout(this.fetchMap(), LEASE_RENEW_WAIT_MS);
    if (this.mapView.epoch >= this.leaseMapEpoch) return;
    throw new StripeError(
      'REQ_UNAVAILABLE',
      `${h.ost.name} has not yet applied map epoch ${this.leaseMapEpoch}, at which the MDS last answered it: read another copy or try again shortly`,
    );
  }

  stat(ref: Ref): Promise<{ size: number; version: number; mtimeMs: number }> {
    return this.timed(ref.ostId, 'stat', async () => {
      const h = await this.begin(ref, 'meta');
      const meta = await h.ost.stat(ref.objectId);
      if (!meta) throw new StripeError('OBJ_NOT_FOUND', `object ${ref.objectId} not found on ${h.ost.name}`);
      return { size: meta.size, version: meta.version, mtimeMs: meta.mtimeMs };
    });
  }

  delete(ref: Ref): Promise<boolean> {
    return this.timed(ref.ostId, 'delete', async () => {
      const h = await this.begin(ref, 'write');
      return h.ost.delete(ref.objectId);
    });
  }

  flush(ref: Ref, tag?: RequestTag): Promise<void> {
    return this.timed(ref.ostId, { op: 'flush', tag }, async () => {
      const h = await this.begin(ref, 'write');
      await h.ost.flush(ref.objectId);
    });
  }

  list(ostId: number, poolId: number, pg: number, cursor: string, limit: number) {
    return this.timed(ostId, 'list', async () => {
      if (this.closing) throw new StripeError('REQ_UNAVAILABLE', 'the OSS is shutting down');
      const h = this.handle(ostId);
      await h.faults.before('meta');
      if (cursor) validateObjectId(cursor);
      return h.ost.list(poolId, pg, cursor, limit);
    });
  }

  setFaults(ostId: number, knobs: FaultKnobs | null): void {
    const h = this.handle(ostId);
    if (knobs) h.faults.set(knobs);
    else h.faults.clear();
  }

  /** Stops new requests, lets hung ones fail, waits up to graceMs for the rest. */
  async drain(graceMs: number): Promise<void> {
    this.closing = true;
    for (const h of this.handles) h.faults.releaseHang();
    if (this.inFlight === 0) return;
    await Promise.race([
      new Promise<void>((resolve) => {
        this.drained = resolve;
      }),
      new Promise((resolve) => setTimeout(resolve, graceMs)),
    ]);
  }
}
