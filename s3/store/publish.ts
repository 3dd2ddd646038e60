// Objects appear whole or not at all. A PUT (or copy, or multipart
// completion) writes a staging file in the acting identity's folder under
// /.stripefs-s3 (s3/actors.ts), with the layout the
// key's directory would give it and its metadata attribute set, then one
// rename puts it in place: atomically replacing an older object, or with
// noReplace failing if one exists (If-None-Match: *). A request that fails
// or whose client disconnects removes its staging file; nothing under the
// bucket ever shows a partial object.
import { randomBytes } from 'node:crypto';
import type { Layout, Stat, StripeClient, StripeFileHandle } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { stagingDirOf } from '../actors.js';
import { s3Error } from '../errors.js';
import { bucketPath, parentOf } from '../keys.js';
import { S3_LIMITS } from '../limits.js';

function codeOf(err: unknown): string | undefined {
  return err instanceof StripeError ? err.code : undefined;
}

/** A unique name that sorts by creation time (the sweep reads the time back). */
export function stagingName(): string {
  return `${Date.now().toString(36).padStart(9, '0')}-${randomBytes(8).toString('hex')}`;
}

export function stagingCreatedMs(name: string): number {
  return Number.parseInt(name.slice(0, name.indexOf('-')), 36);
}

function conflict(key: string, why: string): StripeError {
  return s3Error('KeyConflict', `key ${JSON.stringify(key)}: ${why}`, { key });
}

/**
 * The layout a new file at `path` would get: its directory's default, or the nearest existing
 * ancestor's. NoSuchBucket when the bucket itself is missing; KeyConflict when a prefix of the key is
 * an object (a file where a directory would go).
 */
export async function layoutFor(
  client: StripeClient,
  bucket: string,
  path: string,
  key: string,
): Promise<Layout | undefined> {
  const root = bucketPath(bucket);
  for (let dir = parentOf(path); ; dir = parentOf(dir)) {
    let stat: Stat;
    try {
      stat = await client.stat(dir);
    } catch (err) {
      if (codeOf(err) === 'NS_NOT_DIR') throw conflict(key, 'a prefix of it is an object');
      if (codeOf(err) !== 'NS_NOT_FOUND') throw err;
      if (dir === root) throw s3Error('NoSuchBucket', `no bucket ${JSON.stringify(bucket)}`, { bucket });
      continue;
    }
    if (!stat.isDirectory()) {
      if (dir === root) throw s3Error('NoSuchBucket', `no bucket ${JSON.stringify(bucket)}`, { bucket });
      throw conflict(key, `${dir.slice(root.length + 1)} is an object, so it cannot be a prefix`);
    }
    return stat.layout;
  }
}

export interface Staged {
  path: string;
  handle: StripeFileHandle;
}

/**
 * A staging file in the acting identity's folder (`scratch`), where it may write; `xattrs` are set
 * by its create (an object whose metadata is known before its bytes are written: no SetXattr).
 */
export async function createStaging(
  client: StripeClient,
  scratch: string,
  layout: Layout | undefined,
  xattrs?: Record<string, string>,
): Promise<Staged> {
  const path = `${stagingDirOf(scratch)}/${stagingName()}`;
  const handle = await client.open(path, 'wx', {
    ...(layout ? { layout } : {}),
    ...(xattrs ? { xattrs } : {}),
  });
  return { path, handle };
}

/** Closes (without caring how) and removes a staging file that will not be published. */
export async function discard(
  client: StripeClient,
  staged: { path: string; handle?: StripeFileHandle },
): Promise<void> {
  // The request's own failure is answered; this write will never be published.
  await staged.handle?.close().catch(() => undefined);
  // A staging file left behind is swept after stagingMaxAgeMs.
  await client.unlink(staged.path).catch(() => undefined);
}

/**
 * Renames `from` into the key's path, creating its directories. Retried when a directory it made is
 * removed under it (an emptied directory's cleanup racing it).
 */
export async function publish(
  client: StripeClient,
  from: string,
  to: string,
  key: string,
  options: { noReplace: boolean },
): Promise<void> {
  for (let tries = 1; ; tries++) {
    try {
      await client.rename(from, to, { noReplace: options.noReplace });
      return;
    } catch (err) {
      const code = codeOf(err);
      if (code === 'NS_EXISTS')
        throw s3Error('PreconditionFailed', `${key} exists (If-None-Match: *)`, { key });
      if (code === 'NS_IS_DIR') throw conflict(key, 'other keys have it as their prefix (it is a directory)');
      if (code === 'NS_NOT_DIR') throw conflict(key, 'a prefix of it is an object');
      if (code !== 'NS_NOT_FOUND' || tries >= S3_LIMITS.publishTriesMax) throw err;
    }
    await client.mkdir(parentOf(to), { recursive: true }).catch((err: unknown) => {
      if (codeOf(err) === 'NS_NOT_DIR' || codeOf(err) === 'NS_EXISTS')
        throw conflict(key, 'a prefix of it is an object');
      throw err;
    });
  }
}

/**
 * After a delete: removes the key's directories that are left empty, up to the bucket (S3 has no
 * empty prefixes). A directory made as a folder marker (`dir/`) is kept.
 */
export function removeEmptyParents(
  client: StripeClient,
  bucket: string,
  path: string,
  isMarker: (dir: string) => Promise<boolean>,
): Promise<void> {
  return removeEmptyDirs(client, bucket, parentOf(path), isMarker);
}

/** Removes `from` if it is empty and not a folder marker, then its parents the same way. */
export async function removeEmptyDirs(
  client: StripeClient,
  bucket: string,
  from: string,
  isMarker: (dir: string) => Promise<boolean>,
): Promise<void> {
  const root = bucketPath(bucket);
  for (let dir = from; dir.length > root.length; dir = parentOf(dir)) {
    // Removed meanwhile (another delete's cleanup): nothing left to remove here.
    const page = await client.listPage(dir, { limit: 1 }).catch(() => undefined);
    if (!page || page.entries.length > 0 || (await isMarker(dir))) return;
    try {
      await client.rmdir(dir);
    } catch {
      return; // filled again, or gone: either way the directories above are not empty of it
    }
  }
}
