// Commit of size and mtime when a writer syncs or closes, by inode (the
// writer may not know the file's current name after a rename). A grow-only
// commit never shrinks the file: several writers of one file's ranges (the
// S3 gateway's multipart parts) each commit the end they wrote, in any order.
import { StripeError } from '../../common/index.js';
import type { CommitRequest__Output, CommitResponse } from '../../proto/index.js';
import type { DomPatch } from '../dom.js';
import { KEYS } from '../keys.js';
import { domBytesOfRecord } from '../layout.js';
import type { Namespace } from '../namespace.js';
import { type BackPointer, type NodeRecord, toAttr } from '../records.js';

export async function commit(ns: Namespace, request: CommitRequest__Output): Promise<CommitResponse> {
  if (!Number.isSafeInteger(request.inode) || request.inode < 1)
    throw new StripeError('REQ_INVALID', `bad inode ${request.inode}`);
  if (!Number.isSafeInteger(request.size) || request.size < 0)
    throw new StripeError('REQ_INVALID', `bad size ${request.size}`);
  const node = await ns.mutate(async (txn) => {
    const where = await txn.get<BackPointer>(KEYS.backPointer(request.inode));
    const found = where && (await txn.get<NodeRecord>(KEYS.dentry(where.parent, where.name)));
    if (!where || !found || found.ino !== request.inode) {
      throw new StripeError('NS_NOT_FOUND', `inode ${request.inode} does not exist`, {
        inode: request.inode,
      });
    }
    if (found.type !== 'file')
      throw new StripeError('NS_IS_DIR', `inode ${request.inode} is a directory`, { inode: request.inode });
    const now = ns.clock.nowMs();
    const updated: NodeRecord = {
      ...found,
      sizeBytes: request.growOnly ? Math.max(found.sizeBytes, request.size) : request.size,
      mtimeMs: request.mtimeMs || now,
      ctimeMs: now,
      change: (found.change ?? 0) + 1,
    };
    const domBytes = domBytesOfRecord(found.layout);
    if (request.domData.length > 0 || (found.domStored ?? 0) > updated.sizeBytes) {
      const patch = checkPatch(request, domBytes);
      await ns.dom.write(txn, updated, patch, Math.min(updated.sizeBytes, domBytes));
    }
    txn.put(KEYS.dentry(where.parent, where.name), updated);
    return updated;
  });
  return { attr: toAttr(node, ns.rootDefault) };
}

/** The bytes a commit writes on the MDS: inside the file's dom part, or REQ_INVALID. */
function checkPatch(request: CommitRequest__Output, domBytes: number): DomPatch | null {
  if (request.domData.length === 0) return null;
  const offset = request.domOffset;
  if (!Number.isSafeInteger(offset) || offset < 0 || offset + request.domData.length > domBytes) {
    throw new StripeError(
      'REQ_INVALID',
      `inode ${request.inode}: ${request.domData.length} bytes at ${offset} lie outside the ${domBytes} bytes its layout keeps on the MDS`,
      { inode: request.inode, domOffset: offset, domBytes },
    );
  }
  return { offset, data: request.domData };
}
