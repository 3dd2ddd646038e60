// Folder markers: a key ending in '/' with no bytes is its directory. PUT
// makes it (and marks it, so emptying it later keeps it); GET and HEAD show
// an empty object while the directory exists; DELETE removes it when empty.
import { StripeError } from '../../common/errors.js';
import type { RequestBody } from '../body.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { parentOf } from '../keys.js';
import { emptyReply, type S3Reply } from '../reply.js';
import type { S3Request } from '../request.js';
import { META_XATTR } from '../store/meta.js';
import { layoutFor } from '../store/publish.js';

const EMPTY_MD5 = 'd41d8cd98f00b204e9800998ecf8427e';

export async function makeMarker(
  gateway: Gateway,
  request: S3Request,
  body: RequestBody,
  path: string,
  noReplace: boolean,
): Promise<S3Reply> {
  const key = request.key as string;
  for await (const piece of body)
    if (piece.length > 0)
      throw s3Error('InvalidArgument', "a key ending in '/' is a directory and holds no bytes", { key });
  await layoutFor(gateway.client, request.bucket as string, path, key); // the bucket exists, no object on the way
  const parent = parentOf(path);
  await gateway.client.mkdir(parent, { recursive: true }).catch((err: unknown) => {
    if (err instanceof StripeError && (err.code === 'NS_EXISTS' || err.code === 'NS_NOT_DIR'))
      throw s3Error('KeyConflict', `key ${JSON.stringify(key)}: a prefix of it is an object`, { key });
    throw err;
  });
  try {
    await gateway.client.mkdir(path);
  } catch (err) {
    if (!(err instanceof StripeError) || err.code !== 'NS_EXISTS') throw err;
    if (noReplace) throw s3Error('PreconditionFailed', `${key} exists (If-None-Match: *)`, { key });
    if (!(await gateway.client.stat(path)).isDirectory())
      throw s3Error('KeyConflict', `${key} would be a directory, but an object has that name`, { key });
  }
  await gateway.client.setXattr(path, META_XATTR, JSON.stringify({ marker: true }));
  return emptyReply(200, { etag: `"${EMPTY_MD5}"` });
}

/** Whether a directory was made as a folder marker (kept when its last object goes). */
export async function isMarker(gateway: Gateway, dir: string): Promise<boolean> {
  try {
    const record = JSON.parse((await gateway.client.getXattr(dir, META_XATTR)).toString('utf8')) as {
      marker?: boolean;
    };
    return record.marker === true;
  } catch {
    return false;
  }
}
