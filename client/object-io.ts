// Reads and writes of one object range with fail-over: a replica that errors,
// times out or fails its checksum is skipped for the next; an ec chunk that
// cannot be read is rebuilt from any k others; bad chunks are reported to the
// MDS for repair. When nothing works the error names the objects and OSTs.
import { isErrorCode, StripeError } from '../common/errors.js';
import type { ObjectRef } from '../proto/index.js';
import type { ClientCounters } from './counters.js';
import { reconstruct } from './ec.js';
import type { FileLayout } from './layout.js';
import { locateEcChunks, locateObject, type ObjectTarget } from './locate.js';
import type { MapView } from './map.js';
import type { OssPool } from './oss-pool.js';
import { type RetryDeps, withRetries } from './retry.js';

export interface Touched {
  ost: number;
  address: string;
  ref: ObjectRef;
}

interface Failure {
  ost: number;
  code: string;
}

/** Codes that mean this copy is bad (not merely unreachable): report it for repair. */
const BAD_COPY = new Set(['OBJ_CHECKSUM', 'OBJ_NOT_FOUND']);

export class ObjectIo {
  constructor(private readonly deps: RetryDeps & { pool: OssPool; counters: ClientCounters }) {}

  private ref(target: ObjectTarget, ost: number): ObjectRef {
    return {
      ostId: ost,
      objectId: target.objectId,
      poolId: target.poolId,
      pg: target.pg,
      mapEpoch: target.epoch,
    };
  }

  private address(view: MapView, ost: number): string | undefined {
    const endpoint = view.osts.get(ost);
    return endpoint?.grpcAddress ? endpoint.grpcAddress : undefined;
  }

  private report(ost: number, objectId: string, code: string): void {
    if (!BAD_COPY.has(code)) return;
    this.deps.counters.badChunksReported++;
    this.deps.mds.reportBadChunk(ost, objectId, code).catch(() => undefined);
  }

  /** One read attempt on one OST; short answers are zero padded (sparse tail). */
  private async readOne(
    view: MapView,
    target: ObjectTarget,
    ost: number,
    offset: number,
    length: number,
  ): Promise<Buffer> {
    const address = this.address(view, ost);
    if (!address) throw new StripeError('REQ_UNAVAILABLE', `OST ${ost} has no address`);
    const started = performance.now();
    const data = await this.deps.pool.readRange(address, this.ref(target, ost), offset, length);
    this.deps.counters.latencies.record('readChunk', performance.now() - started);
    this.deps.counters.addOstBytes(this.deps.counters.bytesReadPerOst, ost, data.length);
    if (data.length === length) return data;
    const padded = Buffer.alloc(length);
    data.copy(padded);
    return padded;
  }

  private upFirst(view: MapView, osts: number[]): number[] {
    const up = (ost: number): boolean => view.osts.get(ost)?.up ?? false;
    return [...osts.filter(up), ...osts.filter((o) => !up(o))];
  }

  /** raid0 / replicated: bytes [offset, offset+length) of object `objectIndex`, from the first replica that answers. */
  readReplicated(
    fileLayout: FileLayout,
    inode: number,
    objectIndex: number,
    offset: number,
    length: number,
  ): Promise<Buffer> {
    return withRetries(this.deps, async (view) => {
      const target = locateObject(view, fileLayout, inode, objectIndex);
      const failures: Failure[] = [];
      for (const [rank, ost] of this.upFirst(view, target.osts).entries()) {
        try {
          const data = await this.readOne(view, target, ost, offset, length);
          if (rank > 0) this.deps.counters.degradedReads++;
          return data;
        } catch (err) {
          const code = err instanceof StripeError ? err.code : 'REQ_INTERNAL';
          failures.push({ ost, code });
          this.report(ost, target.objectId, code);
          if (code === 'MAP_STALE') throw err;
        }
      }
      // Every copy says "no such object": a hole (never written), which reads as zeros.
      if (failures.length > 0 && failures.every((f) => f.code === 'OBJ_NOT_FOUND'))
        return Buffer.alloc(length);
      throw new StripeError('IO_DEGRADED', `no replica of ${target.objectId} could be read`, {
        objects: [target.objectId],
        osts: target.osts,
        failures,
      });
    });
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
  ): Promise<Buffer> {
    return withRetries(this.deps, async (view) => {
      const targets = locateEcChunks(view, fileLayout, inode);
      const primary = targets[chunk] as ObjectTarget;
      const primaryOst = primary.osts[0];
      const failures: Failure[] = [];
      if (primaryOst !== undefined && (view.osts.get(primaryOst)?.up ?? false)) {
        try {
          return await this.readOne(view, primary, primaryOst, chunkOffset, length);
        } catch (err) {
          const code = err instanceof StripeError ? err.code : 'REQ_INTERNAL';
          if (code === 'MAP_STALE') throw err;
          failures.push({ ost: primaryOst, code });
          this.report(primaryOst, primary.objectId, code);
        }
      } else {
        failures.push({ ost: primaryOst ?? -1, code: 'OST_DOWN' });
      }
      return this.rebuild(view, fileLayout, targets, chunk, chunkOffset, length, failures);
    });
  }

