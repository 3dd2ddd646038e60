// RecoverPg on the OSS of the target OST: list the PG's objects on a source,
// decide per object whether the target needs it (see RecoverMode), and copy
// it in slices over the bulk path (replicated, or ec from the old holder of
// the same position) or rebuild the chunk from any k others (ec). Writes go
// through OssCore like any client write, so checksums, the stale-map rule and
// the fault knobs apply. A token bucket holds the task to its byte rate and
// an OSS-wide semaphore keeps recovery to a few objects beside client IO.
import { crc32c } from '../../common/checksum.js';
import { StripeError } from '../../common/errors.js';
import { LIMITS } from '../../common/limits.js';
import type { Logger } from '../../common/logging.js';
import { Semaphore } from '../../common/semaphore.js';
import type { OssCore } from '../ops.js';
import { blocksOf, mergePlan, rebuildSlice, type StampedSlice } from './ec-slice.js';
import {
  RECOVERY_LIST_PAGE,
  RECOVERY_OBJECTS_IN_FLIGHT_MAX,
  RECOVERY_OBJECTS_PER_TASK_MAX,
  RECOVERY_SLICE_BYTES,
} from './limits.js';
import type { ListedObject, SourcePool, SourceRef } from './sources.js';
import { TokenBucket } from './token-bucket.js';

export type RecoverMode = 'absent' | 'absent-or-size' | 'all';

export interface RecoverRequest {
  poolId: number;
  pg: number;
  targetOstId: number;
  position: number;
  rule: { kind: 'replicated' } | { kind: 'erasure'; k: number; m: number };
  sources: SourceRef[];
  mapEpoch: number;
  bytesPerSec: number;
  /** Bytes that may go before pacing starts (the MDS's pace is behind by this much). */
  creditBytes?: number;
  mode: RecoverMode;
  objectIds: string[];
}

export interface RecoverResult {
  objectsCopied: number;
  bytesCopied: number;
  objectsSkipped: number;
  objectsFailed: number;
}

const CHUNK_SUFFIX = /^(.*)\.c(\d+)$/;

/** ec chunk object id -> its group key (`<inode>.0.c3` -> `<inode>.0`). */
export function groupOf(objectId: string): string {
  return CHUNK_SUFFIX.exec(objectId)?.[1] ?? objectId;
}

/**
 * What a source's listing gives a task: replicated, its objects; ec, the groups of the chunks it
 * holds at its own position (`position`), each once. A source may also keep a chunk of a group at
 * another position, left from an earlier placement: keyed by group it made a second job, with that
 * chunk's version, which the copy then found changed on the source (the chunk at its position has
 * another) on every retry, and the PG was never clean (chaos --seed 8 --minutes 3). `objectIds`: a
 * repair's objects (ec chunk ids name their group), or none for the whole PG.
 */
export function listedFor(
  erasure: boolean,
  position: number,
  objects: readonly ListedObject[],
  objectIds: readonly string[],
): ListedObject[] {
  const wanted = new Set(objectIds.map((id) => (erasure ? groupOf(id) : id)));
  const own = erasure
    ? objects.filter((o) => CHUNK_SUFFIX.exec(o.objectId)?.[2] === String(position))
    : objects;
  const keyed = own.map((o) => ({
    objectId: erasure ? groupOf(o.objectId) : o.objectId,
    size: o.size,
    version: o.version,
  }));
  return wanted.size > 0 ? keyed.filter((o) => wanted.has(o.objectId)) : keyed;
}

interface Job {
  /** Object id on the target. */
  targetId: string;
  /** replicated: the object id; ec: the group key. */
  key: string;
  size: number;
  /** The source's version, which the copy takes and checks (ObjectStore WriteVersion.copyOf). */
  version: number;
  existed: boolean;
}

export class Recoverer {
  private readonly slots = new Semaphore(RECOVERY_OBJECTS_IN_FLIGHT_MAX);
  objectsRepaired = 0;
  readonly counters = { tasks: 0, tasksFailed: 0, objectsCopied: 0, bytesCopied: 0 };

