// The file operations of the mount: create, open, read, write, truncate,
// flush, fsync and release over StripeFileHandle. Close-to-open as the
// library has it: flush (every close) and fsync send what was written,
// flush it on every copy and commit size and mtime; an open sees what the
// last close committed. Writes are aggregated into whole stripe units by the
// handle (the kernel sends at most mount.maxWriteBytes at once).
import { constants } from 'node:fs';
import type { StripeFileHandle } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import { answer, answerCount, fuseStatOf, type MountContext, syncWriters } from './context.js';
import type { FuseOps } from './fuse-binding.js';
import type { OpenFile } from './open-files.js';
import { statOf } from './ops-meta.js';

/** open(2)'s access mode bits (O_RDONLY 0, O_WRONLY 1, O_RDWR 2). */
const O_ACCMODE = 3;

function fileOf(ctx: MountContext, fd: number, path: string): OpenFile {
  const file = ctx.files.get(fd);
  if (!file) throw new StripeError('REQ_INVALID', `${path}: no open file ${fd} in this mount`);
  return file;
}

async function openHandle(ctx: MountContext, path: string, flags: number): Promise<OpenFile> {
  const writable = (flags & O_ACCMODE) !== constants.O_RDONLY;
  // What another open through this mount must see: this mount's writers of the path commit first.
  await syncWriters(ctx, path);
  ctx.attrs.drop(path);
  // O_TRUNC reached truncate before this open; O_APPEND writes come with the end as their position.
  const handle: StripeFileHandle = await ctx.client.open(path, writable ? 'r+' : 'r');
  return ctx.files.add(path, handle, writable);
}

/** Opening and closing: create, open, release, fgetattr. */
export function fileOps(ctx: MountContext): Pick<FuseOps, 'create' | 'open' | 'release' | 'fgetattr'> {
  const { client, attrs, files } = ctx;
  return {
    create: (path, mode, cb) =>
      answer(ctx, 'create', path, cb, async () => {
        attrs.drop(path);
        let handle: StripeFileHandle;
        try {
          handle = await client.open(path, 'wx', { mode: mode & 0o7777, uid: ctx.uid, gid: ctx.gid });
        } catch (err) {
          // Made by someone else since the kernel looked: O_CREAT without O_EXCL opens it as it is.
          if (!(err instanceof StripeError && err.code === 'NS_EXISTS')) throw err;
          handle = await client.open(path, 'r+');
        }
        return files.add(path, handle, true).fd;
      }),
    open: (path, flags, cb) =>
      answer(ctx, 'open', path, cb, async () => (await openHandle(ctx, path, flags)).fd),
    release: (path, fd, cb) =>
      answer(ctx, 'release', path, cb, async () => {
        const file = files.get(fd);
        if (!file) return;
        try {
          await file.lock.exclusive(() => file.handle.close());
        } finally {
          files.remove(fd);
          attrs.drop(file.path);
        }
      }),
    fgetattr: (path, fd, cb) =>
      answer(ctx, 'fgetattr', path, cb, async () =>
        fuseStatOf(await statOf(ctx, fileOf(ctx, fd, path).path)),
      ),
  };
}

/** Data: read, write, flush, fsync, truncate, ftruncate. */
export function ioOps(
  ctx: MountContext,
): Pick<FuseOps, 'read' | 'write' | 'flush' | 'fsync' | 'truncate' | 'ftruncate'> {
  const { client, attrs, files, stats } = ctx;
  return {
    read: (path, fd, buf, length, position, cb) =>
      answerCount(ctx, 'read', path, cb, async () => {
        const file = fileOf(ctx, fd, path);
        // Straight into the kernel's buffer: the answer goes only after every block has landed.
        const { bytesRead } = await file.lock.shared(() => file.handle.read(buf, 0, length, position));
        stats.bytesRead += bytesRead;
        return bytesRead;
      }),
    write: (path, fd, buf, length, position, cb) =>
      answerCount(ctx, 'write', path, cb, async () => {
        const file = fileOf(ctx, fd, path);
        // The handle copies the bytes into its stripe-unit buffer before write() resolves.
        const { bytesWritten } = await file.lock.exclusive(() => file.handle.write(buf, 0, length, position));
        stats.bytesWritten += bytesWritten;
        return bytesWritten;
      }),
    flush: (path, fd, cb) =>
      answer(ctx, 'flush', path, cb, async () => {
        const file = fileOf(ctx, fd, path);
        if (!file.writable) return;
        await file.lock.exclusive(() => file.handle.sync());
        attrs.drop(file.path);
      }),
    fsync: (path, _datasync, fd, cb) =>
      answer(ctx, 'fsync', path, cb, async () => {
        const file = fileOf(ctx, fd, path);
        if (file.writable) await file.lock.exclusive(() => file.handle.sync());
      }),
    truncate: (path, size, cb) =>
      answer(ctx, 'truncate', path, cb, async () => {
        attrs.drop(path);
        const writer = files.writerOfPath(path);
        if (writer) await writer.lock.exclusive(() => writer.handle.truncate(size));
        else await client.truncate(path, size);
      }),
    ftruncate: (path, fd, size, cb) =>
      answer(ctx, 'ftruncate', path, cb, async () => {
        const file = fileOf(ctx, fd, path);
        attrs.drop(file.path);
        await file.lock.exclusive(() => file.handle.truncate(size));
      }),
  };
}
