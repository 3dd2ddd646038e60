// setxattr: the value goes under its own key and the entry's record lists
// its name and size, in one transaction. The layout attribute on a directory
// sets its default layout (as `lfs setstripe -d`); on a file it may only
// restate the layout the file has, since a layout is fixed at create.
import { StripeError } from '../../common/index.js';
import { formatLayout, parseLayout } from '../../layout/index.js';
import type { SetXattrRequest__Output, SetXattrResponse } from '../../proto/index.js';
import { KEYS } from '../keys.js';
import { recordOf } from '../layout.js';
import type { Namespace, Resolved } from '../namespace.js';
import { parsePath } from '../paths.js';
import type { NodeRecord } from '../records.js';
import type { Txn } from '../txn.js';
import { checkXattrName, LAYOUT_XATTR, withXattr, xattrMissing } from '../xattr-names.js';
import { setDirLayout } from './setlayout.js';
import { layoutText } from './xattr-get.js';

export async function setXattr(ns: Namespace, request: SetXattrRequest__Output): Promise<SetXattrResponse> {
  const name = checkXattrName(request.name);
  const names = parsePath(request.path);
  const value = Buffer.from(request.value);
  await ns.mutate(async (txn) => {
    const found = await ns.resolve(txn, names);
    if (name === LAYOUT_XATTR) return setLayoutXattr(ns, txn, found, value.toString('utf8'), request.path);
    const exists = found.node.xattrs?.[name] !== undefined;
    if (exists && request.mode === 'XATTR_SET_MODE_CREATE')
      throw new StripeError('XATTR_EXISTS', `${request.path} has extended attribute ${name}`, {
        path: request.path,
        name,
      });
    if (!exists && request.mode === 'XATTR_SET_MODE_REPLACE') throw xattrMissing(request.path, name);
    const updated: NodeRecord = {
      ...found.node,
      xattrs: withXattr(found.node, name, value.length),
      ctimeMs: ns.clock.nowMs(),
    };
    txn.put(KEYS.xattr(found.node.ino, name), value.toString('base64'));
    ns.putNode(txn, found.parentIno, found.name, updated);
  });
  return {};
}

async function setLayoutXattr(ns: Namespace, txn: Txn, found: Resolved, text: string, path: string) {
  const layout = parseLayout(text);
  if (found.node.type === 'dir') {
    await setDirLayout(ns, txn, found, recordOf(layout), path);
    return;
  }
  const current = layoutText(ns, found.node);
  if (current === undefined)
    throw new StripeError('NS_IS_SYMLINK', `${path} is a symlink and has no layout`, { path });
  if (current !== formatLayout(layout)) {
    throw new StripeError(
      'LAYOUT_FIXED',
      `${path} has layout ${current}; a file's layout is fixed at create`,
      {
        path,
        layout: current,
      },
    );
  }
}
