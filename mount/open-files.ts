// The mount's open files: a number per open (what the kernel passes back with
// every read, write, flush and release), the stripefs handle behind it, and
// the lock that orders its calls. A file open for writing here also answers
// getattr with the size it wrote (not yet committed) and is synced before the
// same file is opened again through this mount, so what one process wrote is
// what another sees, as on a local file system.
import type { StripeFileHandle } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import { MOUNT_LIMITS } from './limits.js';
import { RwLock } from './rw-lock.js';

export interface OpenFile {
  readonly fd: number;
  path: string;
  readonly handle: StripeFileHandle;
  readonly writable: boolean;
  readonly lock: RwLock;
}

/** fds are small positive numbers below this (the binding carries them as uint32). */
const FD_WRAP = 2 ** 31;

export class OpenFiles {
  private readonly files = new Map<number, OpenFile>();
  private nextFd = 1;

  constructor(private readonly openMax: number = MOUNT_LIMITS.openFilesMax) {}

  add(path: string, handle: StripeFileHandle, writable: boolean): OpenFile {
    if (this.files.size >= this.openMax)
      throw new StripeError('REQ_TOO_LARGE', `${this.openMax} files are open through this mount`);
    while (this.files.has(this.nextFd)) this.nextFd = (this.nextFd % (FD_WRAP - 1)) + 1;
    const file: OpenFile = { fd: this.nextFd, path, handle, writable, lock: new RwLock() };
    this.nextFd = (this.nextFd % (FD_WRAP - 1)) + 1;
    this.files.set(file.fd, file);
    return file;
  }

  get(fd: number): OpenFile | undefined {
    return this.files.get(fd);
  }

  remove(fd: number): void {
    this.files.delete(fd);
  }

  /** The writer of this path that wrote last, if any (its size is the file's). */
  writerOfPath(path: string): OpenFile | undefined {
    let found: OpenFile | undefined;
    for (const file of this.files.values()) if (file.writable && file.path === path) found = file;
    return found;
  }

  /** Open files follow a rename of their file or of a directory above it. */
  renamed(from: string, to: string): void {
    const prefix = `${from}/`;
    for (const file of this.files.values()) {
      if (file.path === from) file.path = to;
      else if (file.path.startsWith(prefix)) file.path = to + file.path.slice(from.length);
    }
  }

  all(): OpenFile[] {
    return [...this.files.values()];
  }

  get size(): number {
    return this.files.size;
  }
}
