// Reads and writes of one object range with fail-over, as the copy rules
// (client/copy-rules.ts) decide: a replica that errors, times out or fails its
// checksum is skipped for the next; a moving PG's old holders are asked before
// a range is called a hole; an ec chunk that cannot be read is rebuilt from k
// others (client/ec-read.ts); a write skips down copies under min_size; bad
// and skipped copies are reported to the MDS for repair. When nothing works
// the error names the objects and OSTs. This file only carries decisions out.
import { type Pieces, piecesLength, segmentChecksums } from '../common/bulk/frame.js';
import { StripeError } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';
import type { ObjectRefFields as ObjectRef } from '../wire/index.js';
import type { BlockPool } from './block-pool.js';
import { CopyIo, codeOf } from './copy-io.js';
import {
  copiesToWrite,
  ecRunPlan,
  endsAttempt,
  type Failure,
  flushVerdict,
  holdersToRead,
  refusedByEvery,
  replicaVerdict,
  tryOrder,
  writeVerdict,
} from './copy-rules.js';
import type { ClientCounters } from './counters.js';
import { EcRead } from './ec-read.js';
import { EcRebuild, type EcSiblings } from './ec-rebuild.js';
import type { FileLayout } from './layout.js';
import { locateEcChunks, locateObject, type ObjectTarget } from './locate.js';
import type { MapView } from './map.js';
import type { PartPlaces } from './object-transport.js';
import type { OssEndpoint, OssPool } from './oss-pool.js';
import type { OstHealth } from './ost-health.js';
import { isTransientRequestCode, type RetryDeps, withRetries } from './retry.js';
import { recordSkipped } from './skip-report.js';
import { VersionClock } from './version-clock.js';

export type { EcSiblings } from './ec-rebuild.js';

/** Writes made again after the MDS refused a skip as made with an older map (each with a refreshed map). */
const SKIP_REWRITES_MAX = 3;

/** A copy a write went to: flushed at sync unless the write was a sync write the OSS answered durable. */
export interface Touched {
  ost: number;
  endpoint: OssEndpoint;
  ref: ObjectRef;
  /** Every write of this copy acknowledged so far is durable: no Flush needed. */
  durable: boolean;
}

/** What the placed copies of a replicated object gave: the whole range, or what failed and a short copy. */
type Placed = { data: Buffer } | { data?: undefined; failures: Failure[]; short: Buffer | undefined };

export class ObjectIo {
  private readonly copies: CopyIo;
  private readonly ec: EcRead;
  /** This client's version stamps: one per write, shared by its copies and retries (every chunk of an ec stripe). */
  readonly versions = new VersionClock();

  constructor(
    private readonly deps: RetryDeps & {
      pool: OssPool;
      counters: ClientCounters;
      health: OstHealth;
      /** Where a rebuild takes its buffers and gives back the ones only it used. */
      blocks: BlockPool;
    },
  ) {
    this.copies = new CopyIo(deps);
    const rebuild = new EcRebuild({ ...deps, copies: this.copies });
    this.ec = new EcRead({ ...deps, copies: this.copies, rebuild });
  }

  /** raid0 / replicated: bytes [offset, offset+length) of object `objectIndex`, from the first replica that answers. */
  readReplicated(
    fileLayout: FileLayout,
    inode: number,
    objectIndex: number,
    offset: number,
    length: number,
  ): Promise<Buffer> {
    // Once the placed copies were read again after the PG's holders were asked (kept across retries).
    let lookedAgain = false;
    const attempt = async (view: MapView): Promise<Buffer> => {
      const target = locateObject(view, fileLayout, inode, objectIndex);
      const placed = await this.readPlaced(view, target, offset, length);
      if (placed.data) return placed.data;
      const { failures, short } = placed;
      const seen = { failures, short: short !== undefined, holdersAsked: false, lookedAgain };
      let verdict = replicaVerdict(seen);
      if (verdict.do === 'ask-holders') {
        const found = await this.readOldHolders(view, target, offset, length, failures, verdict.wholeOnly);
        if (found) return found;
        verdict = replicaVerdict({ ...seen, holdersAsked: true });
      }
      switch (verdict.do) {
        case 'serve-short':
          return short as Buffer;
        case 'zeros':
          return Buffer.alloc(length);
        case 'look-again':
          lookedAgain = true;
          return attempt(this.deps.mds.mapView);
        default: {
          const refused = refusedByEvery(failures);
          if (refused)
            throw new StripeError(
              refused,
              `every copy of ${target.objectId} refused this client (${refused})`,
              {
                objects: [target.objectId],
                failures,
              },
            );
          throw new StripeError('IO_DEGRADED', `no replica of ${target.objectId} could be read`, {
            objects: [target.objectId],
            osts: target.osts,
            failures,
          });
        }
      }
    };
    return withRetries(this.deps, attempt);
  }

