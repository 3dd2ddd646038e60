// What S3 keeps beside an object's bytes: its ETag, content type and the
// other stored headers, and user metadata (x-amz-meta-*). One extended
// attribute per file (`user.s3.object`, JSON), set on the staging file
// before it is published, so bytes and metadata appear together. The record
// names the inode and size it was written for: a file changed since through
// another front door (CLI, mount) gets an ETag from its inode and commit
// count instead of a stale MD5.
import type { IncomingHttpHeaders } from 'node:http';
import type { Stat, StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { s3Error } from '../errors.js';
import { utf8Length } from '../keys.js';
import { S3_LIMITS } from '../limits.js';

export const META_XATTR = 'user.s3.object';
/** A bucket directory's tags. */
export const BUCKET_XATTR = 'user.s3.bucket';
/** A multipart upload directory's record, and its slot size. */
export const UPLOAD_XATTR = 'user.s3.upload';
export const SLOT_XATTR = 'user.s3.slot';

/** Headers S3 stores with an object and returns on GET and HEAD. */
export const STORED_HEADERS = [
  'content-type',
  'content-encoding',
  'content-disposition',
  'content-language',
  'cache-control',
  'expires',
] as const;

export interface ObjectMeta {
  /** Hex MD5 of the bytes, or of the parts' MD5s followed by -N for a multipart upload. */
  etag: string;
  /**
   * The file it was written for; absent in a record set by the file's own create (it cannot name
   * an inode not made yet, and it is on that file).
   */
  inode?: number;
  sizeBytes: number;
  headers: Record<string, string>;
  userMeta: Record<string, string>;
}

export const DEFAULT_CONTENT_TYPE = 'binary/octet-stream';

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/** The stored headers and x-amz-meta-* of a request (PUT, CopyObject with REPLACE, CreateMultipartUpload). */
export function metaFromRequest(headers: IncomingHttpHeaders): Pick<ObjectMeta, 'headers' | 'userMeta'> {
  const stored: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    let value = single(headers[name]);
    // aws-chunked is how this request's body travelled, not how the object is encoded.
    if (name === 'content-encoding' && value !== undefined)
      value = value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '' && v !== 'aws-chunked')
        .join(', ');
    if (value) stored[name] = value;
  }
  const userMeta: Record<string, string> = {};
  let bytes = 0;
  for (const [name, raw] of Object.entries(headers)) {
    if (!name.startsWith('x-amz-meta-')) continue;
    const value = single(raw) ?? '';
    const short = name.slice('x-amz-meta-'.length);
    userMeta[short] = value;
    bytes += utf8Length(short) + utf8Length(value);
  }
  if (bytes > S3_LIMITS.userMetadataBytesMax)
    throw s3Error(
      'MetadataTooLarge',
      `user metadata is ${bytes} bytes; at most ${S3_LIMITS.userMetadataBytesMax}`,
    );
  return { headers: stored, userMeta };
}

export async function writeMeta(client: StripeClient, path: string, meta: ObjectMeta): Promise<void> {
  await client.setXattr(path, META_XATTR, JSON.stringify(meta));
}

/** The record as a create sets it on the file it makes (createStaging's xattrs). */
export function metaXattrs(meta: ObjectMeta): Record<string, string> {
  return { [META_XATTR]: JSON.stringify(meta) };
}

/** The record of a file, or undefined when it has none (written by another front door) or it is unreadable. */
/**
 * The record of the file at `path`. One set by its file's own create names no inode; it is given
 * the inode it was read from, so a GET or HEAD that opened or stat'ed the path beside this read
 * and reached another file (the key replaced in between) does not pair this record with it.
 */
export async function readMeta(client: StripeClient, path: string): Promise<ObjectMeta | undefined> {
  let read: { value: Buffer; inode: number };
  try {
    read = await client.xattrOf(path, META_XATTR);
  } catch (err) {
    if (err instanceof StripeError && err.code === 'XATTR_NOT_FOUND') return undefined;
    throw err;
  }
  return parseMeta(read);
}

/**
 * A record as read from the file with inode `inode` (readMeta's, or the one an open read with
 * the file: `StripeClient.open`'s `xattr`); undefined when unreadable.
 */
export function parseMeta(read: { value: Buffer; inode: number }): ObjectMeta | undefined {
  try {
    const parsed = JSON.parse(read.value.toString('utf8')) as ObjectMeta;
    if (typeof parsed.etag !== 'string') return undefined;
    // An MDS from before GetXattr named the inode answers 0: the record then holds as it did.
    if (parsed.inode === undefined && read.inode > 0) parsed.inode = read.inode;
    return parsed;
  } catch {
    return undefined;
  }
}

/** The quoted ETag of a file: its record's when the record matches the file, else one from its identity. */
export function etagOf(stat: Stat, meta: ObjectMeta | undefined): string {
  if (meta && (meta.inode ?? stat.inode) === stat.inode && meta.sizeBytes === stat.size)
    return `"${meta.etag}"`;
  // Not an MD5 (clients compare 32 hex digits with their own MD5): the inode, size and mtime.
  return `"stripefs-${stat.inode.toString(16)}-${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
}

/** Response headers for an object: ETag, Last-Modified, stored headers, x-amz-meta-*. */
export function objectHeaders(stat: Stat, meta: ObjectMeta | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    etag: etagOf(stat, meta),
    'last-modified': new Date(stat.mtimeMs).toUTCString(),
    'content-type': DEFAULT_CONTENT_TYPE,
  };
  if (meta) {
    Object.assign(headers, meta.headers);
    for (const [name, value] of Object.entries(meta.userMeta)) headers[`x-amz-meta-${name}`] = value;
  }
  return headers;
}
