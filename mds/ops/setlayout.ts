// setstripe -d on a directory: sets (or, with no layout, clears back to the
// inherited one) the default layout new files and subdirectories copy.
// Checked statically only: the map may grow before files are created, and
// each create checks against the map of its time. The layout extended
// attribute (ops/xattr-set.ts) sets it through setDirLayout too.
import { StripeError } from '../../common/index.js';
import type { SetLayoutRequest__Output, SetLayoutResponse } from '../../proto/index.js';
import { KEYS } from '../keys.js';
import { givenLayout, type LayoutRecord } from '../layout.js';
import type { Namespace, Resolved } from '../namespace.js';
import { parsePath } from '../paths.js';
import { type NodeRecord, ROOT_INODE, toAttr } from '../records.js';
import type { Reader, Txn } from '../txn.js';

export async function setLayout(
  ns: Namespace,
  request: SetLayoutRequest__Output,
): Promise<SetLayoutResponse> {
  const names = parsePath(request.path);
  const given = givenLayout(request.layout);
  const node = await ns.mutate(async (txn) => {
    const found = await ns.resolve(txn, names);
    return setDirLayout(ns, txn, found, given, request.path);
  });
  return { attr: toAttr(node, ns.rootDefault) };
}

/** Sets a directory's default layout in `txn`; null clears it back to its parent's. */
export async function setDirLayout(
  ns: Namespace,
  txn: Txn,
  found: Resolved,
  given: LayoutRecord | null,
  path: string,
): Promise<NodeRecord> {
  if (found.node.type !== 'dir') throw new StripeError('NS_NOT_DIR', `${path} is not a directory`, { path });
  let inheritedFrom: NodeRecord | null = null;
  if (!given && found.node.ino !== ROOT_INODE) {
    inheritedFrom =
      found.parentIno === ROOT_INODE ? await ns.root(txn) : await parentNode(txn, found.parentIno);
  }
  const updated: NodeRecord = {
    ...found.node,
    layout: given ?? (inheritedFrom ? ns.dirDefault(inheritedFrom) : null),
    layoutInherited: given === null,
    ctimeMs: ns.clock.nowMs(),
  };
  ns.putNode(txn, found.parentIno, found.name, updated);
  return updated;
}

async function parentNode(txn: Reader, ino: number): Promise<NodeRecord> {
  const where = await txn.get<{ parent: number; name: string }>(KEYS.backPointer(ino));
  const node = where && (await txn.get<NodeRecord>(KEYS.dentry(where.parent, where.name)));
  if (!node) throw new Error(`directory ${ino} has no entry`);
  return node;
}
