// Staging files left by a gateway that died mid-PUT are removed once older
// than S3_LIMITS.stagingMaxAgeMs (their names carry their creation time):
// every identity's, by a client that may list them all (the gateway's own,
// usually an admin), else each identity's own as it is first used.
import type { StripeClient } from '../../client/index.js';
import { SCRATCH_ROOT } from '../../common/auth/scratch.js';
import { StripeError } from '../../common/errors.js';
import { stagingDirOf } from '../actors.js';
import { S3_LIMITS } from '../limits.js';
import { stagingCreatedMs } from './publish.js';

/** Removes the stale staging files of every identity's folder; returns how many. */
export async function sweepAllStaging(
  client: StripeClient,
  maxAgeMs: number,
  nowMs = Date.now(),
): Promise<number> {
  let removed = 0;
  let after: string | undefined;
  do {
    const page = await client.listPage(SCRATCH_ROOT, { after, limit: S3_LIMITS.listKeysMax });
    for (const entry of page.entries)
      if (entry.stat.isDirectory())
        removed += await sweepStaging(client, `${SCRATCH_ROOT}/${entry.name}`, maxAgeMs, nowMs);
    after = page.next;
  } while (after !== undefined);
  return removed;
}

/** Removes the stale staging files of one identity's folder (`scratch`); returns how many. */
export async function sweepStaging(
  client: StripeClient,
  scratch: string,
  maxAgeMs: number,
  nowMs = Date.now(),
): Promise<number> {
  const dir = stagingDirOf(scratch);
  let removed = 0;
  let after: string | undefined;
  do {
    const page = await client.listPage(dir, { after, limit: S3_LIMITS.listKeysMax }).catch((err: unknown) => {
      // A folder made but not yet its staging folder: nothing to sweep.
      if (err instanceof StripeError && err.code === 'NS_NOT_FOUND') return { entries: [], next: undefined };
      throw err;
    });
    for (const entry of page.entries) {
      const created = stagingCreatedMs(entry.name);
      // Names sort by creation time: past the first young one, all are young.
      if (!Number.isFinite(created) || nowMs - created < maxAgeMs) return removed;
      // Published or removed since it was listed: either way it is gone.
      await client.unlink(`${dir}/${entry.name}`).catch(() => undefined);
      removed++;
    }
    after = page.next;
  } while (after !== undefined);
  return removed;
}
