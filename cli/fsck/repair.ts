// fsck --repair: rewrites missing, short and corrupt copies from good ones
// (a replica copied whole; ec chunks rebuilt from any k good chunks, which
// works on whole chunk objects because every stripe's shards sit at the same
// offsets and Reed-Solomon works byte column by byte column), and deletes
// orphans: objects of no file (checked again against a fresh namespace walk
// just before), and copies outside their placement when every placed copy
// of their group is good.
import type { MapView } from '../../client/map.js';
import { reconstructAll } from '../../common/erasure.js';
import { Semaphore } from '../../common/semaphore.js';
import type { ExpectedCopy, ObjectGroup } from './expect.js';
import type { Verdict } from './judge.js';
import type { OssIo } from './oss-io.js';
import { copyKey, type FileEntry } from './scan.js';

/** Groups repaired at once. */
const REPAIR_CONCURRENCY = 4;

export interface RepairAction {
  action: 'rewrite' | 'rebuild' | 'delete';
  objectId: string;
  ostId: number;
  ok: boolean;
  error?: string;
}

export async function repair(
  view: MapView,
  verdict: Verdict,
  io: OssIo,
  freshInodes: () => Promise<Set<number>>,
): Promise<RepairAction[]> {
  const actions: RepairAction[] = [];
  const gate = new Semaphore(REPAIR_CONCURRENCY);
  const work: Promise<void>[] = [];
  for (const group of verdict.groups) {
    const states = group.copies.map((c) => verdict.states.get(copyKey(c.ostId, c.objectId)));
    const bad = group.copies.filter((_, i) => states[i] !== 'ok' && states[i] !== 'unknown');
    const good = group.copies.filter((_, i) => states[i] === 'ok');
    if (bad.length === 0 || good.length < group.needed) continue;
    work.push(gate.run(() => repairGroup(view, io, group, good, bad, actions)));
  }
  await Promise.all(work);
  await deleteOrphans(view, verdict, io, freshInodes, actions);
  return actions;
}

function refOf(view: MapView, copy: { ostId: number; objectId: string; poolId: number; pg: number }) {
  return {
    ostId: copy.ostId,
    objectId: copy.objectId,
    poolId: copy.poolId,
    pg: copy.pg,
    mapEpoch: view.epoch,
  };
}

function addressOf(view: MapView, ostId: number): string {
  const address = view.osts.get(ostId)?.grpcAddress;
  if (!address) throw new Error(`OST ${ostId} has no address in map epoch ${view.epoch}`);
  return address;
}

async function attempt(
  actions: RepairAction[],
  action: RepairAction['action'],
  copy: { ostId: number; objectId: string },
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
    actions.push({ action, objectId: copy.objectId, ostId: copy.ostId, ok: true });
  } catch (err) {
    actions.push({
      action,
      objectId: copy.objectId,
      ostId: copy.ostId,
      ok: false,
      error: (err as Error).message,
    });
  }
}

async function repairGroup(
  view: MapView,
  io: OssIo,
  group: ObjectGroup,
  good: ExpectedCopy[],
  bad: ExpectedCopy[],
  actions: RepairAction[],
): Promise<void> {
  if (group.kind === 'replicas') {
    const source = good[0] as ExpectedCopy;
    let data: Buffer;
    try {
      data = await io.readWhole(addressOf(view, source.ostId), refOf(view, source), source.bytes);
    } catch (err) {
      for (const copy of bad)
        actions.push({ action: 'rewrite', ...copy, ok: false, error: `source: ${(err as Error).message}` });
      return;
    }
    for (const copy of bad)
      await attempt(actions, 'rewrite', copy, () =>
        io.writeWhole(addressOf(view, copy.ostId), refOf(view, copy), data),
      );
    return;
  }
  await rebuildEc(view, io, group, good, bad, actions);
}

function chunkOf(objectId: string): number {
  const match = /\.c(\d+)$/.exec(objectId);
  if (!match) throw new Error(`${objectId} is not an ec chunk id`);
  return Number(match[1]);
}

async function rebuildEc(
  view: MapView,
  io: OssIo,
  group: ObjectGroup,
  good: ExpectedCopy[],
  bad: ExpectedCopy[],
  actions: RepairAction[],
): Promise<void> {
  const { k, m } = group.file.fileLayout.layout as { k: number; m: number };
  const chunkBytes = group.copies[0]?.bytes ?? 0;
  const shards = Buffer.alloc((k + m) * chunkBytes);
  const present = new Array<boolean>(k + m).fill(false);
  let have = 0;
  for (const copy of good) {
    if (have === k) break;
    try {
      const data = await io.readWhole(addressOf(view, copy.ostId), refOf(view, copy), chunkBytes);
      if (data.length !== chunkBytes) continue;
      data.copy(shards, chunkOf(copy.objectId) * chunkBytes);
      present[chunkOf(copy.objectId)] = true;
      have++;
    } catch {
      // another good chunk may do
    }
  }
  if (have < k) {
    for (const copy of bad)
      actions.push({ action: 'rebuild', ...copy, ok: false, error: `only ${have} of ${k} chunks readable` });
    return;
  }
  reconstructAll(shards, k, m, present);
  for (const copy of bad) {
    const j = chunkOf(copy.objectId);
    const data = Buffer.from(shards.subarray(j * chunkBytes, (j + 1) * chunkBytes));
    await attempt(actions, 'rebuild', copy, () =>
      io.writeWhole(addressOf(view, copy.ostId), refOf(view, copy), data),
    );
  }
}

async function deleteOrphans(
  view: MapView,
  verdict: Verdict,
  io: OssIo,
  freshInodes: () => Promise<Set<number>>,
  actions: RepairAction[],
): Promise<void> {
  if (verdict.orphans.length === 0) return;
  // A file created since the first walk owns its objects: walk again right before deleting.
  const inodes = await freshInodes();
  const groupOf = new Map<string, ObjectGroup>();
  for (const group of verdict.groups) for (const c of group.copies) groupOf.set(c.objectId, group);
  for (const orphan of verdict.orphans) {
    const group = groupOf.get(orphan.objectId);
    if (orphan.reason === 'no-file') {
      const inode = Number(orphan.objectId.split('.')[0]);
      if (inodes.has(inode)) continue;
    } else {
      // Never delete a copy while its group lacks a good placed copy: it may be the last one.
      const allGood = group?.copies.every((c) => verdict.states.get(copyKey(c.ostId, c.objectId)) === 'ok');
      if (!allGood) continue;
    }
    await attempt(actions, 'delete', orphan, () =>
      io.delete(addressOf(view, orphan.ostId), refOf(view, orphan)),
    );
  }
}

export function inodesOf(files: FileEntry[]): Set<number> {
  return new Set(files.map((f) => f.inode));
}
