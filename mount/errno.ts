// Errors become the negative errno a FUSE reply carries, from the error
// registry (common/errors.ts). Codes that mean the cluster could not be
// reached or answered too late are EIO at the mount: a program sees a failed
// IO (as with a lost disk), not a network errno it would not expect from a
// file. Anything that is not a StripeError is a bug: EIO, and logged.
import { constants } from 'node:os';
import { ERROR_CODES, type ErrorCode, StripeError } from '../common/errors.js';

const ERRNO = constants.errno as Record<string, number>;
const EIO = ERRNO.EIO as number;
const AS_EIO: ReadonlySet<ErrorCode> = new Set(['REQ_UNAVAILABLE', 'REQ_TIMEOUT', 'OST_DOWN']);

/** The errno name a program sees for this error. */
export function errnoNameOf(err: unknown): string {
  if (!(err instanceof StripeError)) return 'EIO';
  if (AS_EIO.has(err.code)) return 'EIO';
  const name = ERROR_CODES[err.code].errno;
  return ERRNO[name] === undefined ? 'EIO' : name;
}

/** The negative errno of a FUSE reply. */
export function errnoOf(err: unknown): number {
  return -(ERRNO[errnoNameOf(err)] ?? EIO);
}

/** A negative errno by name (ENOENT, ...). */
export function errno(
  name: 'ENOENT' | 'EBADF' | 'EPERM' | 'EINVAL' | 'EMFILE' | 'ENODATA' | 'EROFS',
): number {
  return -(ERRNO[name] as number);
}
