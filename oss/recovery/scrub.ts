// Scrub: re-reads every object of this OSS's OSTs at a bounded rate and
// verifies each 64 KiB block against its stored crc32c (the read path's own
// check). A bad object is reported to the MDS (ReportBadChunk with its pool
// and PG), which schedules a one-object repair from a good copy through the
// recovery machinery. Runs in the background every scrubIntervalMs and on
// demand (POST /api/scrub).
import { StripeError } from '../../common/errors.js';
import type { Logger } from '../../common/logging.js';
import type { OssCore, OstHandle } from '../ops.js';
import { SCRUB_REPORTED_MAX, SCRUB_SLICE_BYTES } from './limits.js';
import { TokenBucket } from './token-bucket.js';

export interface BadObject {
  ostId: number;
  objectId: string;
  poolId: number;
  pg: number;
  reason: string;
  repairScheduled: boolean;
}

export interface ScrubReport {
  startedAtMs: number;
  finishedAtMs: number;
  objectsScanned: number;
  bytesScanned: number;
  errorsFound: number;
  bad: BadObject[];
}

export type BadChunkReporter = (bad: Omit<BadObject, 'repairScheduled'>) => Promise<boolean>;

export class Scrubber {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<ScrubReport> | undefined;
  private stopped = false;
  last: ScrubReport | undefined;
  totals = { passes: 0, objectsScanned: 0, bytesScanned: 0, errorsFound: 0 };

  constructor(
    private readonly core: OssCore,
    private readonly report: BadChunkReporter,
    private readonly opts: { bytesPerSec: number; intervalMs: number },
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(
      () =>
        void this.run().catch((err: unknown) =>
          this.logger.warn(
            { err: (err as Error).message },
            'scheduled scrub failed; the next interval runs it again',
          ),
        ),
      this.opts.intervalMs,
    );
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** One pass over every OST (or one); a pass already running is joined. */
  run(ostId?: number): Promise<ScrubReport> {
    this.running ??= this.pass(ostId).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async pass(ostId: number | undefined): Promise<ScrubReport> {
    const report: ScrubReport = {
      startedAtMs: Date.now(),
      finishedAtMs: 0,
      objectsScanned: 0,
      bytesScanned: 0,
      errorsFound: 0,
      bad: [],
    };
    const bucket = new TokenBucket(this.opts.bytesPerSec);
    for (const h of this.core.handles) {
      if (h.ost.id === undefined || (ostId !== undefined && h.ost.id !== ostId)) continue;
      await this.scrubOst(h, bucket, report);
    }
    report.finishedAtMs = Date.now();
    this.last = report;
    this.totals.passes++;
    this.logger.info({ ...report, bad: report.bad.length }, 'scrub pass done');
    return report;
  }

  private async scrubOst(h: OstHandle, bucket: TokenBucket, report: ScrubReport): Promise<void> {
    const ostId = h.ost.id as number;
    for await (const meta of h.ost.objects()) {
      if (this.stopped || this.core.closing) return;
      const objectId = meta.objectId;
      const reason = await this.verify(h, objectId, meta.size, bucket);
      report.objectsScanned++;
      report.bytesScanned += meta.size;
      this.totals.objectsScanned++;
      this.totals.bytesScanned += meta.size;
      if (!reason) continue;
      report.errorsFound++;
      this.totals.errorsFound++;
      const bad = { ostId, objectId, poolId: meta.poolId, pg: meta.pg, reason };
      // An MDS that cannot be told: the copy is reported as not scheduled, and the next scrub finds it again.
      const repairScheduled = await this.report(bad).catch(() => false);
      if (report.bad.length < SCRUB_REPORTED_MAX) report.bad.push({ ...bad, repairScheduled });
    }
  }

  /** Reads the whole object; returns the error code when a block fails, else undefined. */
  private async verify(
    h: OstHandle,
    objectId: string,
    size: number,
    bucket: TokenBucket,
  ): Promise<string | undefined> {
    try {
      for (let offset = 0; offset < size; offset += SCRUB_SLICE_BYTES) {
        const length = Math.min(SCRUB_SLICE_BYTES, size - offset);
        await bucket.take(length);
        for await (const span of h.ost.readSpans(objectId, offset, length, () => undefined)) {
          // verified block by block by the store before the span is handed out
          span[span.length - 1]?.release?.();
        }
      }
      return undefined;
    } catch (err) {
      if (err instanceof StripeError && err.code === 'OBJ_NOT_FOUND') return undefined; // deleted meanwhile
      const code = err instanceof StripeError ? err.code : 'REQ_INTERNAL';
      if (code === 'OBJ_CHECKSUM') this.core.metrics.checksumError(h.ost.name);
      return code;
    }
  }
}
