// CopyObject: the source is read through the client library and written to
// a staging file with the destination's layout, then published like a PUT.
// Metadata is the source's (COPY) or the request's (REPLACE); a copy onto
// itself with REPLACE only rewrites the metadata.
import { createHash } from 'node:crypto';
import type { Layout, Stat, StripeFileHandle } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { checkBucketName, keyPath } from '../keys.js';
import { type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { evaluate } from '../store/conditions.js';
import { etagOf, metaFromRequest, type ObjectMeta, readMeta, writeMeta } from '../store/meta.js';
import { createStaging, discard, layoutFor, publish } from '../store/publish.js';
import { rangeStream } from './get-object.js';
import { budgetBytesOf, noReplaceOf } from './put-object.js';

export function parseCopySource(header: string): { bucket: string; key: string } {
  let text: string;
  try {
    text = decodeURIComponent(header.split('?')[0] as string);
  } catch {
    throw s3Error('InvalidArgument', 'x-amz-copy-source has a malformed %-escape');
  }
  const trimmed = text.startsWith('/') ? text.slice(1) : text;
  const slash = trimmed.indexOf('/');
  if (slash <= 0 || slash === trimmed.length - 1)
    throw s3Error('InvalidArgument', 'x-amz-copy-source must be BUCKET/KEY');
  const bucket = trimmed.slice(0, slash);
  checkBucketName(bucket);
  return { bucket, key: trimmed.slice(slash + 1) };
}

export function sourceConditions(request: S3Request) {
  const h = request.headers;
  const one = (name: string) => (h[name] === undefined ? undefined : String(h[name]));
  return {
    ifMatch: one('x-amz-copy-source-if-match'),
    ifNoneMatch: one('x-amz-copy-source-if-none-match'),
    ifModifiedSince: one('x-amz-copy-source-if-modified-since'),
    ifUnmodifiedSince: one('x-amz-copy-source-if-unmodified-since'),
  };
}

/**
 * Opens the copy source at `path` and checks the x-amz-copy-source-if-* conditions
 * against it; the caller closes the handle.
 */
export async function openSource(
  gateway: Gateway,
  request: S3Request,
  source: { bucket: string; key: string },
  path: string,
): Promise<{ handle: StripeFileHandle; stat: Stat; meta: ObjectMeta | undefined }> {
  const handle = await gateway.client.open(path, 'r').catch((err: unknown) => {
    if (err instanceof StripeError && err.code.startsWith('NS_'))
      throw s3Error('NoSuchKey', `no source ${source.bucket}/${source.key}`, { key: source.key });
    throw err;
  });
  try {
    const [stat, meta] = await Promise.all([gateway.client.stat(path), readMeta(gateway.client, path)]);
    if (
      evaluate(sourceConditions(request), { etag: etagOf(stat, meta), mtimeMs: stat.mtimeMs }) ===
      'not-modified'
    )
      throw s3Error(
        'PreconditionFailed',
        'x-amz-copy-source-if-none-match or -if-modified-since does not hold',
      );
    return { handle, stat, meta };
  } catch (err) {
    await closeSource(handle);
    throw err;
  }
}

/** Closes the copy source's handle. */
export async function closeSource(handle: StripeFileHandle): Promise<void> {
  // A read handle has nothing to flush; its close cannot lose data.
  await handle.close().catch(() => undefined);
}

/** Copies bytes [start, end] of `source` to `target` from `position`; the bytes written and their MD5. */
export async function copyRange(
  source: StripeFileHandle,
  start: number,
  end: number,
  target: StripeFileHandle,
  position: number,
): Promise<{ written: number; md5: string }> {
  const hash = createHash('md5');
  let written = 0;
  if (end >= start) {
    for await (const piece of rangeStream(source, start, end)) {
      hash.update(piece as Buffer);
      await target.write(piece as Buffer, 0, (piece as Buffer).length, position + written);
      written += (piece as Buffer).length;
    }
  }
  return { written, md5: hash.digest('hex') };
}

export async function copyObject(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  const key = request.key as string;
  // The MDS checks that the acting identity may read it when it is opened.
  const source = parseCopySource(String(request.headers['x-amz-copy-source']));
  const from = keyPath(source.bucket, source.key);
  const to = keyPath(bucket, key);
  if (from.isDirectory || to.isDirectory)
    throw s3Error('NotImplemented', 'copying folder markers is not offered');
  const noReplace = noReplaceOf(request);
  const directive = String(request.headers['x-amz-metadata-directive'] ?? 'COPY').toUpperCase();
  if (directive !== 'COPY' && directive !== 'REPLACE')
    throw s3Error('InvalidArgument', 'x-amz-metadata-directive is COPY or REPLACE');
  const { handle, stat, meta: sourceMeta } = await openSource(gateway, request, source, from.path);
  try {
    const meta =
      directive === 'REPLACE'
        ? metaFromRequest(request.headers)
        : { headers: sourceMeta?.headers ?? {}, userMeta: sourceMeta?.userMeta ?? {} };
    if (from.path === to.path) {
      if (directive !== 'REPLACE')
        throw s3Error(
          'InvalidRequest',
          'copying an object onto itself needs x-amz-metadata-directive: REPLACE',
        );
      const etag = etagOf(stat, sourceMeta).slice(1, -1);
      await writeMeta(gateway.client, to.path, { etag, inode: stat.inode, sizeBytes: stat.size, ...meta });
      return xmlReply('CopyObjectResult', {
        LastModified: new Date(stat.mtimeMs).toISOString(),
        ETag: `"${etag}"`,
      });
    }
    const layout = await layoutFor(gateway.client, bucket, to.path, key);
    const etag = await gateway.uploads.run(budgetBytesOf(handle.size), () =>
      copyInto(gateway, handle, layout, { path: to.path, key, noReplace, meta }),
    );
    return xmlReply('CopyObjectResult', { LastModified: new Date().toISOString(), ETag: `"${etag}"` });
  } finally {
    await closeSource(handle);
  }
}

/** Streams the open source into a staging file and publishes it at `to.path`; returns the MD5. */
async function copyInto(
  gateway: Gateway,
  source: StripeFileHandle,
  layout: Layout | undefined,
  to: { path: string; key: string; noReplace: boolean; meta: Pick<ObjectMeta, 'headers' | 'userMeta'> },
): Promise<string> {
  const staged = await createStaging(gateway.client, gateway.scratch, layout);
  try {
    const { written, md5: hex } = await copyRange(source, 0, source.size - 1, staged.handle, 0);
    await staged.handle.close();
    await writeMeta(gateway.client, staged.path, {
      etag: hex,
      inode: staged.handle.inode,
      sizeBytes: written,
      ...to.meta,
    });
    await publish(gateway.client, staged.path, to.path, to.key, { noReplace: to.noReplace });
    return hex;
  } catch (err) {
    await discard(gateway.client, staged);
    throw err;
  }
}
