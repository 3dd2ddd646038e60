// A copy a write or flush skipped (its OST down, min_size allowing) is known
// only to the writer until the MDS has recorded it: an MDS that crashed
// before would never tell the returning OST that its copy is stale, and the
// OST would serve the old bytes. So the write is acknowledged only after the
// MDS answered ReportBadChunk (it answers once the record is on disk,
// mds/recovery/repairs.ts); a report the MDS cannot take now (down,
// restarting) is sent again with backoff for skipReportWaitMs, after which
// the write fails with the last error and is not acknowledged. A skip the MDS
// refuses as made with an older map (MAP_STALE: the skipped OST's PG moved)
// is thrown as it came: the write is made again with the newer map.
import { StripeError } from '../common/errors.js';
import type { Random } from '../common/random.js';
import { backoffMs, sleepMs } from './backoff.js';
import type { ClientLimits } from './limits.js';
import type { MdsClient } from './mds-client.js';
import { isTransient } from './retry.js';

export interface SkippedCopy {
  ost: number;
  objectId: string;
  poolId: number;
  pg: number;
}

export async function recordSkipped(
  deps: { mds: MdsClient; limits: ClientLimits; random: Random },
  skipped: SkippedCopy,
): Promise<void> {
  const { mds, limits, random } = deps;
  const deadlineMs = performance.now() + limits.skipReportWaitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      await mds.reportBadChunk(skipped.ost, skipped.objectId, 'WRITE_SKIPPED', skipped.poolId, skipped.pg);
      return;
    } catch (err) {
      const code = err instanceof StripeError ? err.code : 'REQ_INTERNAL';
      // The skipped copy's PG moved (the write used an older map): the caller writes again with the new one.
      if (code === 'MAP_STALE') throw err;
      const transient = isTransient(err) || code === 'REQ_TIMEOUT';
      if (!transient || performance.now() >= deadlineMs)
        throw new StripeError(
          'IO_FAILED',
          `the write skipped ${skipped.objectId} on OST ${skipped.ost} (down) and the MDS did not record ` +
            `the skip (${code}: ${(err as Error).message}): the write is not acknowledged; retry it once the MDS is up`,
          { objects: [skipped.objectId], osts: [skipped.ost], cause: code },
        );
      await sleepMs(
        Math.min(
          backoffMs(attempt, { baseMs: limits.backoffMsBase, maxMs: limits.backoffMsMax }, random),
          Math.max(0, deadlineMs - performance.now()),
        ),
      );
    }
  }
}
