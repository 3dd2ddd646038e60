// removexattr: the value and the name go in one transaction. Removing the
// layout attribute of a directory clears its default back to its parent's.
import { StripeError } from '../../common/index.js';
import type { RemoveXattrRequest__Output, RemoveXattrResponse } from '../../proto/index.js';
import { KEYS } from '../keys.js';
import type { Namespace } from '../namespace.js';
import { parsePath } from '../paths.js';
import type { NodeRecord } from '../records.js';
import { checkXattrName, LAYOUT_XATTR, xattrMissing } from '../xattr-names.js';
import { setDirLayout } from './setlayout.js';

export async function removeXattr(
  ns: Namespace,
  request: RemoveXattrRequest__Output,
): Promise<RemoveXattrResponse> {
  const name = checkXattrName(request.name);
  const names = parsePath(request.path);
  await ns.mutate(async (txn) => {
    const found = await ns.resolve(txn, names);
    if (name === LAYOUT_XATTR) {
      if (found.node.type === 'dir') {
        await setDirLayout(ns, txn, found, null, request.path);
        return;
      }
      throw new StripeError('LAYOUT_FIXED', `${request.path}: a file's layout is fixed at create`, {
        path: request.path,
      });
    }
    if (found.node.xattrs?.[name] === undefined) throw xattrMissing(request.path, name);
    const { [name]: _removed, ...rest } = found.node.xattrs;
    const updated: NodeRecord = { ...found.node, xattrs: rest, ctimeMs: ns.clock.nowMs() };
    if (Object.keys(rest).length === 0) delete updated.xattrs;
    txn.del(KEYS.xattr(found.node.ino, name));
    ns.putNode(txn, found.parentIno, found.name, updated);
  });
  return {};
}
