// fsck's verdict, pure: the namespace's expected copies against what the
// OSTs hold (and what reading them showed). Every copy is ok, missing, short
// (fewer bytes than the committed size needs), corrupt (a read failed its
// checksum) or unknown (its OST is down); a group of copies is recoverable
// while at least `needed` are ok. Objects no file expects are orphans, unless
// their PG is moving and the OST is one of its holders.
import type { MapView } from '../../client/map.js';
import { type ExpectedCopy, expectedGroups, inodeOfObject, type ObjectGroup } from './expect.js';
import { copyKey, type FileEntry, type FoundObject, type Inventory } from './scan.js';

export type CopyState = 'ok' | 'missing' | 'short' | 'corrupt' | 'unknown';

export interface CopyProblem {
  kind: 'missing' | 'short' | 'corrupt';
  path: string;
  objectId: string;
  ostId: number;
  /** Enough good copies are left to rewrite this one. */
  recoverable: boolean;
  detail: string;
}

export interface LostGroup {
  path: string;
  group: string;
  good: number;
  needed: number;
  /** The committed size claims bytes no readable copy holds. */
  detail: string;
}

export interface Orphan {
  ostId: number;
  objectId: string;
  size: number;
  poolId: number;
  pg: number;
  reason: 'no-file' | 'not-placed';
}

export interface Unfinished {
  path: string;
  objectId: string;
  ostId: number;
  storedBytes: number;
  committedBytes: number;
}

export interface Verdict {
  mapEpoch: number;
  files: number;
  copiesExpected: number;
  copiesOk: number;
  problems: CopyProblem[];
  lost: LostGroup[];
  orphans: Orphan[];
  /** Objects holding more bytes than the committed size: a write whose close never committed. */
  unfinished: Unfinished[];
  /** Copies on OSTs of a moving PG's holders: recovery has not finished moving them (not orphans). */
  moving: number;
  unreachableOsts: { ostId: number; reason: string }[];
  groups: ObjectGroup[];
  states: Map<string, CopyState>;
}

/** `verified`: copy key -> 'corrupt' when a whole-object read failed its checksum (absent: not read or fine). */
export function judge(
  view: MapView,
  files: FileEntry[],
  inventory: Inventory,
  verified: ReadonlyMap<string, 'corrupt'>,
  holderCopies: ReadonlySet<string>,
): Verdict {
  const verdict: Verdict = {
    mapEpoch: view.epoch,
    files: files.length,
    copiesExpected: 0,
    copiesOk: 0,
    problems: [],
    lost: [],
    orphans: [],
    unfinished: [],
    moving: 0,
    unreachableOsts: [...inventory.unreachable].map(([ostId, reason]) => ({ ostId, reason })),
    groups: [],
    states: new Map(),
  };
  const expected = new Set<string>();
  for (const file of files) {
    for (const group of expectedGroups(view, file)) {
      verdict.groups.push(group);
      judgeGroup(verdict, group, inventory, verified, expected);
    }
  }
  const inodes = new Set(files.map((f) => f.inode));
  for (const [key, found] of inventory.objects) {
    if (expected.has(key)) continue;
    const inode = inodeOfObject(found.objectId);
    if (inode !== undefined && inodes.has(inode)) {
      if (holderCopies.has(key)) {
        verdict.moving++;
        continue;
      }
      verdict.orphans.push(orphanOf(found, 'not-placed'));
    } else {
      verdict.orphans.push(orphanOf(found, 'no-file'));
    }
  }
  return verdict;
}

function orphanOf(found: FoundObject, reason: Orphan['reason']): Orphan {
  return {
    ostId: found.ostId,
    objectId: found.objectId,
    size: found.size,
    poolId: found.poolId,
    pg: found.pg,
    reason,
  };
}

function stateOf(
  copy: ExpectedCopy,
  inventory: Inventory,
  verified: ReadonlyMap<string, 'corrupt'>,
): { state: CopyState; found: FoundObject | undefined } {
  const key = copyKey(copy.ostId, copy.objectId);
  const found = inventory.objects.get(key);
  if (inventory.unreachable.has(copy.ostId)) return { state: 'unknown', found };
  if (verified.get(key) === 'corrupt') return { state: 'corrupt', found };
  if (!found) return { state: copy.bytes === 0 ? 'ok' : 'missing', found };
  return { state: found.size < copy.bytes ? 'short' : 'ok', found };
}

function judgeGroup(
  verdict: Verdict,
  group: ObjectGroup,
  inventory: Inventory,
  verified: ReadonlyMap<string, 'corrupt'>,
  expected: Set<string>,
): void {
  const bad: { copy: ExpectedCopy; state: CopyState }[] = [];
  let good = 0;
  for (const copy of group.copies) {
    const key = copyKey(copy.ostId, copy.objectId);
    expected.add(key);
    verdict.copiesExpected++;
    const { state, found } = stateOf(copy, inventory, verified);
    verdict.states.set(key, state);
    if (state === 'ok') {
      good++;
      verdict.copiesOk++;
      if (found && found.size > copy.bytes)
        verdict.unfinished.push({
          path: group.file.path,
          objectId: copy.objectId,
          ostId: copy.ostId,
          storedBytes: found.size,
          committedBytes: copy.bytes,
        });
    } else if (state !== 'unknown') {
      bad.push({ copy, state });
    }
  }
  const recoverable = good >= group.needed;
  for (const { copy, state } of bad) {
    verdict.problems.push({
      kind: state as CopyProblem['kind'],
      path: group.file.path,
      objectId: copy.objectId,
      ostId: copy.ostId,
      recoverable,
      detail: `${state} (${copy.bytes} bytes expected); ${good} good of ${group.copies.length}, ${group.needed} needed`,
    });
  }
  const anyBytes = group.copies.some((c) => c.bytes > 0);
  if (!recoverable && anyBytes && good + countUnknown(verdict, group) < group.needed)
    verdict.lost.push({
      path: group.file.path,
      group: group.id,
      good,
      needed: group.needed,
      detail: `size ${group.file.size} is beyond the data: ${good} readable copies of ${group.id}, ${group.needed} needed`,
    });
}

function countUnknown(verdict: Verdict, group: ObjectGroup): number {
  return group.copies.filter((c) => verdict.states.get(copyKey(c.ostId, c.objectId)) === 'unknown').length;
}

/** Clean: nothing missing, short, corrupt or orphaned, and every OST answered. */
export function isClean(v: Verdict): boolean {
  return (
    v.problems.length === 0 && v.lost.length === 0 && v.orphans.length === 0 && v.unreachableOsts.length === 0
  );
}
