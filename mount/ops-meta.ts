// The namespace operations of the mount: lookups (getattr), listings,
// statfs, mkdir, rmdir, unlink, rename, symlinks, chmod, chown, utimens and
// extended attributes, each one call of the client library.
import type { Stat } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import { answer, fuseStatOf, type MountContext, syncWriters } from './context.js';
import { errno } from './errno.js';
import { type FuseOps, type FuseStatfs, UTIME_OMIT_MS } from './fuse-binding.js';

/** chown's "leave unchanged" ((uid_t)-1). */
const ID_UNCHANGED = 0xffff_ffff;
/** statfs fields are 32 bits in the binding: the fragment size grows until the block counts fit. */
const STATFS_FRAGMENT_BYTES_MIN = 4096;
const UINT32_MAX = 0xffff_ffff;
const NAME_BYTES_MAX = 255;
const XATTR_CREATE = 1;
const XATTR_REPLACE = 2;

/** The entry's attributes: a writer open here knows its size before the MDS does. */
export async function statOf(ctx: MountContext, path: string): Promise<Stat> {
  let stat = ctx.attrs.get(path);
  if (!stat) {
    stat = await ctx.client.stat(path);
    ctx.attrs.set(path, stat);
  }
  const writer = ctx.files.writerOfPath(path);
  if (writer && writer.handle.inode === stat.inode && writer.handle.size !== stat.size)
    return { ...stat, size: writer.handle.size, mtimeMs: Math.max(stat.mtimeMs, Date.now()) };
  return stat;
}

function statfsOf(fs: Awaited<ReturnType<MountContext['client']['statfs']>>): FuseStatfs {
  let frsize = STATFS_FRAGMENT_BYTES_MIN;
  while (fs.totalBytes / frsize > UINT32_MAX) frsize *= 2;
  const files = Math.min(UINT32_MAX, fs.files + fs.filesFree);
  return {
    bsize: frsize,
    frsize,
    blocks: Math.floor(fs.totalBytes / frsize),
    bfree: Math.floor(fs.availableBytes / frsize),
    bavail: Math.floor(fs.availableBytes / frsize),
    files,
    ffree: files - Math.min(fs.files, files),
    favail: files - Math.min(fs.files, files),
    fsid: 0,
    flag: 0,
    namemax: NAME_BYTES_MAX,
  };
}

