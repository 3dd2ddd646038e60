// Path parsing for the namespace: absolute, '/'-separated, no empty
// components, no '.' or '..', no NUL, names up to NAME_MAX bytes and paths up
// to PATH_MAX bytes. Pure: every namespace operation validates here first, so
// nothing malformed ever reaches a key.
import { LIMITS, StripeError } from '../common/index.js';

const encoder = new TextEncoder();

export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}

/** Checks one directory-entry name; throws NS_INVALID_NAME or NS_NAME_TOO_LONG. */
export function checkName(name: string, path: string): void {
  if (name.length === 0)
    throw new StripeError('NS_INVALID_NAME', `empty path component in ${JSON.stringify(path)}`, { path });
  if (name === '.' || name === '..') {
    throw new StripeError('NS_INVALID_NAME', `'${name}' is not allowed in ${JSON.stringify(path)}`, { path });
  }
  if (name.includes('\0'))
    throw new StripeError('NS_INVALID_NAME', 'NUL in a path', { path: path.replace(/\0/g, '\\0') });
  if (name.includes('/'))
    throw new StripeError('NS_INVALID_NAME', `'/' in name ${JSON.stringify(name)}`, { name });
  const bytes = utf8Bytes(name);
  if (bytes > LIMITS.nameBytesMax) {
    throw new StripeError('NS_NAME_TOO_LONG', `name of ${bytes} bytes exceeds ${LIMITS.nameBytesMax}`, {
      bytes,
      limit: LIMITS.nameBytesMax,
    });
  }
}

/** '/a/b' -> ['a', 'b']; '/' -> []. */
export function parsePath(path: unknown): string[] {
  if (typeof path !== 'string' || path.length === 0) throw new StripeError('NS_INVALID_NAME', 'empty path');
  const bytes = utf8Bytes(path);
  if (bytes > LIMITS.pathBytesMax) {
    throw new StripeError('NS_NAME_TOO_LONG', `path of ${bytes} bytes exceeds ${LIMITS.pathBytesMax}`, {
      bytes,
      limit: LIMITS.pathBytesMax,
    });
  }
  if (!path.startsWith('/'))
    throw new StripeError('NS_INVALID_NAME', `path ${JSON.stringify(path)} is not absolute`);
  if (path === '/') return [];
  const names = path.slice(1).split('/');
  for (const name of names) checkName(name, path);
  return names;
}

/** Splits a non-root path into its parent components and its last name. */
export function parseChildPath(path: unknown): { parent: string[]; name: string } {
  const names = parsePath(path);
  const name = names.pop();
  if (name === undefined)
    throw new StripeError('NS_BUSY', 'the root directory cannot be the target of this operation');
  return { parent: names, name };
}
