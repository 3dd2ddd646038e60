// What every FUSE operation of one mount shares, and the one place where an
// operation's promise becomes the binding's callback: its time and errno are
// counted, and failures other than the everyday ones (a missing name, an
// existing one) are logged with their details (a degraded read names the
// stripe and the chunks it could not get).
import { type Stat, type StripeClient, stripedPartOf } from '../client/index.js';
import type { Logger } from '../common/logging.js';
import type { AttrCache } from './attr-cache.js';
import { errnoNameOf, errnoOf } from './errno.js';
import type { FuseStat } from './fuse-binding.js';
import type { OpenFiles } from './open-files.js';
import type { MountStats } from './stats.js';

export interface MountContext {
  client: StripeClient;
  attrs: AttrCache;
  files: OpenFiles;
  stats: MountStats;
  log: Logger;
  /** Owner of what this mount creates: the user who mounted (the binding does not pass the caller's). */
  uid: number;
  gid: number;
}

/** Errors programs meet in normal use (lookups of missing names, mkdir -p): not logged. */
const QUIET = new Set(['ENOENT', 'EEXIST', 'ENODATA', 'ENOTEMPTY', 'EOPNOTSUPP']);

/** Runs `work` and answers the kernel: cb(0, value) or cb(-errno). */
export function answer<T>(
  ctx: MountContext,
  op: string,
  path: string,
  cb: (errno: number, value?: T) => void,
  work: () => Promise<T>,
): void {
  const started = performance.now();
  work().then(
    (value) => {
      ctx.stats.record(op, performance.now() - started, undefined);
      cb(0, value);
    },
    (err: unknown) => {
      const name = errnoNameOf(err);
      ctx.stats.record(op, performance.now() - started, name);
      if (!QUIET.has(name)) ctx.log.warn({ op, path, errno: name, err }, `${op} ${path} failed`);
      cb(errnoOf(err));
    },
  );
}

/** For read and write: the answer is the byte count itself. */
export function answerCount(
  ctx: MountContext,
  op: string,
  path: string,
  cb: (result: number) => void,
  work: () => Promise<number>,
): void {
  answer(ctx, op, path, (errno, count?: number) => cb(errno === 0 ? (count ?? 0) : errno), work);
}

/** This mount's writers of `path` send, flush and commit what they wrote (before an open or a utimens). */
export async function syncWriters(ctx: MountContext, path: string): Promise<void> {
  for (const file of ctx.files.all())
    if (file.writable && file.path === path) await file.lock.exclusive(() => file.handle.sync());
}

const DIR_BLOCK_BYTES = 4096;

export function fuseStatOf(stat: Stat): FuseStat {
  return {
    mode: stat.mode,
    uid: stat.uid,
    gid: stat.gid,
    size: stat.size,
    nlink: stat.nlink,
    ino: stat.inode,
    // What cp, tar and Python buffer by: a whole stripe unit.
    blksize: stat.layout && stat.type === 'file' ? stripedPartOf(stat.layout).stripeSize : DIR_BLOCK_BYTES,
    blocks: Math.ceil(stat.size / 512),
    atime: stat.atimeMs,
    mtime: stat.mtimeMs,
    ctime: stat.ctimeMs,
  };
}
