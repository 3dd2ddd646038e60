// Removing a directory tree of the gateway's own state (an upload, a
// deleted bucket's uploads), a page at a time with bounded concurrency.
import type { StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { Semaphore } from '../../common/semaphore.js';
import { S3_LIMITS } from '../limits.js';

/** Removes `path` and everything under it; a path already gone is fine. */
export async function removeTree(client: StripeClient, path: string): Promise<void> {
  const slots = new Semaphore(S3_LIMITS.deleteConcurrency);
  for (;;) {
    let page: Awaited<ReturnType<StripeClient['listPage']>>;
    try {
      page = await client.listPage(path, { limit: S3_LIMITS.listKeysMax });
    } catch (err) {
      if (err instanceof StripeError && err.code === 'NS_NOT_FOUND') return;
      throw err;
    }
    if (page.entries.length === 0) break;
    await Promise.all(
      page.entries.map((entry) =>
        slots.run(async () => {
          const child = `${path}/${entry.name}`;
          if (entry.stat.isDirectory()) await removeTree(client, child);
          else await client.unlink(child).catch(ignoreGone);
        }),
      ),
    );
  }
  await client.rmdir(path).catch(ignoreGone);
}

function ignoreGone(err: unknown): void {
  if (err instanceof StripeError && err.code === 'NS_NOT_FOUND') return;
  throw err;
}
