// create: a new file with its layout fixed now (given, or the directory's
// default), checked against the current map and bound to its pool. An
// existing file is returned as is, refused (exclusive), or replaced by a new
// file id with the old objects queued for destruction (truncate). A create
// that carries the file's content (with_data) stores it on the MDS and commits
// its size in the same transaction when the layout keeps that many bytes there
// (dom): create, write and close in one round trip. Extended attributes given
// with the create are set on the file it makes in the same transaction (an S3
// object's metadata with its staging file: no SetXattr after).
import { StripeError } from '../../common/index.js';
import { checkLayoutOnMap, domBytesOf, ruleOf, stripedPartOf } from '../../layout/index.js';
import type { CreateRequest__Output, CreateResponse } from '../../proto/index.js';
import { KEYS } from '../keys.js';
import { givenLayout, layoutOfRecord, recordOf } from '../layout.js';
import type { Namespace } from '../namespace.js';
import { parseChildPath } from '../paths.js';
import { type NodeRecord, newNode, toAttr } from '../records.js';
import type { Txn } from '../txn.js';
import { checkCreateXattrs } from '../xattr-names.js';

export async function create(ns: Namespace, request: CreateRequest__Output): Promise<CreateResponse> {
  const { parent, name } = parseChildPath(request.path);
  const given = givenLayout(request.layout);
  const xattrs = request.xattrs ?? [];
  const xattrSizes = checkCreateXattrs(xattrs);
  let dataStored = false;
  const node = await ns.mutate(async (txn) => {
    const dir = await ns.resolveDir(txn, parent);
    const existing = await txn.get<NodeRecord>(KEYS.dentry(dir.node.ino, name));
    if (existing) {
      if (existing.type === 'dir')
        throw new StripeError('NS_IS_DIR', `${request.path} is a directory`, { path: request.path });
      if (existing.type === 'symlink')
        throw new StripeError('NS_IS_SYMLINK', `${request.path} is a symlink`, { path: request.path });
      if (request.exclusive)
        throw new StripeError('NS_EXISTS', `${request.path} exists`, { path: request.path });
      if (!request.truncate) return existing;
    }
    const layout = layoutOfRecord(given ?? existing?.layout ?? ns.dirDefault(dir.node));
    checkLayoutOnMap(layout, ns.cluster.map());
    const poolId = await ns.cluster.ensurePool(ruleOf(stripedPartOf(layout)));
    if (existing) ns.unlinkEntry(txn, dir.node.ino, name, existing);
    const owner = { mode: request.mode, uid: request.uid, gid: request.gid };
    const file = newNode(
      ns.allocInode(txn),
      'file',
      recordOf(layout, poolId),
      given === null,
      ns.clock.nowMs(),
      owner,
    );
    if (xattrs.length > 0) {
      file.xattrs = xattrSizes;
      for (const x of xattrs) txn.put(KEYS.xattr(file.ino, x.name), Buffer.from(x.value).toString('base64'));
    }
    if (request.withData && request.data.length <= domBytesOf(layout)) {
      await storeContent(ns, txn, file, request.data);
      dataStored = true;
    }
    ns.addNode(txn, dir.node.ino, name, file);
    return file;
  });
  return { attr: toAttr(node, ns.rootDefault), mapEpoch: ns.cluster.epoch(), dataStored };
}

/** The new file's whole content on the MDS, committed as a close would commit it. */
async function storeContent(ns: Namespace, txn: Txn, file: NodeRecord, data: Buffer): Promise<void> {
  if (data.length > 0) await ns.dom.write(txn, file, { offset: 0, data }, data.length);
  file.sizeBytes = data.length;
  file.change = 1;
}
