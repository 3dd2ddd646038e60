// One request to one copy, for the read drivers (client/object-io.ts,
// client/ec-read.ts, client/ec-rebuild.ts): it records the OST's health, the
// latency and the bytes per OST, and answers with a typed outcome that the
// copy rules (client/copy-rules.ts) decide on. Also the two questions asked of
// the MDS on the way: where a moving PG's data is, and a bad copy reported.
import type { BlockStamps } from '../common/block-stamps.js';
import { type ErrorCode, StripeError } from '../common/errors.js';
import type { ObjectRefFields as ObjectRef } from '../wire/index.js';
import { withStamps } from './block-stamps.js';
import { holdersTooNew, isBadCopy, isHealthy, isPastEnd, mayGiveUp } from './copy-rules.js';
import type { ClientCounters } from './counters.js';
import type { ObjectTarget } from './locate.js';
import type { MapView } from './map.js';
import type { MdsClient, PgHolders } from './mds-client.js';
import type { PartPlaces } from './object-transport.js';
import type { OssEndpoint, OssPool, ReadAnswer, RunAnswer } from './oss-pool.js';
import type { OstHealth } from './ost-health.js';

/**
 * A read of one copy: its bytes (`short`: the copy ended inside the range; zero padded) with the
 * block stamps the OSS answered with (undefined: none known), or why not.
 */
export type CopyRead =
  | { ok: true; data: Buffer; short: boolean; stamps: BlockStamps | undefined }
  | { ok: false; code: ErrorCode; error: unknown };

export function codeOf(err: unknown): ErrorCode {
  return err instanceof StripeError ? err.code : 'REQ_INTERNAL';
}

function failed(error: unknown): CopyRead {
  return { ok: false, code: codeOf(error), error };
}

export interface CopyIoDeps {
  mds: MdsClient;
  pool: OssPool;
  counters: ClientCounters;
  health: OstHealth;
}

export class CopyIo {
  constructor(private readonly deps: CopyIoDeps) {}

  ref(target: ObjectTarget, ost: number): ObjectRef {
    return {
      ostId: ost,
      objectId: target.objectId,
      poolId: target.poolId,
      pg: target.pg,
      mapEpoch: target.epoch,
    };
  }

  endpoint(view: MapView, ost: number): OssEndpoint | undefined {
    const endpoint = view.osts.get(ost);
    return endpoint?.grpcAddress ? endpoint : undefined;
  }

  /** Reports a copy that answered a bad-copy code (copy-rules isBadCopy) to the MDS for repair. */
  report(ost: number, objectId: string, code: ErrorCode): void {
    if (!isBadCopy(code)) return;
    this.deps.counters.badChunksReported++;
    // A report is advice to the MDS: the read goes on without it, and scrub finds a copy a lost report missed.
    this.deps.mds.reportBadChunk(ost, objectId, code).catch(() => undefined);
  }

  /** The give-up question of a read of `ost` queued behind others (copy-rules mayGiveUp), asked once it has its slots. */
  giveUpUnless(view: MapView, ost: number, stillToTry: () => Iterable<number | undefined>): () => boolean {
    return () => mayGiveUp(view, this.deps.health, ost, stillToTry());
  }

