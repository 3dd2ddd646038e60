// How S3 names map to stripefs paths. A bucket is a top-level directory; a
// key is a path under it, each '/' a directory. A key ending in '/' (a
// "folder" marker) is the directory itself. Keys that no path can hold (an
// empty segment as in 'a//b', '.' or '..', NUL, a segment over NAME_MAX) are
// refused with InvalidObjectName instead of being rewritten: a rewritten key
// would list back as another key. Gateway state (staging files, multipart
// uploads) lives under /.stripefs-s3, a name no bucket can have: each
// identity's in its own folder there (s3/actors.ts, common/auth/scratch.ts).
import { LIMITS } from '../common/limits.js';
import { s3Error } from './errors.js';
import { S3_LIMITS } from './limits.js';

export const GATEWAY_ROOT = '/.stripefs-s3';

const utf8 = new TextEncoder();

export function utf8Length(text: string): number {
  return utf8.encode(text).length;
}

/** S3 orders keys by their UTF-8 bytes (JavaScript's < orders UTF-16 units, which differs past U+FFFF). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** CreateBucket's rules (S3's for new buckets). */
export function checkNewBucketName(name: string): void {
  const ok =
    /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) &&
    !name.includes('..') &&
    !/^\d+\.\d+\.\d+\.\d+$/.test(name) &&
    !name.startsWith('xn--');
  if (!ok) {
    throw s3Error(
      'InvalidBucketName',
      `${JSON.stringify(name)} is not a valid bucket name: 3-63 characters of a-z, 0-9, '.' and '-', starting and ending with a letter or digit`,
      { bucket: name },
    );
  }
}

/** Any existing top-level directory is a bucket, except hidden ones (a leading '.'). */
export function checkBucketName(name: string): void {
  const ok = name.length > 0 && !name.startsWith('.') && !name.includes('/') && !name.includes('\0');
  if (!ok || utf8Length(name) > LIMITS.nameBytesMax)
    throw s3Error('NoSuchBucket', `no bucket ${JSON.stringify(name)}`, { bucket: name });
}

export function bucketPath(bucket: string): string {
  return `/${bucket}`;
}

export interface KeyPath {
  /** The stripefs path of the file, or of the directory for a key ending in '/'. */
  path: string;
  /** The key ends in '/': a directory marker. */
  isDirectory: boolean;
  /** Path segments of the key below the bucket. */
  segments: string[];
}

export function checkKey(key: string): void {
  if (key.length === 0) throw s3Error('InvalidArgument', 'the key is empty');
  if (utf8Length(key) > S3_LIMITS.keyBytesMax) {
    throw s3Error('KeyTooLongError', `a key is at most ${S3_LIMITS.keyBytesMax} bytes`, { key });
  }
}

/** The path of a key, or InvalidObjectName naming why no path can hold it. */
export function keyPath(bucket: string, key: string): KeyPath {
  checkKey(key);
  const isDirectory = key.endsWith('/');
  const segments = (isDirectory ? key.slice(0, -1) : key).split('/');
  for (const segment of segments) {
    let problem: string | undefined;
    if (segment.length === 0) problem = "an empty segment ('//' or a leading '/')";
    else if (segment === '.' || segment === '..') problem = `a '${segment}' segment`;
    else if (segment.includes('\0')) problem = 'a NUL character';
    else if (utf8Length(segment) > LIMITS.nameBytesMax)
      problem = `a segment over ${LIMITS.nameBytesMax} bytes between slashes`;
    if (problem) {
      throw s3Error(
        'InvalidObjectName',
        `stripefs cannot store key ${JSON.stringify(key)}: it has ${problem}`,
        {
          key,
        },
      );
    }
  }
  return { path: `${bucketPath(bucket)}/${segments.join('/')}`, isDirectory, segments };
}

/** The parent directory of a path ('/b/a/x' -> '/b/a'). */
export function parentOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/')) || '/';
}
