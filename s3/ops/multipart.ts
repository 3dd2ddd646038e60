// CreateMultipartUpload, CompleteMultipartUpload, AbortMultipartUpload.
// Completing is one rename of the assembled object into place (atomic, like
// a PUT). When every part but the last lies in its slot (parts of one size,
// numbered 1..N, as SDKs send them), the object is already assembled: only a
// last part of another size is copied to its place. Otherwise the parts are
// copied in order into a new file, with whitespace sent meanwhile so the
// client's read timeout does not end a long completion (as S3 does).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { s3Error, wireOf } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { keyPath } from '../keys.js';
import { emptyReply, type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { copyRange } from '../store/copy.js';
import { metaFromRequest, UPLOAD_XATTR, writeMeta } from '../store/meta.js';
import { layoutFor, publish, stagingName } from '../store/publish.js';
import { removeTree } from '../store/tree.js';
import {
  DATA_NAME,
  forgetSlot,
  forgetUpload,
  knownSlot,
  newUploadId,
  type PartRecord,
  readParts,
  readUpload,
  rememberUpload,
  type UploadRecord,
  uploadDir,
} from '../store/uploads.js';
import { childrenNamed, childText, parseXml, xmlDocument } from '../xml.js';
import { noReplaceOf } from './put-object.js';
import { readBody } from './read-body.js';
import { dataLayout, forgetPartsStored } from './upload-part.js';

const KEEPALIVE_INTERVAL_MS = 10_000;

export async function createUpload(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  const key = request.key as string;
  const target = keyPath(bucket, key);
  if (target.isDirectory)
    throw s3Error('InvalidArgument', "a key ending in '/' is a directory, not a multipart object");
  const layout = await layoutFor(gateway.client, bucket, target.path, key);
  const uploadId = newUploadId();
  const dir = uploadDir(gateway.scratch, bucket, uploadId);
  await gateway.client.mkdir(dir, { recursive: true });
  await (await gateway.client.open(`${dir}/${DATA_NAME}`, 'wx', layout ? { layout } : {})).close();
  const record: UploadRecord = { key, initiatedMs: Date.now(), ...metaFromRequest(request.headers) };
  await gateway.client.setXattr(dir, UPLOAD_XATTR, JSON.stringify(record));
  rememberUpload(dir, record);
  return xmlReply('InitiateMultipartUploadResult', { Bucket: bucket, Key: key, UploadId: uploadId });
}

export async function abortUpload(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  const uploadId = request.query.get('uploadId') as string;
  const upload = await readUpload(gateway.client, gateway.scratch, bucket, uploadId);
  if (upload.key !== request.key)
    throw s3Error('NoSuchUpload', 'the upload is for another key', { uploadId });
  const dir = uploadDir(gateway.scratch, bucket, uploadId);
  await removeTree(gateway.client, dir);
  forgetUpload(gateway.scratch, bucket, uploadId);
  forgetSlot(dir);
  forgetPartsStored(dir);
  return emptyReply(204);
}

function requestedParts(xml: string): { partNumber: number; etag: string }[] {
  const document = parseXml(xml);
  if (document.name !== 'CompleteMultipartUpload')
    throw s3Error('MalformedXML', 'expected <CompleteMultipartUpload>');
  const parts = childrenNamed(document, 'Part').map((p) => ({
    partNumber: Number(childText(p, 'PartNumber')),
    etag: (childText(p, 'ETag') ?? '').replace(/"/g, '').replace(/&quot;/g, ''),
  }));
  if (parts.length === 0) throw s3Error('MalformedXML', 'a completion names at least one part');
  for (const [i, part] of parts.entries()) {
    if (!Number.isInteger(part.partNumber) || part.partNumber < 1)
      throw s3Error('InvalidPart', `bad PartNumber at position ${i + 1}`);
    if (i > 0 && part.partNumber <= (parts[i - 1] as { partNumber: number }).partNumber)
      throw s3Error('InvalidPartOrder', 'The list of parts was not in ascending order.');
  }
  return parts;
}

interface Plan {
  parts: PartRecord[];
  slot: number;
  fast: boolean;
  sizeBytes: number;
  etag: string;
  /** The end of the furthest part stored in its slot of `data` (0: none). */
  slotEnd: number;
}

async function plan(
  gateway: Gateway,
  dir: string,
  requested: { partNumber: number; etag: string }[],
): Promise<Plan> {
  const { parts: stored } = await readParts(gateway.client, dir);
  const parts = requested.map((r) => {
    const part = stored.get(r.partNumber);
    if (!part || part.md5 !== r.etag.toLowerCase())
      throw s3Error('InvalidPart', `part ${r.partNumber} was not uploaded, or its ETag is not ${r.etag}`);
    return part;
  });
  for (const part of parts.slice(0, -1)) {
    if (part.sizeBytes < gateway.partBytesMin)
      throw s3Error(
        'EntityTooSmall',
        `part ${part.partNumber} has ${part.sizeBytes} bytes; every part but the last needs ${gateway.partBytesMin}`,
      );
  }
  const slot = (await knownSlot(gateway.client, dir)) ?? 0;
  const last = parts[parts.length - 1] as PartRecord;
  const fast =
    slot > 0 &&
    parts.every((p, i) => p.partNumber === i + 1) &&
    parts.slice(0, -1).every((p) => p.inSlot && p.sizeBytes === slot) &&
    (!last.inSlot || last.sizeBytes === slot) &&
    (last.inSlot || last.sizeBytes <= slot) &&
    ![...stored.values()].some((p) => p.inSlot && p.partNumber > parts.length);
  const md5 = createHash('md5');
  for (const part of parts) md5.update(Buffer.from(part.md5, 'hex'));
  const sizeBytes = parts.reduce((sum, p) => sum + p.sizeBytes, 0);
  let slotEnd = 0;
  for (const part of stored.values())
    if (part.inSlot) slotEnd = Math.max(slotEnd, (part.partNumber - 1) * slot + part.sizeBytes);
  return { parts, slot, fast, sizeBytes, etag: `${md5.digest('hex')}-${parts.length}`, slotEnd };
}

/** Fast: the last part (if not in its slot) copied to its place in `data`. */
async function assembleInPlace(gateway: Gateway, dir: string, p: Plan): Promise<string | undefined> {
  const data = `${dir}/${DATA_NAME}`;
  const last = p.parts[p.parts.length - 1] as PartRecord;
  if (!last.inSlot) {
    const handle = await gateway.client.open(data, 'r+', { growOnly: true });
    try {
      await copyRange(
        gateway.client,
        `${dir}/${last.name}`,
        0,
        last.sizeBytes,
        handle,
        (last.partNumber - 1) * p.slot,
      );
    } finally {
      await handle.close();
    }
  }
  // The size is the furthest part's end (growTo, grow-only commits): exactly the object.
  return (await gateway.client.stat(data)).size === p.sizeBytes ? data : undefined;
}

/** Slow: every part copied in order into a new file. */
async function assembleByCopy(gateway: Gateway, dir: string, p: Plan): Promise<string> {
  const path = `${dir}/a.${stagingName()}`;
  const layout = await dataLayout(gateway.client, dir);
  const handle = await gateway.client.open(path, 'wx', layout ? { layout } : {});
  try {
    let at = 0;
    for (const part of p.parts) {
      const from = part.inSlot ? `${dir}/${DATA_NAME}` : `${dir}/${part.name}`;
      await copyRange(
        gateway.client,
        from,
        part.inSlot ? (part.partNumber - 1) * p.slot : 0,
        part.sizeBytes,
        handle,
        at,
      );
      at += part.sizeBytes;
    }
  } finally {
    await handle.close();
  }
  return path;
}

async function finish(
  gateway: Gateway,
  request: S3Request,
  upload: UploadRecord,
  dir: string,
  p: Plan,
  objectPath: string,
): Promise<string> {
  const bucket = request.bucket as string;
  const key = request.key as string;
  const stat = await gateway.client.stat(objectPath);
  await writeMeta(gateway.client, objectPath, {
    etag: p.etag,
    inode: stat.inode,
    sizeBytes: p.sizeBytes,
    headers: upload.headers,
    userMeta: upload.userMeta,
  });
  await publish(gateway.client, objectPath, keyPath(bucket, key).path, key, {
    noReplace: noReplaceOf(request),
  });
  await removeTree(gateway.client, dir);
  forgetUpload(gateway.scratch, bucket, request.query.get('uploadId') as string);
  forgetSlot(dir);
  forgetPartsStored(dir);
  return xmlDocument('CompleteMultipartUploadResult', {
    Location: `/${bucket}/${key}`,
    Bucket: bucket,
    Key: key,
    ETag: `"${p.etag}"`,
  });
}

export async function completeUpload(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  const uploadId = request.query.get('uploadId') as string;
  const upload = await readUpload(gateway.client, gateway.scratch, bucket, uploadId);
  if (upload.key !== request.key)
    throw s3Error('NoSuchUpload', 'the upload is for another key', { uploadId });
  noReplaceOf(request);
  const dir = uploadDir(gateway.scratch, bucket, uploadId);
  const p = await plan(gateway, dir, requestedParts(await readBody(request)));
  // Parts in their slots committed no size (deferSize): the data file grows once, to the furthest.
  if (p.slotEnd > 0) await gateway.client.growTo(`${dir}/${DATA_NAME}`, p.slotEnd);
  const inPlace = p.fast ? await assembleInPlace(gateway, dir, p) : undefined;
  if (inPlace)
    return {
      status: 200,
      headers: { 'content-type': 'application/xml' },
      body: await finish(gateway, request, upload, dir, p, inPlace),
    };
  return keepAlive(
    request,
    assembleByCopy(gateway, dir, p).then((path) => finish(gateway, request, upload, dir, p, path)),
  );
}

/** A 200 whose body is whitespace every few seconds until `work` gives the document (or an error document). */
function keepAlive(request: S3Request, work: Promise<string>): S3Reply {
  const body = new Readable({ read() {} });
  body.push('<?xml version="1.0" encoding="UTF-8"?>\n');
  const timer = setInterval(() => body.push(' '), KEEPALIVE_INTERVAL_MS);
  work
    .then(
      (document) => body.push(document.replace(/^<\?xml[^>]*\?>\n/, '')),
      (err: unknown) => {
        const wire = wireOf(err, 'upload');
        body.push(
          `<Error><Code>${wire.s3Code}</Code><Message>${String((err as Error).message).replace(/[<&>]/g, ' ')}</Message><RequestId>${request.requestId}</RequestId><StripefsCode>${wire.code}</StripefsCode></Error>`,
        );
      },
    )
    .finally(() => {
      clearInterval(timer);
      body.push(null);
    });
  return { status: 200, headers: { 'content-type': 'application/xml' }, body };
}