  /**
   * The placed copies in the order to try them (copy-rules tryOrder), until one has the whole
   * range. A copy shorter than the range may be one that missed writes while its OST was down:
   * a full answer from another copy is preferred, and the short one kept for the verdict.
   */
  private async readPlaced(
    view: MapView,
    target: ObjectTarget,
    offset: number,
    length: number,
  ): Promise<Placed> {
    const failures: Failure[] = [];
    const order = tryOrder(view, this.deps.health, target.osts);
    let short: Buffer | undefined;
    for (const [rank, ost] of order.entries()) {
      const giveUp = this.copies.giveUpUnless(view, ost, () => order.slice(rank + 1));
      const read = await this.copies.read(view, target, ost, offset, length, giveUp);
      if (read.ok && read.short) short ??= read.data;
      else if (read.ok) {
        if (rank > 0) this.deps.counters.degradedReads++;
        return { data: read.data };
      } else {
        failures.push({ ost, code: read.code });
        this.copies.report(ost, target.objectId, read.code);
        if (endsAttempt(read.code)) throw read.error;
      }
    }
    return { failures, short };
  }

  /**
   * Reads from the PG's old holders that the placement no longer names; undefined when none
   * has the object (`wholeOnly`: none has the whole range; a short answer is passed over).
   * Their failures are added to `failures`.
   */
  private async readOldHolders(
    view: MapView,
    target: ObjectTarget,
    offset: number,
    length: number,
    failures: Failure[],
    wholeOnly: boolean,
  ): Promise<Buffer | undefined> {
    const answer = await this.copies.holdersOf(view, target);
    const tried = new Set([...failures.map((f) => f.ost), ...(wholeOnly ? target.osts : [])]);
    let short: Buffer | undefined;
    for (const ost of holdersToRead(answer, tried)) {
      const read = await this.copies.read(view, target, ost, offset, length);
      if (!read.ok) failures.push({ ost, code: read.code });
      else if (!read.short) {
        this.deps.counters.degradedReads++;
        return read.data;
      } else if (!wholeOnly) short ??= read.data;
    }
    if (short) this.deps.counters.degradedReads++;
    return short;
  }

  /** ec: bytes [chunkOffset, chunkOffset+length) of data chunk `chunk` (client/ec-read.ts). */
  readEc(
    fileLayout: FileLayout,
    inode: number,
    chunk: number,
    chunkOffset: number,
    length: number,
    siblings?: EcSiblings,
  ): Promise<Buffer> {
    return this.ec.range(fileLayout, inode, chunk, chunkOffset, length, siblings);
  }

