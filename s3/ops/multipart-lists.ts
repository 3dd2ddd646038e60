// ListParts and ListMultipartUploads.
import type { StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { Semaphore } from '../../common/semaphore.js';
import { uploadsDirOf } from '../actors.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { compareKeys } from '../keys.js';
import { S3_LIMITS } from '../limits.js';
import { type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { readParts, readUpload, uploadDir } from '../store/uploads.js';
import { OWNER, requireBucket } from './buckets.js';

function countOf(text: string | undefined, name: string): number {
  if (text === undefined) return S3_LIMITS.listKeysMax;
  if (!/^\d+$/.test(text)) throw s3Error('InvalidArgument', `${name} must be a whole number`);
  return Math.min(Number(text), S3_LIMITS.listKeysMax);
}

export async function listParts(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  const uploadId = request.query.get('uploadId') as string;
  const upload = await readUpload(gateway.client, gateway.scratch, bucket, uploadId);
  if (upload.key !== request.key)
    throw s3Error('NoSuchUpload', 'the upload is for another key', { uploadId });
  const maxParts = countOf(request.query.get('max-parts'), 'max-parts');
  const marker = Number(request.query.get('part-number-marker') ?? 0);
  const { parts } = await readParts(gateway.client, uploadDir(gateway.scratch, bucket, uploadId));
  const after = [...parts.values()]
    .filter((p) => p.partNumber > marker)
    .sort((a, b) => a.partNumber - b.partNumber);
  const page = after.slice(0, maxParts);
  const truncated = after.length > page.length;
  return xmlReply('ListPartsResult', {
    Bucket: bucket,
    Key: upload.key,
    UploadId: uploadId,
    Initiator: OWNER,
    Owner: OWNER,
    StorageClass: 'STANDARD',
    PartNumberMarker: marker,
    NextPartNumberMarker: truncated ? page[page.length - 1]?.partNumber : undefined,
    MaxParts: maxParts,
    IsTruncated: truncated,
    Part: page.map((p) => ({
      PartNumber: p.partNumber,
      LastModified: new Date(p.mtimeMs).toISOString(),
      ETag: `"${p.md5}"`,
      Size: p.sizeBytes,
    })),
  });
}

interface Listed {
  key: string;
  uploadId: string;
  initiatedMs: number;
}

/** The bucket's uploads in progress, sorted by key then upload id (at most S3_LIMITS.uploadsListedMax read). */
async function uploadsOf(client: StripeClient, scratch: string, bucket: string): Promise<Listed[]> {
  const dir = `${uploadsDirOf(scratch)}/${bucket}`;
  const ids: string[] = [];
  let after: string | undefined;
  try {
    do {
      const page = await client.listPage(dir, { after, limit: S3_LIMITS.listKeysMax });
      for (const entry of page.entries) if (entry.stat.isDirectory()) ids.push(entry.name);
      after = page.next;
    } while (after !== undefined && ids.length < S3_LIMITS.uploadsListedMax);
  } catch (err) {
    if (err instanceof StripeError && err.code === 'NS_NOT_FOUND') return [];
    throw err;
  }
  const slots = new Semaphore(S3_LIMITS.partRecordConcurrency);
  const listed = await Promise.all(
    ids.map((uploadId) =>
      slots.run(async () => {
        // Completed or aborted since it was listed: no longer in progress.
        const record = await readUpload(client, scratch, bucket, uploadId).catch(() => undefined);
        return record ? { key: record.key, uploadId, initiatedMs: record.initiatedMs } : undefined;
      }),
    ),
  );
  return listed
    .filter((u): u is Listed => u !== undefined)
    .sort((a, b) => compareKeys(a.key, b.key) || (a.uploadId < b.uploadId ? -1 : 1));
}

export async function listUploads(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  await requireBucket(gateway, bucket);
  const q = request.query;
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const keyMarker = q.get('key-marker') ?? '';
  const idMarker = q.get('upload-id-marker') ?? '';
  const maxUploads = countOf(q.get('max-uploads'), 'max-uploads');
  const uploads: Listed[] = [];
  const prefixes: string[] = [];
  let truncated = false;
  let last: Listed | undefined;
  for (const u of await uploadsOf(gateway.client, gateway.scratch, bucket)) {
    if (!u.key.startsWith(prefix)) continue;
    const order = compareKeys(u.key, keyMarker);
    if (keyMarker !== '' && (order < 0 || (order === 0 && (idMarker === '' || u.uploadId <= idMarker))))
      continue;
    const at = delimiter === '' ? -1 : u.key.indexOf(delimiter, prefix.length);
    const common = at < 0 ? undefined : u.key.slice(0, at + delimiter.length);
    if (common !== undefined && prefixes[prefixes.length - 1] === common) continue;
    if (uploads.length + prefixes.length === maxUploads) {
      truncated = true;
      break;
    }
    if (common !== undefined) prefixes.push(common);
    else uploads.push(u);
    last = u;
  }
  return xmlReply('ListMultipartUploadsResult', {
    Bucket: bucket,
    KeyMarker: keyMarker,
    UploadIdMarker: idMarker,
    NextKeyMarker: truncated ? last?.key : undefined,
    NextUploadIdMarker: truncated ? last?.uploadId : undefined,
    Prefix: prefix,
    Delimiter: delimiter === '' ? undefined : delimiter,
    MaxUploads: maxUploads,
    IsTruncated: truncated,
    Upload: uploads.map((u) => ({
      Key: u.key,
      UploadId: u.uploadId,
      Initiator: OWNER,
      Owner: OWNER,
      StorageClass: 'STANDARD',
      Initiated: new Date(u.initiatedMs).toISOString(),
    })),
    CommonPrefixes: prefixes.map((p) => ({ Prefix: p })),
  });
}
