// Publish: a file whose objects a client wrote under a reserved inode is created and committed in
// one transaction (name, inode, size, mtime), so a small file costs one MDS call on its write
// path. The name is handled as a create with truncate handles it (an existing file is replaced and
// its objects queued for destruction; exclusive refuses it; a folder or symlink is refused). An
// item that fails gives its reserved inode up at once: the inode's objects are queued for
// destruction (what was written under it goes), and nothing at the name changes.
import { StripeError } from '../../common/index.js';
import type {
  PublishManyRequest__Output,
  PublishManyResponse,
  PublishRequest__Output,
} from '../../proto/index.js';
import { KEYS } from '../keys.js';
import type { Namespace } from '../namespace.js';
import { parseChildPath } from '../paths.js';
import { type DestroyRecord, type NodeRecord, newNode, type ReservedRecord, toAttr } from '../records.js';
import type { Txn } from '../txn.js';
import { eachItem, type ItemCheck, type OnItemError } from './many.js';

function checkItem(item: PublishRequest__Output): void {
  if (!Number.isSafeInteger(item.inode) || item.inode < 1)
    throw new StripeError('REQ_INVALID', `bad inode ${item.inode}`);
  if (!Number.isSafeInteger(item.size) || item.size < 0)
    throw new StripeError('REQ_INVALID', `bad size ${item.size}`);
}

/** The reservation of `inode` if `holder` holds it (another client's is as good as none). */
async function heldBy(
  txn: Txn,
  inode: number,
  holder: string | undefined,
): Promise<ReservedRecord | undefined> {
  const reserved = await txn.get<ReservedRecord>(KEYS.reserved(inode));
  return reserved && (reserved.holder ?? undefined) === holder ? reserved : undefined;
}

async function reservedOf(txn: Txn, inode: number, holder: string | undefined): Promise<ReservedRecord> {
  const reserved = await heldBy(txn, inode, holder);
  if (!reserved)
    throw new StripeError(
      'NS_NOT_RESERVED',
      `inode ${inode} is not reserved (published already, or its lease lapsed)`,
      {
        inode,
      },
    );
  return reserved;
}

export async function publish(
  ns: Namespace,
  item: PublishRequest__Output,
  holder: string | undefined,
): Promise<NodeRecord> {
  checkItem(item);
  const { parent, name } = parseChildPath(item.path);
  return ns.mutate(async (txn) => {
    const reserved = await reservedOf(txn, item.inode, holder);
    const dir = await ns.resolveDir(txn, parent);
    const existing = await txn.get<NodeRecord>(KEYS.dentry(dir.node.ino, name));
    if (existing) {
      if (existing.type === 'dir')
        throw new StripeError('NS_IS_DIR', `${item.path} is a directory`, { path: item.path });
      if (existing.type === 'symlink')
        throw new StripeError('NS_IS_SYMLINK', `${item.path} is a symlink`, { path: item.path });
      if (item.exclusive) throw new StripeError('NS_EXISTS', `${item.path} exists`, { path: item.path });
      ns.unlinkEntry(txn, dir.node.ino, name, existing);
    }
    const nowMs = ns.clock.nowMs();
    const owner = { mode: item.mode, uid: item.uid, gid: item.gid };
    const file = newNode(item.inode, 'file', reserved.layout, reserved.layoutInherited, nowMs, owner);
    file.sizeBytes = item.size;
    file.mtimeMs = item.mtimeMs || nowMs;
    file.change = 1;
    txn.del(KEYS.reserved(item.inode));
    ns.addNode(txn, dir.node.ino, name, file);
    return file;
  });
}

/**
 * Gives a reserved inode up: its record becomes a destroy-queue record (the objects written under it
 * go). `holder` must hold it; the sweeper passes `lapsedBy` instead: only a lease ended by then goes.
 */
export async function abandonReserved(
  ns: Namespace,
  inode: number,
  holder: string | undefined,
  lapsedBy?: number,
): Promise<boolean> {
  if (!Number.isSafeInteger(inode) || inode < 1) return false;
  return ns.mutate(async (txn) => {
    const reserved =
      lapsedBy === undefined
        ? await heldBy(txn, inode, holder)
        : await txn.get<ReservedRecord>(KEYS.reserved(inode));
    if (!reserved || (lapsedBy !== undefined && reserved.expiresAtMs > lapsedBy)) return false;
    txn.del(KEYS.reserved(inode));
    const record: DestroyRecord = { ino: inode, layout: reserved.layout, queuedAtMs: ns.clock.nowMs() };
    txn.put(KEYS.destroy(inode), record);
    txn.onDurable.push(() => ns.onDestroyQueued());
    return true;
  });
}

/**
 * PublishMany: each item its own transaction, applied in item order (as CreateMany). A refused item
 * (its caps, an existing name, a bad path) gives its reserved inode up.
 */
export async function publishMany(
  ns: Namespace,
  request: PublishManyRequest__Output,
  onError: OnItemError,
  allow: ItemCheck | undefined,
  holder: string | undefined,
): Promise<PublishManyResponse> {
  const giveUp = async (item: PublishRequest__Output, err: unknown): Promise<never> => {
    if ((err as { code?: string }).code !== 'NS_NOT_RESERVED') await abandonReserved(ns, item.inode, holder);
    throw err;
  };
  const outcomes = await eachItem(
    request.items,
    'PublishMany',
    (item) => {
      // The caps check runs here rather than in eachItem, so that a refused item gives its inode up too.
      try {
        allow?.(item.path);
      } catch (err) {
        return giveUp(item, err);
      }
      return publish(ns, item, holder).catch((err: unknown) => giveUp(item, err));
    },
    onError,
    (item) => item.path,
  );
  return {
    results: outcomes.map((o) =>
      o.error ? { attr: null, error: o.error } : { attr: toAttr(o.value, ns.rootDefault), error: null },
    ),
  };
}
