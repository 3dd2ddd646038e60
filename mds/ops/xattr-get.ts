// getxattr: read-only, outside the mutex, from acknowledged state. The
// layout attribute is the file's layout (a directory's default) as text.

import { formatLayout } from '../../layout/index.js';
import type { GetXattrRequest__Output, GetXattrResponse } from '../../proto/index.js';
import { KEYS } from '../keys.js';
import { layoutOfRecord } from '../layout.js';
import type { Namespace } from '../namespace.js';
import { parsePath } from '../paths.js';
import type { NodeRecord } from '../records.js';
import { checkXattrName, LAYOUT_XATTR, xattrMissing } from '../xattr-names.js';

export async function getXattr(ns: Namespace, request: GetXattrRequest__Output): Promise<GetXattrResponse> {
  const name = checkXattrName(request.name);
  const { node } = await ns.resolve(ns.reader, parsePath(request.path));
  if (name === LAYOUT_XATTR) {
    const text = layoutText(ns, node);
    if (text === undefined) throw xattrMissing(request.path, name);
    return { value: Buffer.from(text), inode: node.ino };
  }
  if (node.xattrs?.[name] === undefined) throw xattrMissing(request.path, name);
  const stored = await ns.reader.get<string>(KEYS.xattr(node.ino, name));
  // Removed between the two reads: as if the remove came first.
  if (stored === undefined) throw xattrMissing(request.path, name);
  return { value: Buffer.from(stored, 'base64'), inode: node.ino };
}

/** A file's layout, a directory's default (inherited or its own); symlinks have none. */
export function layoutText(ns: Namespace, node: NodeRecord): string | undefined {
  if (node.type === 'file') return node.layout ? formatLayout(layoutOfRecord(node.layout)) : undefined;
  if (node.type === 'dir') return formatLayout(layoutOfRecord(ns.dirDefault(node)));
  return undefined;
}