  private async rebuild(
    view: MapView,
    fileLayout: FileLayout,
    targets: ObjectTarget[],
    chunk: number,
    chunkOffset: number,
    length: number,
    failures: Failure[],
  ): Promise<Buffer> {
    const k = fileLayout.layout.k as number;
    const m = fileLayout.layout.m as number;
    const shards = Buffer.alloc((k + m) * length);
    const present = new Array<boolean>(k + m).fill(false);
    const candidates = this.upFirst(
      view,
      targets.map((_, j) => j).filter((j) => j !== chunk && targets[j]?.osts[0] !== undefined),
    ).filter((j) => j !== chunk);
    // Ask for exactly the k still needed at a time; ask more only when some fail.
    let next = 0;
    let have = 0;
    while (have < k && next < candidates.length) {
      const batch = candidates.slice(next, next + (k - have));
      next += batch.length;
      const results = await Promise.allSettled(
        batch.map((j) => {
          const target = targets[j] as ObjectTarget;
          return this.readOne(view, target, target.osts[0] as number, chunkOffset, length);
        }),
      );
      results.forEach((result, i) => {
        const j = batch[i] as number;
        const target = targets[j] as ObjectTarget;
        if (result.status === 'fulfilled') {
          shards.set(result.value, j * length);
          present[j] = true;
          have++;
        } else {
          const code = result.reason instanceof StripeError ? result.reason.code : 'REQ_INTERNAL';
          failures.push({ ost: target.osts[0] as number, code });
          this.report(target.osts[0] as number, target.objectId, code);
        }
      });
    }
    if (have < k) {
      throw new StripeError(
        'IO_DEGRADED',
        `only ${have} of the ${k} chunks needed to rebuild ${targets[chunk]?.objectId} could be read`,
        {
          objects: targets.map((t) => t.objectId),
          osts: targets.map((t) => t.osts[0] ?? -1),
          failures,
        },
      );
    }
    reconstruct(shards, k, m, present);
    this.deps.counters.degradedReads++;
    return Buffer.from(shards.subarray(chunk * length, (chunk + 1) * length));
  }

  /** Writes `data` at `offset` to every copy of a target (all must store it), returning what to flush at sync. */
  writeTarget(locate: (view: MapView) => ObjectTarget, offset: number, data: Uint8Array): Promise<Touched[]> {
    return withRetries(this.deps, async (view) => {
      const target = locate(view);
      if (target.osts.length === 0)
        throw new StripeError('IO_FAILED', `no OST holds ${target.objectId}`, { objects: [target.objectId] });
      const started = performance.now();
      const touched: Touched[] = target.osts.map((ost) => {
        const address = this.address(view, ost);
        if (!address)
          throw new StripeError('IO_FAILED', `OST ${ost} has no address`, {
            objects: [target.objectId],
            osts: [ost],
          });
        return { ost, address, ref: this.ref(target, ost) };
      });
      const results = await Promise.allSettled(
        touched.map((t) => this.deps.pool.writeChunk(t.address, t.ref, offset, data)),
      );
      this.deps.counters.latencies.record('writeChunk', performance.now() - started);
      const failures: Failure[] = [];
      results.forEach((result, i) => {
        const ost = (touched[i] as Touched).ost;
        if (result.status === 'fulfilled')
          this.deps.counters.addOstBytes(this.deps.counters.bytesWrittenPerOst, ost, data.length);
        else
          failures.push({
            ost,
            code: result.reason instanceof StripeError ? result.reason.code : 'REQ_INTERNAL',
          });
      });
      if (failures.length === 0) return touched;
      const stale = failures.some((f) => f.code === 'MAP_STALE');
      const final = failures.find(
        (f) =>
          ![
            'REQ_UNAVAILABLE',
            'REQ_TIMEOUT',
            'REQ_INTERNAL',
            'FAULT_INJECTED',
            'OBJ_WRITE_CHECKSUM',
            'MAP_STALE',
          ].includes(f.code),
      );
      throw new StripeError(
        final && isErrorCode(final.code) ? final.code : 'IO_FAILED',
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

  /** fsync one written copy at its OSS (retried like any request). */
  flushObject(t: Touched): Promise<void> {
    return withRetries(this.deps, () => this.deps.pool.flush(t.address, t.ref));
  }
}
