// listxattr: the names the entry's record lists, sorted. The layout
// attribute is not listed: copying tools (cp -a, rsync -X, tar --xattrs)
// would try to set it on files whose layout is already fixed.
import type { ListXattrsRequest__Output, ListXattrsResponse } from '../../proto/index.js';
import type { Namespace } from '../namespace.js';
import { parsePath } from '../paths.js';

export async function listXattrs(
  ns: Namespace,
  request: ListXattrsRequest__Output,
): Promise<ListXattrsResponse> {
  const { node } = await ns.resolve(ns.reader, parsePath(request.path));
  return { names: Object.keys(node.xattrs ?? {}).sort() };
}
