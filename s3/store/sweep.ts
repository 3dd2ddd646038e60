// Staging files left by a gateway that died mid-PUT are removed once older
// than S3_LIMITS.stagingMaxAgeMs (their names carry their creation time).
import type { StripeClient } from '../../client/index.js';
import { STAGING_DIR } from '../keys.js';
import { S3_LIMITS } from '../limits.js';
import { stagingCreatedMs } from './publish.js';

/** Removes stale staging files; returns how many. */
export async function sweepStaging(
  client: StripeClient,
  maxAgeMs: number,
  nowMs = Date.now(),
): Promise<number> {
  let removed = 0;
  let after: string | undefined;
  do {
    const page = await client.listPage(STAGING_DIR, { after, limit: S3_LIMITS.listKeysMax });
    for (const entry of page.entries) {
      const created = stagingCreatedMs(entry.name);
      // Names sort by creation time: past the first young one, all are young.
      if (!Number.isFinite(created) || nowMs - created < maxAgeMs) return removed;
      // Published or removed since it was listed: either way it is gone.
      await client.unlink(`${STAGING_DIR}/${entry.name}`).catch(() => undefined);
      removed++;
    }
    after = page.next;
  } while (after !== undefined);
  return removed;
}
