// DeleteObject: removes the file (or an empty folder marker), then the
// directories its removal left empty. Deleting a missing key succeeds, as in S3.
import { StripeError } from '../../common/errors.js';
import type { Gateway } from '../gateway.js';
import { keyPath } from '../keys.js';
import { emptyReply, type S3Reply } from '../reply.js';
import type { S3Request } from '../request.js';
import { removeEmptyParents } from '../store/publish.js';
import { requireBucket } from './buckets.js';
import { isMarker } from './markers.js';

const GONE = new Set(['NS_NOT_FOUND', 'NS_NOT_DIR', 'NS_NOT_EMPTY']);

/**
 * Removes one key's file or folder marker and returns its path, or undefined when there was nothing
 * to remove (what is not there counts as removed). Throws other failures.
 */
export async function unlinkKey(gateway: Gateway, bucket: string, key: string): Promise<string | undefined> {
  const { path, isDirectory } = keyPath(bucket, key);
  try {
    if (isDirectory) await gateway.client.rmdir(path);
    else await gateway.client.unlink(path);
    return path;
  } catch (err) {
    // A directory named without its '/' is not an object; a marker with keys under it stays their prefix.
    if (err instanceof StripeError && (GONE.has(err.code) || err.code === 'NS_IS_DIR')) return undefined;
    throw err;
  }
}

/** Removes one key, then the directories its removal left empty. */
export async function removeKey(gateway: Gateway, bucket: string, key: string): Promise<void> {
  const path = await unlinkKey(gateway, bucket, key);
  if (path !== undefined)
    await removeEmptyParents(gateway.client, bucket, path, (dir) => isMarker(gateway, dir));
}

export async function deleteObject(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  await requireBucket(gateway, bucket);
  await removeKey(gateway, bucket, request.key as string);
  return emptyReply(204);
}