function childPath(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

/** Lookups: getattr, readdir (attributes with the listing), statfs, readlink. */
export function lookupOps(ctx: MountContext): Pick<FuseOps, 'getattr' | 'readdir' | 'statfs' | 'readlink'> {
  const { client, attrs } = ctx;
  type Listed = { names: string[]; stats: ReturnType<typeof fuseStatOf>[] };
  return {
    getattr: (path, cb) => answer(ctx, 'getattr', path, cb, async () => fuseStatOf(await statOf(ctx, path))),
    readdir: (path, cb) =>
      answer(
        ctx,
        'readdir',
        path,
        (e, listed?: Listed) => cb(e, listed?.names, listed?.stats),
        async () => {
          // One call lists every entry with its attributes; they serve the lookups that follow (ls -l, os.walk).
          const entries = await client.list(path);
          for (const e of entries) attrs.set(childPath(path, e.name), e.stat);
          return { names: entries.map((e) => e.name), stats: entries.map((e) => fuseStatOf(e.stat)) };
        },
      ),
    statfs: (path, cb) => answer(ctx, 'statfs', path, cb, async () => statfsOf(await client.statfs())),
    readlink: (path, cb) => answer(ctx, 'readlink', path, cb, () => client.readlink(path)),
  };
}

/** Entries: mkdir, rmdir, unlink, rename, link (refused), symlink. */
export function entryOps(
  ctx: MountContext,
): Pick<FuseOps, 'mkdir' | 'rmdir' | 'unlink' | 'rename' | 'link' | 'symlink'> {
  const { client, attrs, files } = ctx;
  return {
    mkdir: (path, mode, cb) =>
      answer(ctx, 'mkdir', path, cb, async () => {
        attrs.drop(path);
        await client.mkdir(path, { mode: mode & 0o7777, uid: ctx.uid, gid: ctx.gid });
      }),
    rmdir: (path, cb) =>
      answer(ctx, 'rmdir', path, cb, async () => {
        attrs.dropTree(path);
        await client.rmdir(path);
      }),
    unlink: (path, cb) =>
      answer(ctx, 'unlink', path, cb, async () => {
        attrs.drop(path);
        await client.unlink(path);
      }),
    rename: (from, to, cb) =>
      answer(ctx, 'rename', from, cb, async () => {
        attrs.dropTree(from);
        attrs.dropTree(to);
        await client.rename(from, to);
        files.renamed(from, to);
      }),
    // No hard links in stripefs: EPERM, as Linux file systems without them answer (git falls back to rename).
    link: (_from, _to, cb) => {
      ctx.stats.record('link', 0, 'EPERM');
      cb(errno('EPERM'));
    },
    symlink: (target, path, cb) =>
      answer(ctx, 'symlink', path, cb, async () => {
        attrs.drop(path);
        await client.symlink(target, path, { uid: ctx.uid, gid: ctx.gid });
      }),
  };
}

/** Attribute changes: chmod, chown, utimens. */
export function attrOps(ctx: MountContext): Pick<FuseOps, 'chmod' | 'chown' | 'utimens'> {
  const { client, attrs } = ctx;
  const setAttr = async (path: string, change: Parameters<typeof client.setAttr>[1]): Promise<void> => {
    attrs.drop(path);
    attrs.set(path, await client.setAttr(path, change));
  };
  return {
    chmod: (path, mode, cb) => answer(ctx, 'chmod', path, cb, () => setAttr(path, { mode: mode & 0o7777 })),
    chown: (path, uid, gid, cb) =>
      answer(ctx, 'chown', path, cb, () =>
        setAttr(path, {
          ...(uid === ID_UNCHANGED ? {} : { uid }),
          ...(gid === ID_UNCHANGED ? {} : { gid }),
        }),
      ),
    utimens: (path, atimeMs, mtimeMs, cb) =>
      answer(ctx, 'utimens', path, cb, async () => {
        // cp -a sets times before it closes: what it wrote is committed first, so its close
        // has nothing left to commit and keeps the time set here.
        await syncWriters(ctx, path);
        await setAttr(path, {
          ...(atimeMs >= UTIME_OMIT_MS ? {} : { atimeMs }),
          ...(mtimeMs >= UTIME_OMIT_MS ? {} : { mtimeMs }),
        });
      }),
  };
}

export function xattrOps(
  ctx: MountContext,
): Pick<FuseOps, 'getxattr' | 'setxattr' | 'listxattr' | 'removexattr'> {
  const { client, attrs } = ctx;
  return {
    getxattr: (path, name, _position, cb) =>
      answer(ctx, 'getxattr', path, cb, () => client.getXattr(path, name)),
    setxattr: (path, name, value, _position, flags, cb) => {
      // The binding's buffer is the kernel's: copied before the call leaves this turn.
      const copy = Buffer.from(value);
      answer(ctx, 'setxattr', path, cb, async () => {
        if ((flags & ~(XATTR_CREATE | XATTR_REPLACE)) !== 0)
          throw new StripeError('REQ_INVALID', `setxattr flags ${flags}`);
        attrs.drop(path);
        await client.setXattr(path, name, copy, {
          create: (flags & XATTR_CREATE) !== 0,
          replace: (flags & XATTR_REPLACE) !== 0,
        });
      });
    },
    listxattr: (path, cb) => answer(ctx, 'listxattr', path, cb, () => client.listXattrs(path)),
    removexattr: (path, name, cb) =>
      answer(ctx, 'removexattr', path, cb, async () => {
        attrs.drop(path);
        await client.removeXattr(path, name);
      }),
  };
}
