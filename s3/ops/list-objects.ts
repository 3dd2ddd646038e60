// ListObjectsV2 (list-type=2) and ListObjects (V1). The continuation token is
// the last key or common prefix returned, so a page resumes exactly there.

import { Semaphore } from '../../common/semaphore.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { S3_LIMITS } from '../limits.js';
import { type ListResult, list } from '../listing/list.js';
import type { After } from '../listing/order.js';
import { type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { awsUriEncode } from '../sigv4/canonical.js';
import { etagOf, type ObjectMeta, readMeta } from '../store/meta.js';
import { OWNER, requireBucket } from './buckets.js';

function encodeToken(after: After): string {
  return Buffer.from(JSON.stringify([after.key, after.isPrefix]), 'utf8').toString('base64url');
}

function decodeToken(token: string): After {
  try {
    const [key, isPrefix] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as [
      unknown,
      unknown,
    ];
    if (typeof key === 'string' && typeof isPrefix === 'boolean') return { key, isPrefix };
  } catch {
    // fall through
  }
  throw s3Error('InvalidArgument', 'the continuation token is not one this gateway gave');
}

function maxKeysOf(request: S3Request): number {
  const text = request.query.get('max-keys');
  if (text === undefined) return S3_LIMITS.listKeysMax;
  if (!/^\d+$/.test(text)) throw s3Error('InvalidArgument', `max-keys must be a whole number, not ${text}`);
  return Math.min(Number(text), S3_LIMITS.listKeysMax);
}

async function metaOf(gateway: Gateway, path: string): Promise<ObjectMeta | undefined> {
  // Removed since it was listed: it is listed as it was, with its identity ETag.
  return readMeta(gateway.client, path).catch(() => undefined);
}

/** ETags need each file's metadata record: read with bounded concurrency. */
async function contentsOf(
  gateway: Gateway,
  bucket: string,
  result: ListResult,
  encode: (k: string) => string,
  owner: boolean,
) {
  const slots = new Semaphore(S3_LIMITS.partRecordConcurrency);
  return Promise.all(
    result.objects.map((o) =>
      slots.run(async () => {
        const meta = o.key.endsWith('/') ? undefined : await metaOf(gateway, `/${bucket}/${o.key}`);
        return {
          Key: encode(o.key),
          LastModified: new Date(o.stat.mtimeMs).toISOString(),
          ETag: o.key.endsWith('/') ? '"d41d8cd98f00b204e9800998ecf8427e"' : etagOf(o.stat, meta),
          Size: o.key.endsWith('/') ? 0 : o.stat.size,
          StorageClass: 'STANDARD',
          Owner: owner ? OWNER : undefined,
        };
      }),
    ),
  );
}

export async function listObjects(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  const q = request.query;
  const v2 = q.get('list-type') === '2';
  const encodingType = q.get('encoding-type');
  if (encodingType !== undefined && encodingType !== 'url')
    throw s3Error('InvalidArgument', 'encoding-type must be url');
  const encode = encodingType === 'url' ? (k: string) => awsUriEncode(k, true) : (k: string) => k;
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const maxKeys = maxKeysOf(request);
  let after: After | undefined;
  const token = q.get('continuation-token');
  if (v2) {
    if (token !== undefined) after = decodeToken(token);
    else if (q.get('start-after')) after = { key: q.get('start-after') as string, isPrefix: false };
  } else if (q.get('marker')) {
    const marker = q.get('marker') as string;
    after = { key: marker, isPrefix: delimiter !== '' && marker.endsWith(delimiter) };
  }
  await requireBucket(gateway, bucket);
  const result = await list(gateway.client, { bucket, prefix, delimiter, after, maxKeys });
  const contents = await contentsOf(gateway, bucket, result, encode, !v2 || q.get('fetch-owner') === 'true');
  const common = {
    Name: bucket,
    Prefix: encode(prefix),
    Delimiter: delimiter === '' ? undefined : encode(delimiter),
    MaxKeys: maxKeys,
    EncodingType: encodingType,
    IsTruncated: result.truncated,
  };
  const listed = { Contents: contents, CommonPrefixes: result.prefixes.map((p) => ({ Prefix: encode(p) })) };
  if (v2) {
    return xmlReply('ListBucketResult', {
      ...common,
      KeyCount: contents.length + result.prefixes.length,
      ContinuationToken: token,
      NextContinuationToken: result.truncated && result.last ? encodeToken(result.last) : undefined,
      StartAfter: q.get('start-after') === undefined ? undefined : encode(q.get('start-after') as string),
      ...listed,
    });
  }
  return xmlReply('ListBucketResult', {
    ...common,
    Marker: encode(q.get('marker') ?? ''),
    NextMarker: result.truncated && result.last ? encode(result.last.key) : undefined,
    ...listed,
  });
}
