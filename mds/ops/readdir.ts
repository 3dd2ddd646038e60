// readdir: one range scan over (parent inode, name), sorted by name bytes,
// a page at a time. The cursor is the last name returned. With attributes the
// values come from the same scan (dentries hold attributes inline).
import { LIMITS, StripeError } from '../../common/index.js';
import type { DirEntry, ReaddirRequest__Output, ReaddirResponse } from '../../proto/index.js';
import { KEYS, nameOfDentryKey } from '../keys.js';
import type { Namespace } from '../namespace.js';
import { parsePath, utf8Bytes } from '../paths.js';
import { type NodeRecord, toAttr, typeToWire } from '../records.js';

/** Page size when the caller asks for 0 (the server default). */
export const READDIR_PAGE_ENTRIES_DEFAULT = 1_000;

export async function readdir(ns: Namespace, request: ReaddirRequest__Output): Promise<ReaddirResponse> {
  const dir = await ns.resolveDir(ns.reader, parsePath(request.path));
  if (utf8Bytes(request.cursor) > LIMITS.nameBytesMax || request.cursor.includes('/')) {
    throw new StripeError('REQ_INVALID', 'readdir cursor is not a name returned by readdir');
  }
  const limit = Math.min(request.limit || READDIR_PAGE_ENTRIES_DEFAULT, LIMITS.readdirPageEntriesMax);
  const range = KEYS.dentryRange(dir.node.ino);
  const gt = request.cursor ? KEYS.dentry(dir.node.ino, request.cursor) : range.gt;
  // One extra entry tells whether another page follows.
  const rows = await ns.db.iterator({ gt, lt: range.lt, limit: limit + 1 }).all();
  const more = rows.length > limit;
  const entries: DirEntry[] = rows.slice(0, limit).map(([key, value]) => {
    const node = value as NodeRecord;
    return {
      name: nameOfDentryKey(key),
      type: typeToWire(node.type),
      inode: node.ino,
      attr: request.withAttrs ? toAttr(node, ns.rootDefault) : null,
    };
  });
  return { entries, nextCursor: more ? entries[entries.length - 1]!.name! : '' };
}
