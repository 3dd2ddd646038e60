// open and OpenMany: a file's attributes and, read-on-open, the bytes its
// layout keeps on the MDS (dom), read outside the mutex from acknowledged
// state as stat is. OpenMany resolves each parent once and fetches the entries
// and then their bytes with one getMany each; once a reply holds
// LIMITS.domBatchBytesMax of bytes the rest of its files come without theirs
// (dom_data_omitted), so every reply stays under the message limit.
import { LIMITS, StripeError } from '../../common/index.js';
import type {
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
  // Items by path share their parents' walks and one getMany (as StatMany); by inode, one lookup each.
  const byPath = await nodesOf(
    ns,
    request.items.map((item, i) => (item.inode || refused[i] ? '/' : item.path)),
  );
  const nodes = await Promise.all(
    request.items.map((item, i): Promise<NodeOrError> | NodeOrError =>
      refused[i]
        ? { node: null, error: refused[i] }
        : item.inode
          ? nodeOf(ns, item).then(
              (node): NodeOrError => ({ node, error: null }),
              (err: unknown): NodeOrError => ({ node: null, error: itemError(err) }),
            )
          : (byPath[i] as NodeOrError),
    ),
  );
  const withData = nodes.flatMap((n) => (n.node?.type === 'file' && n.node.domStored ? [n.node] : []));
  const records = await ns.db.getMany<string, Buffer>(
    withData.map((n) => KEYS.dom(n.ino)),
    { valueEncoding: 'buffer' },
  );
  const recordOf = new Map(withData.map((n, i) => [n.ino, records[i]]));
  let budgetBytes = LIMITS.domBatchBytesMax;
  const results = nodes.map(({ node, error }): OpenManyResult => {
    if (!node) return { open: null, error };
    const open: OpenResponse = { attr: toAttr(node, ns.rootDefault), mapEpoch: ns.cluster.epoch() };
    const stored = node.type === 'file' ? (node.domStored ?? 0) : 0;
    if (stored === 0) return { open, error: null };
    if (stored > budgetBytes) return { open: { ...open, domDataOmitted: true }, error: null };
    try {
      open.domData = decodeDom(node.ino, recordOf.get(node.ino), stored);
      budgetBytes -= stored;
      return { open, error: null };
    } catch (err) {
      return { open: null, error: itemError(err) };
    }
  });
  return { results };
}
