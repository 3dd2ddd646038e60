import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { keyPath } from '../keys.js';
import { S3_LIMITS } from '../limits.js';
import { type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { closeSource, copyRange, openSource, parseCopySource } from './copy-object.js';
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

export async function uploadPartCopy(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const { dir, partNumber } = await partTarget(gateway, request);
  const named = parseCopySource(String(request.headers['x-amz-copy-source']));
  const from = keyPath(named.bucket, named.key);
  if (from.isDirectory) throw s3Error('NotImplemented', 'copying folder markers is not offered');
  const { handle: source, stat } = await openSource(gateway, request, named, from.path);
  try {
    const range = copySourceRange(
      request.headers['x-amz-copy-source-range'] as string | undefined,
      stat.size,
    );
    const sizeBytes = range.end + 1 - range.start;
    if (sizeBytes > S3_LIMITS.partBytesMax)
      throw s3Error('EntityTooLarge', `a part is at most ${S3_LIMITS.partBytesMax} bytes`);
    const md5 = await storePart(gateway, dir, partNumber, sizeBytes, (handle, position) =>
      copyRange(source, range.start, range.end, handle, position),
    );
    return xmlReply('CopyPartResult', {
      LastModified: new Date(stat.mtimeMs).toISOString(),
      ETag: `"${md5}"`,
    });
  } finally {
    await closeSource(source);
  }
}
