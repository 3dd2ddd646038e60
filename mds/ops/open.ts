// open and OpenMany: a file's attributes and, read-on-open, the bytes its
// layout keeps on the MDS (dom), read outside the mutex from acknowledged
// state as stat is. OpenMany resolves each parent once and fetches the entries
// (items by inode: their back pointers, then their entries) and then their
// bytes with one getMany each; the files past LIMITS.domBatchBytesMax of bytes
// (counted from the lengths their records keep, before any is read) come
// without theirs (dom_data_omitted), so every reply stays under the message
// limit and no record is read that the reply does not carry.
import { LIMITS, StripeError } from '../../common/index.js';
import type {
  ItemError,
  OpenManyRequest__Output,
  OpenManyResponse,
  OpenManyResult,
  OpenRequest__Output,
  OpenResponse,
} from '../../proto/index.js';
import { decodeDom } from '../dom.js';
import { KEYS } from '../keys.js';
import type { Namespace } from '../namespace.js';
import { parsePath } from '../paths.js';
import { type BackPointer, type NodeRecord, toAttr } from '../records.js';
import { itemError } from './item-error.js';
import { type NodeOrError, nodesOf } from './stat.js';

/** The node an open names: by inode when it carries one, else by path. */
async function nodeOf(ns: Namespace, request: OpenRequest__Output): Promise<NodeRecord> {
  if (!request.inode) return (await ns.resolve(ns.reader, parsePath(request.path))).node;
  const gone = (): StripeError =>
    new StripeError('NS_NOT_FOUND', `inode ${request.inode} (${request.path}) does not exist`, {
      inode: request.inode,
    });
  if (!Number.isSafeInteger(request.inode) || request.inode < 1)
    throw new StripeError('REQ_INVALID', `bad inode ${request.inode}`);
  const where = await ns.reader.get<BackPointer>(KEYS.backPointer(request.inode));
  const node = where && (await ns.reader.get<NodeRecord>(KEYS.dentry(where.parent, where.name)));
  if (!node || node.ino !== request.inode) throw gone();
  return node;
}

export async function open(ns: Namespace, request: OpenRequest__Output): Promise<OpenResponse> {
  const node = await nodeOf(ns, request);
  const domData = node.type === 'file' ? await ns.dom.read(ns.reader, node) : Buffer.alloc(0);
  return { attr: toAttr(node, ns.rootDefault), mapEpoch: ns.cluster.epoch(), domData };
}

/**
 * Items by inode, as nodeOf each but with one getMany of their back pointers and one of their
 * entries (an OpenMany by inode asks again for what a full reply left out: often hundreds).
 */
async function nodesByInode(ns: Namespace, items: readonly OpenRequest__Output[]): Promise<NodeOrError[]> {
  const results: NodeOrError[] = new Array(items.length);
  const fail = (i: number, err: StripeError) => {
    results[i] = { node: null, error: itemError(err) };
  };
  const asked: number[] = [];
  items.forEach((item, i) => {
    if (Number.isSafeInteger(item.inode) && item.inode >= 1) asked.push(i);
    else fail(i, new StripeError('REQ_INVALID', `bad inode ${item.inode}`));
  });
  const wheres = (await ns.db.getMany(asked.map((i) => KEYS.backPointer(items[i]!.inode)))) as (
    | BackPointer
    | undefined
  )[];
  const nodes = (await ns.db.getMany(
    wheres.flatMap((where) => (where ? [KEYS.dentry(where.parent, where.name)] : [])),
  )) as (NodeRecord | undefined)[];
  let found = 0;
  asked.forEach((i, j) => {
    const { inode, path } = items[i]!;
    const node = wheres[j] ? nodes[found++] : undefined;
    if (node && node.ino === inode) results[i] = { node, error: null };
    else fail(i, new StripeError('NS_NOT_FOUND', `inode ${inode} (${path}) does not exist`, { inode }));
  });
  return results;
}

/** Each item's node: by path (parents walked once, one getMany), by inode (nodesByInode), or its refusal. */
async function nodesOfItems(
  ns: Namespace,
  items: readonly OpenRequest__Output[],
  refused: readonly (ItemError | null)[],
): Promise<NodeOrError[]> {
  const byPath = await nodesOf(
    ns,
    items.map((item, i) => (item.inode || refused[i] ? '/' : item.path)),
  );
  const inodeItems = items.flatMap((item, i) => (item.inode && !refused[i] ? [item] : []));
  const byInode = inodeItems.length > 0 ? await nodesByInode(ns, inodeItems) : [];
  let next = 0;
  return items.map((item, i): NodeOrError => {
    const why = refused[i];
    if (why) return { node: null, error: why };
    return item.inode ? (byInode[next++] as NodeOrError) : (byPath[i] as NodeOrError);
  });
}

export async function openMany(
  ns: Namespace,
  request: OpenManyRequest__Output,
  allow?: (item: OpenRequest__Output) => Promise<void>,
): Promise<OpenManyResponse> {
  if (request.items.length > LIMITS.namespaceBatchItemsMax) {
    throw new StripeError('REQ_INVALID', `OpenMany takes at most ${LIMITS.namespaceBatchItemsMax} items`, {
      count: request.items.length,
    });
  }
  // The caller's caps first: a refused item fails alone.
  const refused = await Promise.all(
    request.items.map((item) => (allow ? allow(item).then(() => null, itemError) : null)),
  );
  const nodes = await nodesOfItems(ns, request.items, refused);
  // Which files' bytes fit in the reply, in item order, from the lengths their records keep: only
  // those records are read (the rest say dom_data_omitted and are asked for again).
  let budgetBytes = LIMITS.domBatchBytesMax;
  const sent = new Set<NodeRecord>();
  for (const { node } of nodes) {
    const stored = node?.type === 'file' ? (node.domStored ?? 0) : 0;
    if (!node || stored === 0 || stored > budgetBytes) continue;
    sent.add(node);
    budgetBytes -= stored;
  }
  const records = await ns.dom.readMany(ns.db, [...sent]);
  const results = nodes.map(({ node, error }): OpenManyResult => {
    if (!node) return { open: null, error };
    const open: OpenResponse = { attr: toAttr(node, ns.rootDefault), mapEpoch: ns.cluster.epoch() };
    const stored = node.type === 'file' ? (node.domStored ?? 0) : 0;
    if (stored === 0) return { open, error: null };
    if (!sent.has(node)) {
      ns.dom.answersOmitted++;
      return { open: { ...open, domDataOmitted: true }, error: null };
    }
    try {
      open.domData = decodeDom(node.ino, records.get(node), stored);
      return { open, error: null };
    } catch (err) {
      return { open: null, error: itemError(err) };
    }
  });
  return { results };
}
