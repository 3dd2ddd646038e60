// ReserveInodes: inode numbers handed out ahead for files a client will publish in one folder
// (Lustre's clients are handed FID sequences the same way). Each is recorded with the layout its
// objects are placed by and the lease's end (KEYS.reserved), in one transaction, so a client that
// dies before it publishes leaves records the reservation sweeper turns into destroy-queue
// records (mds/reserve-sweeper.ts). A folder whose layout keeps bytes on the MDS gets none: a
// create with its data is one round trip there already.
import { LIMITS, StripeError } from '../../common/index.js';
import { checkLayoutOnMap, domBytesOf, ruleOf, stripedPartOf } from '../../layout/index.js';
import type {
  ListReservedRequest__Output,
  ListReservedResponse,
  ReserveInodesRequest__Output,
  ReserveInodesResponse,
} from '../../proto/index.js';
import { layoutToWire } from '../../wire/index.js';
import { inodeOfReservedKey, KEYS } from '../keys.js';
import { givenLayout, layoutOfRecord } from '../layout.js';
import type { Namespace } from '../namespace.js';
import { parsePath } from '../paths.js';
import { newNode, type ReservedRecord, toAttr } from '../records.js';

export async function reserveInodes(
  ns: Namespace,
  request: ReserveInodesRequest__Output,
  leaseMs: number,
  holder: string | undefined,
): Promise<ReserveInodesResponse> {
  const count = request.count;
  if (!Number.isSafeInteger(count) || count < 1 || count > LIMITS.inodeReserveMax)
    throw new StripeError(
      'REQ_INVALID',
      `ReserveInodes takes 1 to ${LIMITS.inodeReserveMax} inodes, got ${count}`,
      {
        count,
      },
    );
  const names = parsePath(request.path);
  const given = givenLayout(request.layout);
  return ns.mutate(async (txn) => {
    const dir = await ns.resolveDir(txn, names);
    const record = { ...(given ?? ns.dirDefault(dir.node)) };
    const layout = layoutOfRecord(record);
    checkLayoutOnMap(layout, ns.cluster.map());
    record.poolId = await ns.cluster.ensurePool(ruleOf(stripedPartOf(layout)));
    const wire = layoutToWire(layout, record.poolId);
    const base = { layout: wire, leaseMs, mapEpoch: ns.cluster.epoch() };
    if (domBytesOf(layout) > 0) return { ...base, results: [] };
    const nowMs = ns.clock.nowMs();
    const results = [];
    for (let i = 0; i < count; i++) {
      const ino = ns.allocInode(txn);
      const reserved: ReservedRecord = {
        ino,
        layout: record,
        layoutInherited: given === null,
        expiresAtMs: nowMs + leaseMs,
        ...(holder ? { holder } : {}),
      };
      txn.put(KEYS.reserved(ino), reserved);
      results.push({ attr: toAttr(newNode(ino, 'file', record, given === null, nowMs), ns.rootDefault) });
    }
    return { ...base, results };
  });
}

/** One page of the reserved inodes not yet published, in number order (fsck). */
export async function listReserved(
  ns: Namespace,
  request: ListReservedRequest__Output,
): Promise<ListReservedResponse> {
  const limit = request.limit;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > LIMITS.inodeReserveMax)
    throw new StripeError(
      'REQ_INVALID',
      `ListReserved takes a limit of 1 to ${LIMITS.inodeReserveMax}, got ${limit}`,
    );
  const after = Number(request.afterInode);
  const keys = await ns.db
    .keys({
      gt: after > 0 ? KEYS.reserved(after) : KEYS.reservedRange.gt,
      lt: KEYS.reservedRange.lt,
      limit: limit + 1,
    })
    .all();
  const inodes = keys.slice(0, limit).map(inodeOfReservedKey);
  return { inodes, more: keys.length > limit };
}