  constructor(
    private readonly core: OssCore,
    private readonly pool: SourcePool,
    private readonly logger: Logger,
  ) {}

  async recoverPg(req: RecoverRequest): Promise<RecoverResult> {
    const h = this.core.handle(req.targetOstId);
    if (req.sources.length === 0) throw new StripeError('REQ_INVALID', 'RecoverPg without sources');
    // Made before the listing, so the time the listing takes is made up by the copies after it.
    const bucket = new TokenBucket(req.bytesPerSec, {
      creditBytes: req.creditBytes ?? 0,
      lagMsMax: LIMITS.recoveryPaceLagMsMax,
    });
    const listed = await this.listSource(req);
    const local = await this.listLocal(req);
    const jobs = this.jobsOf(req, listed, local);
    const result: RecoverResult = { objectsCopied: 0, bytesCopied: 0, objectsSkipped: 0, objectsFailed: 0 };
    result.objectsSkipped = listed.length - jobs.length;
    const perTask = new Semaphore(RECOVERY_OBJECTS_PER_TASK_MAX);
    let firstError: unknown;
    await Promise.all(
      jobs.map((job) =>
        perTask.run(() =>
          this.slots.run(async () => {
            try {
              await this.copy(req, job, bucket);
              // A fill leaves a copy's missed-write mark to its repair: its source may lack that
              // write too (an ec fill merges the chunks of the member placed meanwhile, which may
              // have missed it: mds/recovery/holders.ts, ecReturning), and clearing it served the write
              // before until the next heartbeat marked it again (chaos --seed 8 --minutes 3).
              if (req.objectIds.length > 0) h.ost.clearStale(job.targetId);
              result.objectsCopied++;
              result.bytesCopied += job.size;
            } catch (err) {
              result.objectsFailed++;
              firstError ??= err;
              await this.dropPartial(req, job);
            }
          }),
        ),
      ),
    );
    if (req.objectIds.length > 0) this.objectsRepaired += result.objectsCopied;
    // A repair that found nothing to copy is done as far as the MDS is concerned: stop refusing reads.
    if (result.objectsFailed === 0) for (const id of req.objectIds) h.ost.clearStale(id);
    this.counters.tasks++;
    this.counters.objectsCopied += result.objectsCopied;
    this.counters.bytesCopied += result.bytesCopied;
    if (result.objectsFailed > 0) {
      this.counters.tasksFailed++;
      this.logger.warn({ err: firstError, pg: `${req.poolId}/${req.pg}`, ...result }, 'recovery incomplete');
      const e = firstError instanceof StripeError ? firstError : undefined;
      throw new StripeError(
        e?.code ?? 'IO_DEGRADED',
        `PG ${req.poolId}/${req.pg}: ${result.objectsFailed} objects not recovered: ${(firstError as Error)?.message}`,
      );
    }
    return result;
  }

