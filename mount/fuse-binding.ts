// The one module that knows the FUSE binding. stripefs mounts through
// fuse-native 2.x (libfuse 2, high-level path API, fuse_loop_mt: one kernel
// request per FUSE thread, each answered from this process's event loop).
// fuse-native is no longer maintained upstream, so nothing else imports it:
// the rest of mount/ speaks the FuseOps interface below (paths, negative
// errno numbers, stat objects with times in ms). To swap the binding (for
// example a libfuse 3 binding with readdirplus and max_pages), implement
// createFuseSession() and checkFuse() over the other library and keep
// FuseOps; scripts/build-fuse.mjs goes with it.
import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants as os } from 'node:os';
import { dirname, join } from 'node:path';
import { StripeError } from '../common/errors.js';

/** What getattr answers (times in ms since 1970). */
export interface FuseStat {
  mode: number;
  uid: number;
  gid: number;
  size: number;
  nlink: number;
  ino: number;
  blksize: number;
  blocks: number;
  atime: number;
  mtime: number;
  ctime: number;
}

export interface FuseStatfs {
  bsize: number;
  frsize: number;
  blocks: number;
  bfree: number;
  bavail: number;
  files: number;
  ffree: number;
  favail: number;
  fsid: number;
  flag: number;
  namemax: number;
}

/** Every callback takes 0 or a negative errno first. */
type Done = (errno: number) => void;
type With<T> = (errno: number, value?: T) => void;

/** A utimens time the caller left unchanged (UTIME_OMIT, from scripts/build-fuse.mjs). */
export const UTIME_OMIT_MS = 2 ** 53 - 1;

export interface FuseOps {
  init(cb: Done): void;
  getattr(path: string, cb: With<FuseStat>): void;
  fgetattr(path: string, fd: number, cb: With<FuseStat>): void;
  readdir(path: string, cb: (errno: number, names?: string[], stats?: FuseStat[]) => void): void;
  statfs(path: string, cb: With<FuseStatfs>): void;
  create(path: string, mode: number, cb: With<number>): void;
  open(path: string, flags: number, cb: With<number>): void;
  read(path: string, fd: number, buf: Buffer, length: number, position: number, cb: Done): void;
  write(path: string, fd: number, buf: Buffer, length: number, position: number, cb: Done): void;
  flush(path: string, fd: number, cb: Done): void;
  fsync(path: string, datasync: boolean, fd: number, cb: Done): void;
  release(path: string, fd: number, cb: Done): void;
  truncate(path: string, size: number, cb: Done): void;
  ftruncate(path: string, fd: number, size: number, cb: Done): void;
  unlink(path: string, cb: Done): void;
  mkdir(path: string, mode: number, cb: Done): void;
  rmdir(path: string, cb: Done): void;
  rename(from: string, to: string, cb: Done): void;
  link(from: string, to: string, cb: Done): void;
  symlink(target: string, path: string, cb: Done): void;
  readlink(path: string, cb: With<string>): void;
  chmod(path: string, mode: number, cb: Done): void;
  chown(path: string, uid: number, gid: number, cb: Done): void;
  utimens(path: string, atimeMs: number, mtimeMs: number, cb: Done): void;
  getxattr(path: string, name: string, position: number, cb: With<Buffer>): void;
  setxattr(path: string, name: string, value: Buffer, position: number, flags: number, cb: Done): void;
  listxattr(path: string, cb: With<string[]>): void;
  removexattr(path: string, name: string, cb: Done): void;
}

export interface FuseOptions {
  attrTimeoutMs: number;
  entryTimeoutMs: number;
  /** A request not answered in this long gets ETIMEDOUT (fuse-native's own per-request timer). */
  opTimeoutMs: number;
  maxWriteBytes: number;
  maxReadBytes: number;
  allowOther: boolean;
  debug?: boolean;
}

export interface FuseSession {
  mount(): Promise<void>;
  unmount(): Promise<void>;
}

/** What loading the binding found: the rebuilt addon (correct times) or the package's prebuild. */
export interface FuseBinding {
  rebuilt: boolean;
  create(mountpoint: string, ops: FuseOps, options: FuseOptions): FuseSession;
}

const LIBFUSE_PATHS = [
  '/usr/lib/x86_64-linux-gnu/libfuse.so.2',
  '/lib/x86_64-linux-gnu/libfuse.so.2',
  '/usr/lib/libfuse.so.2',
];
const FUSERMOUNT_PATHS = ['/usr/bin/fusermount', '/bin/fusermount'];
const SETUID_BIT = 0o4000;

function unavailable(message: string): StripeError {
  return new StripeError('MOUNT_UNAVAILABLE', message);
}

/** Root, or a setuid fusermount; a usable /dev/fuse; libfuse.so.2. Throws MOUNT_UNAVAILABLE naming what is missing. */
export function checkFuse(): void {
  if (process.platform !== 'linux')
    throw unavailable(`stripefs mount runs on Linux (this is ${process.platform})`);
  const root = process.getuid?.() === 0;
  const fusermount = FUSERMOUNT_PATHS.find((path) => existsSync(path));
  if (!root && !(fusermount && (statSync(fusermount).mode & SETUID_BIT) !== 0)) {
    throw unavailable(
      'stripefs mount needs root (or a setuid fusermount from the fuse package): run it with sudo',
    );
  }
  if (!existsSync('/dev/fuse'))
    throw unavailable(
      '/dev/fuse is missing: load the fuse module (modprobe fuse), or in a container pass --device /dev/fuse',
    );
  try {
    accessSync('/dev/fuse', constants.R_OK | constants.W_OK);
  } catch {
    throw unavailable('/dev/fuse is not readable and writable by this user');
  }
  if (!LIBFUSE_PATHS.some((path) => existsSync(path)))
    throw unavailable('libfuse.so.2 is missing: apt-get install libfuse2 (and fuse3 or fuse for fusermount)');
  if (!fusermount && !existsSync('/usr/bin/fusermount3'))
    throw unavailable('fusermount is missing: apt-get install fuse3 (or fuse)');
}

