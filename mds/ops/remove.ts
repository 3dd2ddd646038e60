// unlink (files) and rmdir (empty directories). The entry goes at once; a
// file's objects are queued for destruction in the same batch.
import { StripeError } from '../../common/index.js';
import type {
  RmdirRequest__Output,
  RmdirResponse,
  UnlinkRequest__Output,
  UnlinkResponse,
} from '../../proto/index.js';
import { KEYS } from '../keys.js';
import type { Namespace } from '../namespace.js';
import { parseChildPath, parsePath } from '../paths.js';
import type { NodeRecord } from '../records.js';
import type { Txn } from '../txn.js';

/** The existing entry at `path` in its parent directory (NS_NOT_FOUND otherwise). */
async function existingEntry(ns: Namespace, txn: Txn, path: string) {
  const { parent, name } = parseChildPath(path);
  const dir = await ns.resolveDir(txn, parent);
  const node = await txn.get<NodeRecord>(KEYS.dentry(dir.node.ino, name));
  if (!node) throw new StripeError('NS_NOT_FOUND', `${path} does not exist`, { path });
  return { dirIno: dir.node.ino, name, node };
}

export async function unlink(ns: Namespace, request: UnlinkRequest__Output): Promise<UnlinkResponse> {
  if (parsePath(request.path).length === 0)
    throw new StripeError('NS_IS_DIR', '/ is a directory', { path: '/' });
  await ns.mutate(async (txn) => {
    const { dirIno, name, node } = await existingEntry(ns, txn, request.path);
    if (node.type === 'dir')
      throw new StripeError('NS_IS_DIR', `${request.path} is a directory`, { path: request.path });
    ns.unlinkEntry(txn, dirIno, name, node);
  });
  return {};
}

export async function rmdir(ns: Namespace, request: RmdirRequest__Output): Promise<RmdirResponse> {
  if (parsePath(request.path).length === 0)
    throw new StripeError('NS_BUSY', 'the root directory cannot be removed', { path: '/' });
  await ns.mutate(async (txn) => {
    const { dirIno, name, node } = await existingEntry(ns, txn, request.path);
    if (node.type !== 'dir')
      throw new StripeError('NS_NOT_DIR', `${request.path} is not a directory`, { path: request.path });
    if (!(await ns.isEmptyDir(txn, node.ino)))
      throw new StripeError('NS_NOT_EMPTY', `${request.path} is not empty`, { path: request.path });
    ns.unlinkEntry(txn, dirIno, name, node);
  });
  return {};
}