  /**
   * After a failed copy of an object the target lacked: a repair of a missing copy (mode `absent`
   * or `absent-or-size`) would take a partial copy left behind as present next time, so it is
   * deleted, unless a client write reached it meanwhile (its version is above the copy's). A fill
   * or a missed write's repair (mode `all`) copies every object again and its target refuses reads
   * until then, so nothing is deleted: the object may be one a client write created on the target
   * since the task listed it, the only copy of that write's chunk at an ec position (the
   * position's member). Deleting it lost an acknowledged write there: the fill's next attempt
   * merged the old holder's chunk into the empty object and the member served the stripe's chunk
   * from before (chaos --seed 2 --minutes 3, PG 2/4 placed back on ost 2). Best effort: the copy
   * error is what the task reports.
   */
  private async dropPartial(req: RecoverRequest, job: Job): Promise<void> {
    if (job.existed || req.mode === 'all') return;
    const ost = this.core.handle(req.targetOstId).ost;
    try {
      const meta = await ost.stat(job.targetId);
      if (meta && meta.version <= job.version) await ost.delete(job.targetId);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, objectId: job.targetId }, 'partial copy not removed');
    }
  }

  /** The PG's objects on the first source that answers (replicated ids, or ec group keys with chunk size). */
  private async listSource(req: RecoverRequest): Promise<ListedObject[]> {
    let lastError: unknown;
    for (const source of req.sources) {
      try {
        const objects = await this.pool.list(source, req.poolId, req.pg);
        return listedFor(req.rule.kind === 'erasure', source.position, objects, req.objectIds);
      } catch (err) {
        lastError = err;
      }
    }
    throw lastError;
  }

  private async listLocal(req: RecoverRequest): Promise<Map<string, number>> {
    const ost = this.core.handle(req.targetOstId).ost;
    const sizes = new Map<string, number>();
    let cursor = '';
    do {
      const page = await ost.list(req.poolId, req.pg, cursor, RECOVERY_LIST_PAGE);
      for (const o of page.objects) sizes.set(o.objectId, o.size);
      cursor = page.nextCursor;
    } while (cursor);
    return sizes;
  }

  private jobsOf(req: RecoverRequest, listed: ListedObject[], local: Map<string, number>): Job[] {
    return listed.flatMap((o) => {
      const targetId = req.rule.kind === 'erasure' ? `${o.objectId}.c${req.position}` : o.objectId;
      const have = local.get(targetId);
      const needed =
        req.mode === 'all' || have === undefined || (req.mode === 'absent-or-size' && have !== o.size);
      return needed
        ? [{ targetId, key: o.objectId, size: o.size, version: o.version, existed: have !== undefined }]
        : [];
    });
  }

  /**
   * Copies the object slice by slice. Replicated: each write names the source's version, and the
   * target refuses a slice (OBJ_NEWER_COPY) once a client write newer than the source reached it;
   * the task fails and is run again later. ec: merged block by block (mergeSlice), so the client
   * writes a target took since its PG moved stay and the rest comes from the source. A source that
   * took a write during the copy (its version moved) gave slices of two versions: the copy fails
   * too, and the target stays refused to readers.
   */
  private async copy(req: RecoverRequest, job: Job, bucket: TokenBucket): Promise<void> {
    let offset = 0;
    do {
      const length = Math.min(RECOVERY_SLICE_BYTES, job.size - offset);
      await bucket.take(length);
      const slice = await this.sliceOf(req, job, offset, length);
      if (req.rule.kind === 'erasure') await this.mergeSlice(req, job, offset, slice);
      else await this.writeLocal(req, job, offset, slice, { truncate: offset + length >= job.size });
      offset += length;
    } while (offset < job.size);
    await this.sourceUnchanged(req, job);
  }

  /**
   * Writes the blocks of an ec slice the target lacks or holds an older write of (mergePlan), each
   * run guarded by its blocks' stamps: a client write that reaches a block meanwhile makes the
   * run refused (OBJ_NEWER_COPY), and the object is copied again later.
   */
  private async mergeSlice(
    req: RecoverRequest,
    job: Job,
    offset: number,
    slice: StampedSlice,
  ): Promise<void> {
    const ost = this.core.handle(req.targetOstId).ost;
    const held = await ost.blockStamps(job.targetId, offset, slice.data.length);
    if (slice.data.length === 0) {
      if (held === undefined) await this.writeLocal(req, job, offset, slice, { truncate: true });
      return;
    }
    const B = ost.blockBytes;
    for (const run of mergePlan(slice.stamps, held ?? [])) {
      const part = {
        data: slice.data.subarray(run.first * B, Math.min(slice.data.length, run.end * B)),
        stamps: slice.stamps.slice(run.first, run.end),
      };
      await this.writeLocal(req, job, offset + run.first * B, part, { truncate: false, guard: 'blocks' });
    }
  }

  /** Throws OBJ_NEWER_COPY when a source of the copy no longer holds the version the copy was made of. */
  private async sourceUnchanged(req: RecoverRequest, job: Job): Promise<void> {
    const source = req.sources.find((s) => req.rule.kind === 'replicated' || s.position === req.position);
    // An ec chunk rebuilt from k others has no copy of its own to compare with: its blocks were
    // rebuilt from chunks of one write each (their stamps), and merged under the target's guard.
    if (!source) return;
    const ref = {
      ostId: source.ostId,
      objectId: job.targetId,
      poolId: req.poolId,
      pg: req.pg,
      mapEpoch: req.mapEpoch,
    };
    const now = await this.pool.statVersion(source, ref);
    if (now !== job.version)
      throw new StripeError(
        'OBJ_NEWER_COPY',
        `${job.targetId} changed on OST ${source.ostId} during its copy (version ${job.version} -> ${now}): copied again later`,
      );
  }

  /** One slice of the target's object: copied from a holder of it, or rebuilt from k chunks. */
  private async sliceOf(
    req: RecoverRequest,
    job: Job,
    offset: number,
    length: number,
  ): Promise<StampedSlice> {
    if (length === 0) return { data: Buffer.alloc(0), stamps: [] };
    const same = req.sources.filter((s) => req.rule.kind === 'replicated' || s.position === req.position);
    let lastError: unknown;
    for (const source of same) {
      try {
        return await this.readFrom(req, source, job.targetId, offset, length);
      } catch (err) {
        lastError = err;
      }
    }
    if (req.rule.kind === 'replicated') throw lastError;
    const { k, m } = req.rule;
    const byPosition = new Map<number, SourceRef>();
    for (const s of req.sources)
      if (s.position !== req.position && s.position < k + m && !byPosition.get(s.position)?.inPlacement)
        byPosition.set(s.position, s);
    const ordered = [...byPosition.values()].sort((a, b) => Number(b.inPlacement) - Number(a.inPlacement));
    return rebuildSlice(
      ordered.map((s) => ({ position: s.position, current: s.inPlacement })),
      (s) => {
        const source = byPosition.get(s.position) as SourceRef;
        return this.readFrom(req, source, `${job.key}.c${s.position}`, offset, length);
      },
      { k, m, target: req.position, length, blockBytes: this.core.handle(req.targetOstId).ost.blockBytes },
    );
  }

  /** A slice of a source's copy, zero padded past its end (chunk objects are equal-sized; a short read is a hole). */
  private async readFrom(
    req: RecoverRequest,
    source: SourceRef,
    objectId: string,
    offset: number,
    length: number,
  ): Promise<StampedSlice> {
    const ref = { ostId: source.ostId, objectId, poolId: req.poolId, pg: req.pg, mapEpoch: req.mapEpoch };
    const { data, stamps } = await this.pool.bulkOf(source.bulkAddress).readStamped(ref, offset, length);
    const B = this.core.handle(req.targetOstId).ost.blockBytes;
    const blocks = blocksOf(length, B);
    // Blocks past the source's end (or from a source without stamps) hold no known write.
    const padded = Array.from({ length: blocks }, (_, b) => stamps?.[b] ?? 0);
    if (data.length === length) return { data, stamps: padded };
    const whole = Buffer.alloc(length);
    data.copy(whole);
    return { data: whole, stamps: padded };
  }

  private async writeLocal(
    req: RecoverRequest,
    job: Job,
    offset: number,
    slice: StampedSlice,
    opts: { truncate: boolean; guard?: 'blocks' },
  ): Promise<void> {
    const ref = {
      ostId: req.targetOstId,
      objectId: job.targetId,
      poolId: req.poolId,
      pg: req.pg,
      mapEpoch: req.mapEpoch,
    };
    const { data, stamps } = slice;
    async function* pieces(): AsyncGenerator<{ data: Buffer }> {
      if (data.length > 0) yield { data };
    }
    await this.core.write(ref, offset, data.length, crc32c(data), opts.truncate, pieces(), undefined, {
      copyOf: job.version,
      ...(data.length > 0 ? { blockStamps: stamps } : {}),
      ...(opts.guard ? { guard: opts.guard } : {}),
    });
  }
}
