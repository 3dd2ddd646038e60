// PutObject: the body streams into a staging file with bounded memory (the
// client's write-behind, within the gateway's byte budget), is checked
// whole (MD5 for the ETag, Content-MD5, payload hash, chunk signatures,
// checksum trailer), and only then is published under its key.
import type { Layout, StripeFileHandle } from '../../client/index.js';
import { RequestBody } from '../body.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { gatherBuffers, gatherBytesFor } from '../gather.js';
import { keyPath } from '../keys.js';
import { S3_LIMITS } from '../limits.js';
import { emptyReply, type S3Reply } from '../reply.js';
import type { S3Request } from '../request.js';
import { metaFromRequest, metaXattrs, type ObjectMeta, writeMeta } from '../store/meta.js';
import { createStaging, discard, layoutFor, publish } from '../store/publish.js';
import { makeMarker } from './markers.js';

export const EMPTY_MD5 = 'd41d8cd98f00b204e9800998ecf8427e';

/**
 * Bytes of the budget an upload of `declared` bytes holds: its gather buffer, and the client's
 * write-behind (64 MiB, two more buffers) at most.
 */
export function budgetBytesOf(declared: number | undefined): number {
  const ceiling = 3 * S3_LIMITS.gatherBytesMax;
  return Math.min(declared ?? ceiling, ceiling);
}

/** Where a body's buffers are lent: an open handle, or a part's slot (s3/store/slot-writer.ts). */
export type LentTarget = Pick<StripeFileHandle, 'writeLent'>;

/**
 * Writes a body into an open handle from `position` (a file of `layout`); returns the bytes
 * written. A body of at most smallBodyBytesMax is gathered as it arrived and lent to the handle
 * whole (one request per copy). A larger one is gathered into shared buffers that are lent to the
 * handle, one write each, and hashed on the digest thread meanwhile (s3/gather.ts).
 */
export async function writeBody(
  body: RequestBody,
  handle: LentTarget,
  position: number,
  layout: Layout | undefined,
): Promise<number> {
  const declared = body.declaredBytes;
  if (declared !== undefined && declared <= S3_LIMITS.smallBodyBytesMax)
    return writeSmallBody(body, handle, position);
  let at = position;
  for await (const gathered of body.gathered(gatherBuffers, gatherBytesFor(declared, layout))) {
    const { released } = await handle.writeLent(gathered.data, at, { final: gathered.last });
    gathered.done(released);
    at += gathered.data.length;
  }
  return at - position;
}

async function writeSmallBody(body: RequestBody, handle: LentTarget, position: number): Promise<number> {
  const data = await readSmallBody(body);
  // Nothing changes these bytes afterwards; a failed send surfaces at close.
  if (data.length > 0) await handle.writeLent(data, position);
  return data.length;
}

/** A small body read whole (every check run): its bytes in one buffer. */
async function readSmallBody(body: RequestBody): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of body) pieces.push(piece);
  return pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
}

/**
 * A PUT of at most smallBodyBytesMax: the body is read and checked first, so its MD5 is known
 * before anything is stored and the staging file's create sets its metadata (create, write,
 * commit, rename: no SetXattr); the single write is its objects' only one, made durable by itself.
 */
async function putSmallObject(
  gateway: Gateway,
  body: RequestBody,
  layout: Layout | undefined,
  meta: Pick<ObjectMeta, 'headers' | 'userMeta'>,
  publishAs: { path: string; key: string; noReplace: boolean },
): Promise<string> {
  const data = await readSmallBody(body);
  const md5 = body.md5Hex();
  const record = metaXattrs({ etag: md5, sizeBytes: data.length, ...meta });
  const staged = await createStaging(gateway.client, gateway.scratch, layout, record);
  try {
    let released: Promise<void> = Promise.resolve();
    if (data.length > 0) ({ released } = await staged.handle.writeLent(data, 0, { final: true }));
    await staged.handle.close();
    await released;
    await publish(gateway.client, staged.path, publishAs.path, publishAs.key, {
      noReplace: publishAs.noReplace,
    });
    return md5;
  } catch (err) {
    await discard(gateway.client, staged);
    throw err;
  }
}

/** If-None-Match: * makes the PUT a conditional create; If-Match is not offered for writes. */
export function noReplaceOf(request: S3Request): boolean {
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatch.trim() !== '*')
    throw s3Error('NotImplemented', 'a write takes only If-None-Match: * (create if absent)');
  if (request.headers['if-match'] !== undefined)
    throw s3Error('NotImplemented', 'a write does not take If-Match');
  return ifNoneMatch !== undefined;
}

export async function putObject(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  const key = request.key as string;
  const target = keyPath(bucket, key);
  const noReplace = noReplaceOf(request);
  const body = new RequestBody(request.raw, { payload: request.auth.payload, headers: request.headers });
  const declared = body.declaredBytes;
  if (declared !== undefined && declared > S3_LIMITS.putObjectBytesMax)
    throw s3Error(
      'EntityTooLarge',
      `a single PUT takes at most ${S3_LIMITS.putObjectBytesMax} bytes; use a multipart upload`,
    );
  if (target.isDirectory) return makeMarker(gateway, request, body, target.path, noReplace);
  const meta = metaFromRequest(request.headers);
  const layout = await layoutFor(gateway.client, bucket, target.path, key);
  const etag = await gateway.uploads.run(budgetBytesOf(declared), async () => {
    if (declared !== undefined && declared <= S3_LIMITS.smallBodyBytesMax)
      return putSmallObject(gateway, body, layout, meta, { path: target.path, key, noReplace });
    const staged = await createStaging(gateway.client, gateway.scratch, layout);
    try {
      const written = await writeBody(body, staged.handle, 0, layout);
      if (written > S3_LIMITS.putObjectBytesMax)
        throw s3Error('EntityTooLarge', 'the body is larger than a single PUT may be');
      await staged.handle.close();
      const md5 = body.md5Hex();
      await writeMeta(gateway.client, staged.path, {
        etag: md5,
        inode: staged.handle.inode,
        sizeBytes: written,
        ...meta,
      });
      await publish(gateway.client, staged.path, target.path, key, { noReplace });
      return md5;
    } catch (err) {
      await discard(gateway.client, staged);
      throw err;
    }
  });
  return emptyReply(200, { etag: `"${etag}"` });
}