interface FuseNativeClass {
  new (mountpoint: string, ops: object, options: object): FuseNativeInstance;
  prototype: FuseNativeInstance;
}
interface FuseNativeInstance {
  mount(cb: (err: Error | null) => void): void;
  unmount(cb: (err: Error | null) => void): void;
}

/** Loads fuse-native; MOUNT_UNAVAILABLE with the loader's reason when it cannot. */
export function loadFuse(): FuseBinding {
  checkFuse();
  const require = createRequire(import.meta.url);
  let Fuse: FuseNativeClass;
  try {
    Fuse = require('fuse-native') as FuseNativeClass;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    if (/libfuse/.test(reason))
      throw unavailable(`libfuse.so.2 did not load (${reason}): apt-get install --reinstall libfuse2`);
    throw unavailable(
      `the FUSE binding (fuse-native) did not load (${reason}): npm install, then npm run build`,
    );
  }
  // node-gyp-build loads build/Release (scripts/build-fuse.mjs) before the package's prebuild.
  const rebuilt = existsSync(join(dirname(require.resolve('fuse-native')), 'build/Release/fuse.node'));
  return {
    rebuilt,
    create: (mountpoint, ops, options) => session(Fuse, mountpoint, ops, options),
  };
}

/** Mount options fuse-native has no flag for, appended to its -o list. */
function extraOptions(options: FuseOptions): string[] {
  return [
    'big_writes',
    `max_write=${options.maxWriteBytes}`,
    `max_read=${options.maxReadBytes}`,
    'default_permissions',
    // Numbers are the seconds libfuse takes; 0 turns the kernel's cache off.
    `attr_timeout=${options.attrTimeoutMs / 1000}`,
    `entry_timeout=${options.entryTimeoutMs / 1000}`,
    `negative_timeout=${options.entryTimeoutMs / 1000}`,
    'fsname=stripefs',
    'subtype=stripefs',
  ];
}

function session(Fuse: FuseNativeClass, mountpoint: string, ops: FuseOps, options: FuseOptions): FuseSession {
  const extra = extraOptions(options).join(',');
  // fuse-native builds its -o list from a fixed set of flags; the rest is appended here.
  class StripeFuse extends (Fuse as unknown as new (...args: unknown[]) => object) {
    _fuseOptions(): string {
      const base = (Fuse.prototype as unknown as { _fuseOptions(): string })._fuseOptions.call(this);
      return base ? `${base},${extra}` : `-o${extra}`;
    }
    // fuse-native copies a getxattr value into the kernel's buffer without checking its size;
    // a value larger than the buffer must be ERANGE, and a size query (empty buffer) its length.
    _op_getxattr(
      signal: (res: number, buf: ArrayBuffer) => void,
      path: string,
      name: string,
      valueBuf: Buffer,
      position: number,
    ): void {
      ops.getxattr(path, name, position, (errno, value) => {
        if (errno !== 0 || !value) return signal(errno || -os.errno.ENODATA, valueBuf.buffer as ArrayBuffer);
        if (valueBuf.length > 0 && value.length > valueBuf.length)
          return signal(-os.errno.ERANGE, valueBuf.buffer as ArrayBuffer);
        value.copy(valueBuf);
        return signal(value.length, valueBuf.buffer as ArrayBuffer);
      });
    }
    _op_listxattr(signal: (res: number, buf: ArrayBuffer) => void, path: string, listBuf: Buffer): void {
      ops.listxattr(path, (errno, names) => {
        if (errno !== 0 || !names) return signal(errno, listBuf.buffer as ArrayBuffer);
        const list = Buffer.from(names.map((n) => `${n}\0`).join(''));
        if (listBuf.length === 0) return signal(list.length, listBuf.buffer as ArrayBuffer);
        if (list.length > listBuf.length) return signal(-os.errno.ERANGE, listBuf.buffer as ArrayBuffer);
        list.copy(listBuf);
        return signal(list.length, listBuf.buffer as ArrayBuffer);
      });
    }
  }
  const fuse = new StripeFuse(mountpoint, ops, {
    allowOther: options.allowOther,
    debug: options.debug ?? false,
    timeout: options.opTimeoutMs,
  }) as unknown as FuseNativeInstance;
  return {
    mount: () => new Promise<void>((resolve, reject) => fuse.mount((err) => (err ? reject(err) : resolve()))),
    unmount: () =>
      new Promise<void>((resolve, reject) => fuse.unmount((err) => (err ? reject(err) : resolve()))),
  };
}

/** Lazily detaches a mount whose process is gone (fusermount -uz): the state after a crash. */
export function detachMount(mountpoint: string): Promise<void> {
  const tool = existsSync('/usr/bin/fusermount') ? 'fusermount' : 'fusermount3';
  return new Promise((resolve, reject) => {
    execFile(tool, ['-uz', mountpoint], (err, _stdout, stderr) => {
      if (err)
        reject(
          new StripeError(
            'MOUNT_POINT_INVALID',
            `${tool} -uz ${mountpoint}: ${stderr.trim() || err.message}`,
          ),
        );
      else resolve();
    });
  });
}
