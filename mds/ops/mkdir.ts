// mkdir, optionally with parents (mkdir -p). A new directory copies its
// parent's default layout (inherited) unless one is given, as `lfs setstripe -d`
// directories pass theirs on. With parents, every directory it makes is
// checked by `mayMake` (the caller's caps: mkdir -p of a path in a cap must
// not make the folders above the cap).
import { StripeError } from '../../common/index.js';
import type { MkdirRequest__Output, MkdirResponse } from '../../proto/index.js';
import { KEYS } from '../keys.js';
import { givenLayout } from '../layout.js';
import type { Namespace } from '../namespace.js';
import { parsePath } from '../paths.js';
import { type NodeRecord, newNode, toAttr } from '../records.js';

export async function mkdir(
  ns: Namespace,
  request: MkdirRequest__Output,
  mayMake?: (path: string) => void,
): Promise<MkdirResponse> {
  const names = parsePath(request.path);
  const given = givenLayout(request.layout);
  if (names.length === 0) {
    if (request.parents) return { attr: toAttr(await ns.root(ns.reader), ns.rootDefault) };
    throw new StripeError('NS_EXISTS', '/ exists', { path: '/' });
  }
  const node = await ns.mutate(async (txn) => {
    let dir = await ns.root(txn);
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const last = i === names.length - 1;
      const here = `/${names.slice(0, i + 1).join('/')}`;
      const existing = await txn.get<NodeRecord>(KEYS.dentry(dir.ino, name));
      if (existing) {
        if (last && !request.parents) throw new StripeError('NS_EXISTS', `${here} exists`, { path: here });
        if (existing.type !== 'dir')
          throw new StripeError(last ? 'NS_EXISTS' : 'NS_NOT_DIR', `${here} is not a directory`, {
            path: here,
          });
        dir = existing;
        continue;
      }
      if (!last && !request.parents)
        throw new StripeError('NS_NOT_FOUND', `${here} does not exist`, { path: here });
      mayMake?.(here);
      const layout = last && given ? given : ns.dirDefault(dir);
      // mkdir -p: parents made on the way get the owner and the default mode, as mkdir(1) gives them.
      const owner = { mode: last ? request.mode : 0, uid: request.uid, gid: request.gid };
      const child = newNode(ns.allocInode(txn), 'dir', layout, !(last && given), ns.clock.nowMs(), owner);
      ns.addNode(txn, dir.ino, name, child);
      dir = child;
    }
    return dir;
  });
  return { attr: toAttr(node, ns.rootDefault) };
}
