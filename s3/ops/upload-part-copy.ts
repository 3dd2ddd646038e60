// UploadPartCopy: a part whose bytes are a range of an existing object
// (x-amz-copy-source, x-amz-copy-source-range), read through the client
// library and stored like any part (into its slot when it has the slot size).
// awscli and boto3 copy objects above their multipart threshold this way
// (`aws s3 cp s3://... s3://...`, `s3 mv`, `s3 sync` between buckets).
import { createHash } from 'node:crypto';
import type { StripeFileHandle } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { keyPath } from '../keys.js';
import { S3_LIMITS } from '../limits.js';
import { type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { evaluate } from '../store/conditions.js';
import { etagOf, readMeta } from '../store/meta.js';
import { parseCopySource, sourceConditions } from './copy-object.js';
import { rangeStream } from './get-object.js';
import { partTarget, storePart } from './upload-part.js';

/** [start, end] of x-amz-copy-source-range ('bytes=FIRST-LAST', inside the source), or the whole source. */
export function copySourceRange(
  header: string | undefined,
  sizeBytes: number,
): { start: number; end: number } {
  if (header === undefined) return { start: 0, end: sizeBytes - 1 };
  const m = /^bytes=(\d+)-(\d+)$/.exec(header.trim());
  if (!m) throw s3Error('InvalidArgument', 'x-amz-copy-source-range must be bytes=FIRST-LAST');
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (start > end || end >= sizeBytes)
    throw s3Error(
      'InvalidArgument',
      `the range ${header} is not inside the source object of ${sizeBytes} bytes`,
      {
        sizeBytes,
      },
    );
  return { start, end };
}

async function openSource(
  gateway: Gateway,
  request: S3Request,
): Promise<{ handle: StripeFileHandle; path: string }> {
  const source = parseCopySource(String(request.headers['x-amz-copy-source']));
  if (!(await gateway.credentials.authorize(request.auth.identity, 'read', source.bucket, source.key)))
    throw s3Error(
      'AccessDenied',
      `${request.auth.identity.name} may not read ${source.bucket}/${source.key}`,
    );
  const from = keyPath(source.bucket, source.key);
  if (from.isDirectory) throw s3Error('NotImplemented', 'copying folder markers is not offered');
  const handle = await gateway.client.open(from.path, 'r').catch((err: unknown) => {
    if (err instanceof StripeError && err.code.startsWith('NS_'))
      throw s3Error('NoSuchKey', `no source ${source.bucket}/${source.key}`, { key: source.key });
    throw err;
  });
  return { handle, path: from.path };
}

export async function uploadPartCopy(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const { dir, partNumber } = await partTarget(gateway, request);
  const source = await openSource(gateway, request);
  try {
    const [stat, meta] = await Promise.all([
      gateway.client.stat(source.path),
      readMeta(gateway.client, source.path),
    ]);
    if (
      evaluate(sourceConditions(request), { etag: etagOf(stat, meta), mtimeMs: stat.mtimeMs }) ===
      'not-modified'
    )
      throw s3Error(
        'PreconditionFailed',
        'x-amz-copy-source-if-none-match or -if-modified-since does not hold',
      );
    const range = copySourceRange(
      request.headers['x-amz-copy-source-range'] as string | undefined,
      stat.size,
    );
    const sizeBytes = range.end + 1 - range.start;
    if (sizeBytes > S3_LIMITS.partBytesMax)
      throw s3Error('EntityTooLarge', `a part is at most ${S3_LIMITS.partBytesMax} bytes`);
    const md5 = await storePart(gateway, dir, partNumber, sizeBytes, async (handle, position) => {
      const hash = createHash('md5');
      let written = 0;
      if (sizeBytes > 0) {
        for await (const piece of rangeStream(source.handle, range.start, range.end)) {
          hash.update(piece as Buffer);
          await handle.write(piece as Buffer, 0, (piece as Buffer).length, position + written);
          written += (piece as Buffer).length;
        }
      }
      return { written, md5: hash.digest('hex') };
    });
    return xmlReply('CopyPartResult', {
      LastModified: new Date(stat.mtimeMs).toISOString(),
      ETag: `"${md5}"`,
    });
  } finally {
    // A read handle has nothing to flush; its close cannot lose data.
    await source.handle.close().catch(() => undefined);
  }
}
