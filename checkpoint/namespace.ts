// The checkpoint API's namespace operations over StripeClient: small files
// written whole, the publishing rename, and deleting a flat directory.

import type { Layout, Stat, StripeClient } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import { Semaphore } from '../common/semaphore.js';
import { CHECKPOINT_BOUNDS } from './limits.js';
import { joinPath, stepName } from './names.js';

export function isCode(err: unknown, ...codes: string[]): boolean {
  return err instanceof StripeError && codes.includes(err.code);
}

/** Runs `work` on every item, at most `limit` at once; results in item order. */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const gate = new Semaphore(Math.max(1, Math.min(limit, items.length)));
  return Promise.all(items.map((item) => gate.run(() => work(item))));
}

/** A directory's entries with their attributes; none when it does not exist. */
export async function listOrEmpty(
  client: StripeClient,
  path: string,
): Promise<{ name: string; stat: Stat }[]> {
  try {
    return await client.list(path);
  } catch (err) {
    if (isCode(err, 'NS_NOT_FOUND')) return [];
    throw err;
  }
}

/**
 * A small file written whole with a fresh name: create (exclusive), write, close (fsync, size
 * committed). With the checkpoint's layout: a manifest must survive what its data survives.
 */
export async function writeSmallFile(
  client: StripeClient,
  path: string,
  data: Buffer,
  layout: Layout,
): Promise<void> {
  const handle = await client.open(path, 'wx', { layout });
  try {
    await handle.write(data, 0, data.length, 0);
  } finally {
    await handle.close();
  }
}

/** A small file read whole, refusing one larger than `bytesMax`. */
export async function readSmallFile(client: StripeClient, path: string, bytesMax: number): Promise<Buffer> {
  const handle = await client.open(path, 'r');
  try {
    if (handle.size > bytesMax)
      throw new StripeError('CKPT_CORRUPT', `${path} holds ${handle.size} bytes, more than ${bytesMax}`, {
        path,
      });
    const out = Buffer.allocUnsafe(handle.size);
    const { bytesRead } = await handle.read(out, 0, out.length, 0);
    return out.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Deletes a directory and what it holds (files, and directories of files: checkpoints and
 * staging directories are flat). Entries already gone are fine: gc may race another gc.
 */
export async function removeTree(client: StripeClient, path: string): Promise<number> {
  const entries = await listOrEmpty(client, path);
  let freedBytes = 0;
  await mapBounded(entries, CHECKPOINT_BOUNDS.unlinksInFlightMax, async ({ name, stat }) => {
    const child = joinPath(path, name);
    if (stat.isDirectory()) freedBytes += await removeTree(client, child);
    else {
      await client.unlink(child).catch((err: unknown) => {
        if (!isCode(err, 'NS_NOT_FOUND')) throw err;
      });
      freedBytes += stat.size;
    }
  });
  await client.rmdir(path).catch((err: unknown) => {
    if (!isCode(err, 'NS_NOT_FOUND')) throw err;
  });
  return freedBytes;
}

/** CKPT_EXISTS when checkpoint `step` is already published in `dir` (checked before any byte is sent). */
export async function refuseIfPublished(client: StripeClient, dir: string, step: number): Promise<void> {
  const exists = await client.stat(joinPath(dir, stepName(step))).then(
    () => true,
    (err: unknown) => (isCode(err, 'NS_NOT_FOUND') ? false : Promise.reject(err)),
  );
  if (exists)
    throw new StripeError('CKPT_EXISTS', `a checkpoint of step ${step} is already published in ${dir}`, {
      dir,
      step,
    });
}
