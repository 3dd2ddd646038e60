// Extended attribute names and sizes: which namespaces are stored, the
// layout attribute that is computed rather than stored, and the limits of
// one entry's attributes (LIMITS.xattr*). Pure.
import { LIMITS, StripeError } from '../common/index.js';
import type { NodeRecord } from './records.js';

/** The layout in its text form: a file's own, a directory's default. Never listed, never stored. */
export const LAYOUT_XATTR = 'user.stripefs.layout';
const RESERVED_PREFIX = 'user.stripefs.';
/** Namespaces stored as given; system.* (ACLs) and others are refused with EOPNOTSUPP. */
const STORED_NAMESPACES = ['user.', 'trusted.', 'security.'] as const;

export function checkXattrName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0 || name.includes('\0'))
    throw new StripeError('REQ_INVALID', 'an extended attribute name must be a non-empty string without NUL');
  const bytes = Buffer.byteLength(name);
  if (bytes > LIMITS.xattrNameBytesMax) {
    throw new StripeError(
      'XATTR_NAME_TOO_LONG',
      `extended attribute name of ${bytes} bytes exceeds ${LIMITS.xattrNameBytesMax}`,
      { bytes, limit: LIMITS.xattrNameBytesMax },
    );
  }
  if (name === LAYOUT_XATTR) return name;
  const space = STORED_NAMESPACES.find((prefix) => name.startsWith(prefix));
  if (!space || name.startsWith(RESERVED_PREFIX)) {
    throw new StripeError(
      'XATTR_NOT_SUPPORTED',
      `${JSON.stringify(name)}: stripefs stores user., trusted. and security. attributes (${RESERVED_PREFIX}* is reserved)`,
      { name },
    );
  }
  if (name.length === space.length)
    throw new StripeError('REQ_INVALID', `${JSON.stringify(name)} has a namespace but no name`, { name });
  return name;
}

/** Bytes an entry's attributes take: names plus values. */
function totalBytes(xattrs: Record<string, number>): number {
  let total = 0;
  for (const [name, size] of Object.entries(xattrs)) total += Buffer.byteLength(name) + size;
  return total;
}

/** The entry's attribute sizes with `name` set to `valueBytes`, within every limit. */
export function withXattr(node: NodeRecord, name: string, valueBytes: number): Record<string, number> {
  if (valueBytes > LIMITS.xattrValueBytesMax) {
    throw new StripeError(
      'XATTR_TOO_LARGE',
      `extended attribute value of ${valueBytes} bytes exceeds ${LIMITS.xattrValueBytesMax}`,
      { bytes: valueBytes, limit: LIMITS.xattrValueBytesMax },
    );
  }
  const next = { ...(node.xattrs ?? {}), [name]: valueBytes };
  const count = Object.keys(next).length;
  if (count > LIMITS.xattrCountMax) {
    throw new StripeError(
      'XATTR_TOO_MANY',
      `an entry holds at most ${LIMITS.xattrCountMax} extended attributes`,
      { limit: LIMITS.xattrCountMax },
    );
  }
  const total = totalBytes(next);
  if (total > LIMITS.xattrTotalBytesMax) {
    throw new StripeError(
      'XATTR_TOO_LARGE',
      `the extended attributes of one entry would take ${total} bytes, over ${LIMITS.xattrTotalBytesMax}`,
      { bytes: total, limit: LIMITS.xattrTotalBytesMax },
    );
  }
  return next;
}

export function xattrMissing(path: string, name: string): StripeError {
  return new StripeError('XATTR_NOT_FOUND', `${path} has no extended attribute ${name}`, { path, name });
}

/**
 * The attributes a Create sets on the file it makes, checked as SetXattr checks them one by one
 * (names, each value's size, the count and total of the file's): the sizes to record. A name given
 * twice is refused, and so is the layout attribute (a create takes the layout in its own field).
 */
export function checkCreateXattrs(
  entries: readonly { name: string; value: Buffer }[],
): Record<string, number> {
  let sizes: Record<string, number> = {};
  for (const { name, value } of entries) {
    checkXattrName(name);
    if (name === LAYOUT_XATTR)
      throw new StripeError(
        'REQ_INVALID',
        `a create takes its layout in its layout field, not as ${LAYOUT_XATTR}`,
        {
          name,
        },
      );
    if (sizes[name] !== undefined)
      throw new StripeError('REQ_INVALID', `extended attribute ${name} is given twice`, { name });
    sizes = withXattr({ xattrs: sizes } as NodeRecord, name, value.length);
  }
  return sizes;
}
