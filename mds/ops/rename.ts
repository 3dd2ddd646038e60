// rename: atomic, across directories, replacing the target as POSIX does
// (a file replaces a file, an empty directory is replaced by a directory),
// or with no_replace failing with NS_EXISTS when the target exists (as
// renameat2's RENAME_NOREPLACE: the check and the move are one batch).
// The whole move is one batch; a replaced file's objects are queued for
// destruction in that same batch.
import { StripeError } from '../../common/index.js';
import type { RenameRequest__Output, RenameResponse } from '../../proto/index.js';
import { KEYS } from '../keys.js';
import type { Namespace } from '../namespace.js';
import { parseChildPath, parsePath } from '../paths.js';
import type { NodeRecord } from '../records.js';

function busyIfRoot(path: string): void {
  if (parsePath(path).length === 0)
    throw new StripeError('NS_BUSY', 'the root directory cannot be renamed or replaced', { path });
}

export async function rename(ns: Namespace, request: RenameRequest__Output): Promise<RenameResponse> {
  busyIfRoot(request.fromPath);
  busyIfRoot(request.toPath);
  const from = parseChildPath(request.fromPath);
  const to = parseChildPath(request.toPath);
  await ns.mutate(async (txn) => {
    const fromDir = await ns.resolveDir(txn, from.parent);
    const node = await txn.get<NodeRecord>(KEYS.dentry(fromDir.node.ino, from.name));
    if (!node)
      throw new StripeError('NS_NOT_FOUND', `${request.fromPath} does not exist`, { path: request.fromPath });
    const toDir = await ns.resolveDir(txn, to.parent);
    if (node.type === 'dir' && (toDir.node.ino === node.ino || toDir.chain.includes(node.ino))) {
      throw new StripeError('NS_INVALID_RENAME', `cannot move ${request.fromPath} into itself`, {
        from: request.fromPath,
        to: request.toPath,
      });
    }
    if (toDir.node.ino === fromDir.node.ino && to.name === from.name) return;
    const target = await txn.get<NodeRecord>(KEYS.dentry(toDir.node.ino, to.name));
    if (target) {
      if (request.noReplace)
        throw new StripeError('NS_EXISTS', `${request.toPath} exists`, { path: request.toPath });
      if (node.type === 'dir' && target.type !== 'dir')
        throw new StripeError('NS_NOT_DIR', `${request.toPath} is not a directory`, { path: request.toPath });
      if (node.type !== 'dir' && target.type === 'dir')
        throw new StripeError('NS_IS_DIR', `${request.toPath} is a directory`, { path: request.toPath });
      if (target.type === 'dir' && !(await ns.isEmptyDir(txn, target.ino))) {
        throw new StripeError('NS_NOT_EMPTY', `${request.toPath} is not empty`, { path: request.toPath });
      }
      ns.unlinkEntry(txn, toDir.node.ino, to.name, target);
    }
    txn.del(KEYS.dentry(fromDir.node.ino, from.name));
    ns.link(txn, toDir.node.ino, to.name, { ...node, ctimeMs: ns.clock.nowMs() });
  });
  return {};
}