  /** One read of one copy; a short answer is zero padded (a sparse tail, or a copy still being filled). */
  async read(
    view: MapView,
    target: ObjectTarget,
    ost: number,
    offset: number,
    length: number,
    giveUp?: () => boolean,
  ): Promise<CopyRead> {
    const endpoint = this.endpoint(view, ost);
    if (!endpoint) return failed(new StripeError('REQ_UNAVAILABLE', `OST ${ost} has no address`));
    const started = performance.now();
    let answer: ReadAnswer;
    try {
      answer = await this.deps.pool.readRange(endpoint, this.ref(target, ost), offset, length, giveUp);
    } catch (err) {
      if (!isPastEnd(codeOf(err), offset)) {
        this.deps.health.record(ost, codeOf(err));
        return failed(err);
      }
      answer = { sent: true, data: Buffer.alloc(0), stamps: [] };
    }
    // Given up unsent: nothing learnt about the OST.
    if (!answer.sent)
      return failed(
        new StripeError('REQ_UNAVAILABLE', `skipped a read of ${target.objectId}: OST ${ost} is failing`),
      );
    const { data, stamps } = answer;
    this.deps.health.record(ost, undefined);
    this.deps.counters.latencies.record('readChunk', performance.now() - started);
    this.deps.counters.addOstBytes(this.deps.counters.bytesReadPerOst, ost, data.length);
    if (data.length === length) return { ok: true, data: withStamps(data, stamps), short: false, stamps };
    const padded = Buffer.alloc(length);
    data.copy(padded);
    return { ok: true, data: padded, short: true, stamps };
  }

  /**
   * One read of an ec chunk. Every chunk of an ec file has the same length and a read never
   * passes the file's end, so a chunk shorter than the range is not a sparse tail: it is one
   * a recovery or a move is still filling, slice by slice (or one that lost a write). It
   * fails with OBJ_SHORT like a missing chunk, and the range is rebuilt from k others.
   */
  async readChunk(
    view: MapView,
    target: ObjectTarget,
    ost: number,
    offset: number,
    length: number,
    giveUp?: () => boolean,
  ): Promise<CopyRead> {
    const read = await this.read(view, target, ost, offset, length, giveUp);
    if (!read.ok || !read.short) return read;
    return failed(
      new StripeError(
        'OBJ_SHORT',
        `${target.objectId} on OST ${ost} holds less than ${offset}+${length}: it is still being filled`,
        { objectId: target.objectId, ost },
      ),
    );
  }

  /**
   * Readahead's one request for parts back to back in one copy, each handed to `onPart` as it
   * arrives. Resolves once the request is over, whether or not every part came (not sent, or the
   * copy ended first: the caller reads the rest part by part); rejects when it failed. `into`:
   * where parts land (ObjectTransport's PartPlaces).
   */
  async readRun(
    view: MapView,
    target: ObjectTarget,
    ost: number | undefined,
    objectOffset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer, stamps?: BlockStamps) => void,
    into?: PartPlaces,
  ): Promise<void> {
    const { health, counters } = this.deps;
    if (!isHealthy(view, health, ost))
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
        (index, data, stamps) => {
          counters.addOstBytes(counters.bytesReadPerOst, ost, data.length);
          onPart(index, withStamps(data, stamps), stamps);
        },
        () => health.isSuspect(ost),
        into,
      );
    } catch (err) {
      health.record(ost, codeOf(err));
      throw err;
    }
    // Not sent, or the copy ended early: nothing learnt about the OST, and the caller reads what is left.
    if (!answer.sent || !answer.complete) return;
    health.record(ost, undefined);
    counters.latencies.record(lengths.length > 1 ? 'readRun' : 'readChunk', performance.now() - started);
  }

  /**
   * Where the PG's data is while it moves, as of the map the read used. A read decides from
   * this that a range is a hole (zeros), so an answer it cannot trust is an error, never
   * "clean": the MDS out of reach is REQ_UNAVAILABLE, and an answer for a newer map than the
   * read's (whose placement may differ) is MAP_STALE, which refreshes the map and retries.
   */
  async holdersOf(view: MapView, target: ObjectTarget): Promise<PgHolders> {
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
    if (holdersTooNew(answer, view.epoch))
      throw new StripeError(
        'MAP_STALE',
        `PG ${target.poolId}.${target.pg} was asked about at map epoch ${view.epoch}, the MDS is at ${answer.mapEpoch}`,
        { epoch: answer.mapEpoch, requestEpoch: view.epoch, mapStale: true },
      );
    return answer;
  }
}