  /**
   * Readahead's one-request fetch of blocks back to back in one object
   * (client/prefetch-runs.ts): one attempt at the copy a read would try first
   * (a healthy, up replica; an ec chunk's own OST, or a rebuild around it),
   * each part handed to `onPart` as it arrives. Whatever it did not hand over
   * (an error, a short copy, no healthy copy, no bulk path), the caller
   * fetches one by one, with every fail-over and rebuild a read has.
   * `into`: where parts read from a copy land (a large read's own buffer);
   * rebuilt parts come in buffers of their own.
   */
  readRun(
    fileLayout: FileLayout,
    inode: number,
    objectIndex: number,
    objectOffset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer) => void,
    siblingsOf?: (index: number) => EcSiblings,
    into?: PartPlaces,
  ): Promise<void> {
    if (fileLayout.layout.pattern === 'ec')
      return this.ec.run(fileLayout, inode, objectIndex, objectOffset, lengths, onPart, siblingsOf, into);
    const view = this.deps.mds.mapView;
    const target = locateObject(view, fileLayout, inode, objectIndex);
    const ost = tryOrder(view, this.deps.health, target.osts)[0];
    return this.copies.readRun(view, target, ost, objectOffset, lengths, onPart, into);
  }

  /**
   * Whether a run of object `objectIndex` would be read from a copy as it is: always for raid0
   * and replicated (a failed run falls back block by block), for an ec data chunk only while its
   * OST is up, healthy and not slow (otherwise the run is a rebuild: copy-rules ecRunPlan).
   */
  readsRunAsStored(fileLayout: FileLayout, inode: number, objectIndex: number): boolean {
    if (fileLayout.layout.pattern !== 'ec') return true;
    const view = this.deps.mds.mapView;
    const ost = locateEcChunks(view, fileLayout, inode)[objectIndex]?.osts[0];
    return ecRunPlan(view, this.deps.health, ost) === 'direct';
  }

  /**
   * Writes `data` at `offset` to the copies copy-rules copiesToWrite names, returning what to flush at sync.
   * `truncate`: each copy ends at offset + data.length afterwards (an empty write at N cuts the object to N bytes).
   * `stamp`: the write's version stamp (the writer of an ec stripe gives its chunks one); a new one by default.
   * `sync`: each copy is made durable before it answers (a flush in the same request); the copies
   * that say so come back `durable`, and need no flush.
   */
  async writeTarget(
    locate: (view: MapView) => ObjectTarget,
    offset: number,
    /** One buffer, or several back to back in the object (a run of stripe units): one request per copy. */
    data: Pieces,
    options: { truncate?: boolean; stamp?: number; sync?: boolean } = {},
  ): Promise<Touched[]> {
    const stamp = options.stamp ?? this.versions.next();
    const writeOptions = { truncate: options.truncate ?? false, stamp, sync: options.sync ?? false };
    // Once for every replica and every retry: the bulk path's per-segment crcs, and from them the whole crc.
    const checksums = segmentChecksums(data, offset, LIMITS.checksumBlockBytes);
    for (let rewrites = 0; ; rewrites++) {
      const written = await this.writeCopies(locate, offset, data, checksums, writeOptions);
      try {
        // Copies skipped because their OST is down missed this write: acknowledged once the MDS recorded them.
        await Promise.all(written.skipped.map((copy) => recordSkipped(this.deps, copy)));
        return written.touched;
      } catch (err) {
        // A skip of a copy whose PG moved (the map used was older): written again with the newer map.
        if (!(err instanceof StripeError && err.code === 'MAP_STALE') || rewrites >= SKIP_REWRITES_MAX)
          throw err;
        await this.deps.mds.refreshMap().catch(() => undefined /* no newer map: the rewrite finds out */);
      }
    }
  }

  /** One write of every copy (copy-rules copiesToWrite), with the data path's retries: what was written and what was skipped. */
  private writeCopies(
    locate: (view: MapView) => ObjectTarget,
    offset: number,
    data: Pieces,
    checksums: ReturnType<typeof segmentChecksums>,
    writeOptions: { truncate: boolean; stamp: number; sync: boolean },
  ): Promise<{
    touched: Touched[];
    skipped: { ost: number; objectId: string; poolId: number; pg: number }[];
  }> {
    const length = piecesLength(data);
    const checksum = checksums.whole;
    const { counters } = this.deps;
    return withRetries(this.deps, async (view) => {
      const target = locate(view);
      if (target.osts.length === 0)
        throw new StripeError('IO_FAILED', `no OST holds ${target.objectId}`, { objects: [target.objectId] });
      const started = performance.now();
      const touched: Touched[] = copiesToWrite(view, target.poolId, target.pg, target.osts).map((ost) => {
        const endpoint = this.copies.endpoint(view, ost);
        if (!endpoint)
          throw new StripeError('IO_FAILED', `OST ${ost} has no address`, {
            objects: [target.objectId],
            osts: [ost],
          });
        return { ost, endpoint, ref: this.copies.ref(target, ost), durable: false };
      });
      const results = await Promise.allSettled(
        touched.map((t) =>
          this.deps.pool.writeChunk(t.endpoint, t.ref, offset, data, checksum, checksums, writeOptions),
        ),
      );
      counters.latencies.record('writeChunk', performance.now() - started);
      const failures: Failure[] = [];
      results.forEach((result, i) => {
        const ost = (touched[i] as Touched).ost;
        if (result.status === 'fulfilled') {
          counters.addOstBytes(counters.bytesWrittenPerOst, ost, length);
          // A copy already past this stamp (another writer's clock runs ahead): the next write is newer.
          this.versions.observe(result.value.version);
          (touched[i] as Touched).durable = result.value.durable;
        } else failures.push({ ost, code: codeOf(result.reason) });
      });
      const sent = touched.map((t) => t.ost);
      const verdict = writeVerdict(target.osts, sent, failures, isTransientRequestCode);
      if (verdict.do === 'fail')
        throw new StripeError(
          verdict.code,
          `writing ${target.objectId} failed on OSTs ${failures.map((f) => f.ost).join(',')}`,
          {
            objects: [target.objectId],
            osts: target.osts,
            failures,
            mapStale: verdict.mapStale,
          },
        );
      const { objectId, poolId, pg } = target;
      const skipped = verdict.skipped.map((ost) => ({ ost, objectId, poolId, pg }));
      return { touched, skipped };
    });
  }

  /**
   * fsyncs every written copy at its OSS (each retried like any request), except copies a sync
   * write already made durable. A copy whose OST the map marks down is not waited for (a flush in
   * flight to it is given up when the map says so); what the object's flush comes to is
   * copy-rules flushVerdict's, the durable copies counted as flushed.
   */
  async flushAll(touched: Touched[]): Promise<void> {
    const byObject = new Map<string, Touched[]>();
    for (const t of touched) {
      const id = t.ref.objectId ?? '';
      const copies = byObject.get(id);
      if (copies) copies.push(t);
      else byObject.set(id, [t]);
    }
    const unflushed = [...byObject.values()].filter((copies) => copies.some((t) => !t.durable));
    await Promise.all(unflushed.map((copies) => this.flushCopies(copies)));
  }

  private async flushCopies(copies: Touched[]): Promise<void> {
    const results = await Promise.allSettled(
      copies.map((t) => (t.durable ? Promise.resolve(true) : this.flushCopy(t))),
    );
    // Copies not flushed: failed (their code), or not sent because their OST is down.
    const failures = copies.flatMap((t, i): Failure[] => {
      const r = results[i];
      if (r?.status === 'fulfilled') return r.value ? [] : [{ ost: t.ost, code: 'OST_DOWN' }];
      return [{ ost: t.ost, code: codeOf(r?.reason) }];
    });
    const ref = (copies[0] as Touched).ref;
    const poolId = ref.poolId ?? 0;
    const pg = ref.pg ?? 0;
    const verdict = flushVerdict(this.deps.mds.mapView, poolId, pg, copies.length, failures);
    if (verdict.do === 'done') return;
    if (verdict.do === 'leave-to-repair') {
      const objectId = ref.objectId ?? '';
      await Promise.all(verdict.osts.map((ost) => recordSkipped(this.deps, { ost, objectId, poolId, pg })));
      return;
    }
    throw new StripeError(
      'IO_FAILED',
      `flushing ${ref.objectId} failed on OSTs ${failures.map((f) => f.ost).join(',')} ` +
        `(${verdict.flushed} of ${copies.length} copies flushed, too few for the pool's min_size)`,
      { objects: [ref.objectId], osts: copies.map((t) => t.ost), failures },
    );
  }

  /**
   * fsync of one copy; false when its OST is marked down (not flushed). A failure names its OST,
   * so retries that run out against an OSS the MDS still calls up (killed or hung, not yet marked
   * down) wait for the MDS's verdict, as a write does, instead of failing a flush min_size allows.
   */
  private flushCopy(t: Touched): Promise<boolean> {
    return withRetries(this.deps, async (view) => {
      if (view.osts.get(t.ost)?.up === false) return false;
      try {
        await this.deps.pool.flush(t.endpoint, t.ref);
      } catch (err) {
        if (!(err instanceof StripeError) || Array.isArray(err.details.failures)) throw err;
        throw new StripeError(err.code, err.message, {
          ...err.details,
          failures: [{ ost: t.ost, code: err.code }],
        });
      }
      return true;
    });
  }
}
