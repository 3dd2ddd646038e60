// stripefs fsck: the namespace against the objects. Walks every file (MDS
// Readdir with attributes), computes where each of its objects must be from
// the layout and the map, lists every OST (OssService.ListObjects per pool and
// PG), reads every expected copy whole so the OSS checks its checksums, and
// judges (judge.ts). With repair it rewrites what it can (repair.ts) and
// judges again, so the report says what is left.
import type { MapView } from '../../client/map.js';
import { MdsClient } from '../../client/mds-client.js';
import { ServiceTicket } from '../../client/tickets.js';
import { StripeError } from '../../common/errors.js';
import { call } from '../../common/grpc.js';
import { Semaphore } from '../../common/semaphore.js';
import { checkDomParts } from './dom.js';
import { isClean, judge, type Verdict } from './judge.js';
import { OssIo } from './oss-io.js';
import { inodesOf, type RepairAction, repair } from './repair.js';
import { copyKey, type FileEntry, type Inventory, takeInventory, walkNamespace } from './scan.js';

/** Whole-object verification reads in flight. */
const VERIFY_CONCURRENCY = 8;

export interface FsckOptions {
  mdsAddress: string;
  /** Which OSS addresses to use (see client.network); default public. */
  network?: 'public' | 'cluster';
  repair: boolean;
  /** Read every copy so the OSSs verify their checksums (default true). */
  verify: boolean;
}

export interface FsckResult {
  before: Verdict;
  repairs: RepairAction[];
  /** The state after repair (the same as `before` without --repair). */
  after: Verdict;
  clean: boolean;
}

export async function runFsck(options: FsckOptions): Promise<FsckResult> {
  const mds = new MdsClient(options.mdsAddress, options.network ? { network: options.network } : {});
  // fsck lists and rewrites objects of every file: a service ticket (an admin identity's).
  const ticket = new ServiceTicket(() => mds.serviceTicket());
  const io = new OssIo(() => ticket.get());
  try {
    await mds.start().catch((err: unknown) => {
      throw err instanceof StripeError
        ? err
        : new StripeError('REQ_UNAVAILABLE', `cannot reach the MDS at ${options.mdsAddress}`);
    });
    await ticket.refresh();
    const before = await examine(mds, io, options.verify);
    if (!options.repair) return { before, repairs: [], after: before, clean: isClean(before) };
    const repairs = await repair(mds.mapView, before, io, async () => inodesOf(await walkNamespace(mds)));
    const after = repairs.length > 0 ? await examine(mds, io, options.verify) : before;
    return { before, repairs, after, clean: isClean(after) };
  } finally {
    io.close();
    mds.close();
  }
}

async function examine(mds: MdsClient, io: OssIo, verify: boolean): Promise<Verdict> {
  const view = await mds.refreshMap();
  const files = await walkNamespace(mds);
  const inventory = await takeInventory(view, io);
  const first = judge(view, files, inventory, new Map(), new Set());
  const verified = verify ? await verifyCopies(view, io, first, inventory) : new Map<string, 'corrupt'>();
  const holders = await holderCopies(mds, first, files);
  const verdict = judge(view, files, inventory, verified, holders);
  verdict.lost.push(...(await checkDomParts(mds, files)));
  return verdict;
}

/** Reads every copy judged ok; those whose read fails its checksum are corrupt. */
async function verifyCopies(
  view: MapView,
  io: OssIo,
  verdict: Verdict,
  inventory: Inventory,
): Promise<Map<string, 'corrupt'>> {
  const corrupt = new Map<string, 'corrupt'>();
  const gate = new Semaphore(VERIFY_CONCURRENCY);
  const work: Promise<void>[] = [];
  for (const group of verdict.groups) {
    for (const copy of group.copies) {
      const key = copyKey(copy.ostId, copy.objectId);
      const found = inventory.objects.get(key);
      const address = view.osts.get(copy.ostId)?.grpcAddress;
      if (verdict.states.get(key) !== 'ok' || !found || found.size === 0 || !address) continue;
      const ref = {
        ostId: copy.ostId,
        objectId: copy.objectId,
        poolId: copy.poolId,
        pg: copy.pg,
        mapEpoch: view.epoch,
      };
      work.push(
        gate.run(async () => {
          try {
            await io.readWhole(address, ref, found.size);
          } catch (err) {
            if (err instanceof StripeError && err.code === 'OBJ_CHECKSUM') corrupt.set(key, 'corrupt');
          }
        }),
      );
    }
  }
  await Promise.all(work);
  return corrupt;
}

/** Copies outside their placement that sit on a holder of a moving PG (recovery will move them). */
async function holderCopies(mds: MdsClient, verdict: Verdict, files: FileEntry[]): Promise<Set<string>> {
  const inodes = inodesOf(files);
  const keep = new Set<string>();
  const cache = new Map<string, Promise<number[]>>();
  for (const orphan of verdict.orphans) {
    if (orphan.reason !== 'not-placed' || !inodes.has(Number(orphan.objectId.split('.')[0]))) continue;
    const pgKey = `${orphan.poolId}/${orphan.pg}`;
    let holders = cache.get(pgKey);
    if (!holders) {
      holders = call(mds.grpc, 'GetPgHolders', { poolId: orphan.poolId, pg: orphan.pg }).then(
        (r) => r.holders,
        () => [],
      );
      cache.set(pgKey, holders);
    }
    if ((await holders).includes(orphan.ostId)) keep.add(copyKey(orphan.ostId, orphan.objectId));
  }
  return keep;
}

export { isClean, type Verdict } from './judge.js';
