// setattr: chmod, chown and utimens by path. Only the fields flagged are
// changed; ctime moves with any change, as POSIX has it. Sizes change
// through the client's truncate (objects first, then Commit).
import { StripeError } from '../../common/index.js';
import type { SetAttrRequest__Output, SetAttrResponse } from '../../proto/index.js';
import type { Namespace } from '../namespace.js';
import { parsePath } from '../paths.js';
import { type NodeRecord, PERMISSION_BITS, toAttr } from '../records.js';

/** Largest uid or gid (32 bits, (uid_t)-1 excluded: it means "leave unchanged" to chown). */
const ID_MAX = 0xffff_fffe;

function checkId(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > ID_MAX)
    throw new StripeError('REQ_INVALID', `${what} ${value}: must be 0..${ID_MAX}`);
  return value;
}

function checkTimeMs(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new StripeError('REQ_INVALID', `${what} ${value}: must be milliseconds since 1970, 0 or more`);
  return value;
}

export async function setAttr(ns: Namespace, request: SetAttrRequest__Output): Promise<SetAttrResponse> {
  const names = parsePath(request.path);
  const change: Partial<NodeRecord> = {};
  if (request.setUid) change.uid = checkId(request.uid, 'uid');
  if (request.setGid) change.gid = checkId(request.gid, 'gid');
  if (request.setMtime) change.mtimeMs = checkTimeMs(request.mtimeMs, 'mtime');
  if (request.setAtime) change.atimeMs = checkTimeMs(request.atimeMs, 'atime');
  const node = await ns.mutate(async (txn) => {
    const found = await ns.resolve(txn, names);
    const updated: NodeRecord = { ...found.node, ...change, ctimeMs: ns.clock.nowMs() };
    // A symlink's mode is always 0777 (chmod follows the link, lchmod is refused by Linux).
    if (request.setMode && found.node.type !== 'symlink')
      updated.mode = (found.node.mode & ~PERMISSION_BITS) | (request.mode & PERMISSION_BITS);
    ns.putNode(txn, found.parentIno, found.name, updated);
    return updated;
  });
  return { attr: toAttr(node, ns.rootDefault) };
}
