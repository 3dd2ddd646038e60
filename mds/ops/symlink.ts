// symlink: a new entry that holds its target as given. The MDS never
// follows symlinks (paths through one fail with NS_NOT_DIR); a mount lets
// the kernel resolve them, as it does for every local file system.
import { LIMITS, StripeError } from '../../common/index.js';
import type { SymlinkRequest__Output, SymlinkResponse } from '../../proto/index.js';
import { KEYS } from '../keys.js';
import type { Namespace } from '../namespace.js';
import { parseChildPath, utf8Bytes } from '../paths.js';
import { type NodeRecord, newNode, toAttr } from '../records.js';

export function checkSymlinkTarget(target: unknown): string {
  if (typeof target !== 'string' || target.length === 0 || target.includes('\0'))
    throw new StripeError('NS_INVALID_NAME', 'a symlink target must be a non-empty string without NUL');
  const bytes = utf8Bytes(target);
  if (bytes > LIMITS.symlinkTargetBytesMax) {
    throw new StripeError(
      'NS_NAME_TOO_LONG',
      `symlink target of ${bytes} bytes exceeds ${LIMITS.symlinkTargetBytesMax}`,
      { bytes, limit: LIMITS.symlinkTargetBytesMax },
    );
  }
  return target;
}

export async function symlink(ns: Namespace, request: SymlinkRequest__Output): Promise<SymlinkResponse> {
  const target = checkSymlinkTarget(request.target);
  const { parent, name } = parseChildPath(request.path);
  const node = await ns.mutate(async (txn) => {
    const dir = await ns.resolveDir(txn, parent);
    if (await txn.get<NodeRecord>(KEYS.dentry(dir.node.ino, name)))
      throw new StripeError('NS_EXISTS', `${request.path} exists`, { path: request.path });
    const owner = { mode: 0, uid: request.uid, gid: request.gid };
    const link: NodeRecord = {
      ...newNode(ns.allocInode(txn), 'symlink', null, false, ns.clock.nowMs(), owner),
      target,
    };
    ns.addNode(txn, dir.node.ino, name, link);
    return link;
  });
  return { attr: toAttr(node, ns.rootDefault) };
}
