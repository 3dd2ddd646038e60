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
import { checkXattrName, LAYOUT_XATTR } from '../xattr-names.js';
import { itemError } from './item-error.js';
import { type NodeOrError, nodesOf } from './stat.js';

/**
 * The extended attribute an open asks for beside the attributes (OpenRequest.xattr_name), checked
 * as GetXattr checks its name; undefined when none is asked. The layout attribute is computed, not
 * stored: GetXattr answers it.
 */
function askedXattr(request: OpenRequest__Output): string | undefined {
  if (!request.xattrName) return undefined;
  const name = checkXattrName(request.xattrName);
  if (name === LAYOUT_XATTR)
    throw new StripeError('REQ_INVALID', `an open does not answer ${LAYOUT_XATTR}: use GetXattr`);
  return name;
}

/** The key of `name`'s value on `node`, when the node has it (its record lists its names). */
function xattrKeyOf(node: NodeRecord, name: string | undefined): string | undefined {
  return name !== undefined && node.xattrs?.[name] !== undefined ? KEYS.xattr(node.ino, name) : undefined;
}

/** The entry an answer carries for a stored value (base64, as SetXattr keeps it); absent when removed meanwhile. */
function xattrEntry(name: string, stored: string | undefined): OpenResponse['xattr'] {
  return stored === undefined ? null : { name, value: Buffer.from(stored, 'base64') };
}

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
  const name = askedXattr(request);
  const node = await nodeOf(ns, request);
  const domData = node.type === 'file' ? await ns.dom.read(ns.reader, node) : Buffer.alloc(0);
  const answer: OpenResponse = { attr: toAttr(node, ns.rootDefault), mapEpoch: ns.cluster.epoch(), domData };
  const key = xattrKeyOf(node, name);
  if (key !== undefined) answer.xattr = xattrEntry(name as string, await ns.reader.get<string>(key));
  return answer;
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

/** By item index, the asked attribute of each found node that has it, read with one getMany. */
async function xattrsOf(
  ns: Namespace,
  nodes: readonly NodeOrError[],
  names: readonly (string | undefined)[],
): Promise<Map<number, OpenResponse['xattr']>> {
  const asked: { item: number; name: string; key: string }[] = [];
  nodes.forEach(({ node }, item) => {
    const key = node ? xattrKeyOf(node, names[item]) : undefined;
    if (key !== undefined) asked.push({ item, name: names[item] as string, key });
  });
  const out = new Map<number, OpenResponse['xattr']>();
  if (asked.length === 0) return out;
  const values = (await ns.db.getMany(asked.map((a) => a.key))) as (string | undefined)[];
  asked.forEach((a, j) => {
    out.set(a.item, xattrEntry(a.name, values[j]));
  });
  return out;
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
  // The caller's caps first, and the attribute names asked for: a refused item fails alone.
  const names: (string | undefined)[] = [];
  const refused = await Promise.all(
    request.items.map(async (item, i) => {
      try {
        names[i] = askedXattr(item);
        if (allow) await allow(item);
        return null;
      } catch (err) {
        return itemError(err);
      }
    }),
  );
  const nodes = await nodesOfItems(ns, request.items, refused);
  const xattrs = await xattrsOf(ns, nodes, names);
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
  const results = nodes.map(({ node, error }, i): OpenManyResult => {
    if (!node) return { open: null, error };
    const open: OpenResponse = { attr: toAttr(node, ns.rootDefault), mapEpoch: ns.cluster.epoch() };
    if (xattrs.has(i)) open.xattr = xattrs.get(i) ?? null;
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
