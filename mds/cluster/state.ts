// The cluster state the MDS persists: the placement map, the pools, and the
// OSS records (addresses, the stable name -> OST id assignment). Every edit
// here is pure and returns a new state whose map epoch is exactly one higher.
import { StripeError, UNITS } from '../../common/index.js';
import type { OssPlace } from '../../common/oss-place.js';
import {
  addOsts,
  type ClusterMap,
  type OstState,
  type Pool,
  type RuleSpec,
  removeOsts as removeMapOsts,
  setOstState,
  setOstWeight,
  validateMap,
} from '../../placement/index.js';
import type { RegisterOssRequest__Output } from '../../proto/index.js';

export interface OssRecord extends OssPlace {
  osts: { name: string; id: number }[];
}

type PublicAddressKey = 'publicGrpcAddress' | 'publicBulkAddress' | 'publicAdminAddress';
/** A RegisterOss request; the public addresses may be left out (they default to none). */
export type Registration = Omit<RegisterOssRequest__Output, PublicAddressKey> &
  Partial<Pick<RegisterOssRequest__Output, PublicAddressKey>>;

/** An OST removed from the map (`stripefs ost rm`): its folder may not come back with its objects. */
export interface RemovedOst {
  ossId: string;
  name: string;
  id: number;
}

export interface PoolRecord extends Pool {
  minSize: number;
}

export interface ClusterState {
  map: ClusterMap;
  pools: PoolRecord[];
  oss: OssRecord[];
  nextOstId: number;
  /** OSTs an admin marked out (a re-registration does not bring them back in). */
  adminOut: number[];
  /** OSTs whose weight an admin set (capacity no longer drives it). */
  manualWeight: number[];
  /** The last REMOVED_OSTS_KEPT_MAX OSTs removed from the map (absent in states older than removal). */
  removedOsts?: RemovedOst[];
}

/** Removed OSTs remembered, so an old folder cannot register its stale objects as a new OST. */
export const REMOVED_OSTS_KEPT_MAX = 4_096;

export const ROOT_BUCKET_NAME = 'default';
/** The smallest weight capacity yields, so a tiny test OST still receives data. */
export const OST_WEIGHT_MIN = 1 / 1024;
const NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

export function initialState(): ClusterState {
  const map: ClusterMap = {
    epoch: 1,
    types: ['ost', 'host', 'rack', 'datacenter', 'root'],
    osts: [],
    buckets: [{ id: -1, name: ROOT_BUCKET_NAME, type: 'root', children: [] }],
    rootName: ROOT_BUCKET_NAME,
  };
  return { map, pools: [], oss: [], nextOstId: 0, adminOut: [], manualWeight: [] };
}

/**
 * A registration of a known OST changes its weight only when the capacity it reports moved by
 * at least this share of the capacity its weight stands for (a disk replaced by a larger one).
 * Capacity is used bytes plus the filesystem's free bytes, so on a filesystem shared with other
 * data it drifts with every write beside it; re-deriving the weight from it at each restart moved
 * PGs (and their data) on every OSS restart.
 */
export const CAPACITY_REWEIGHT_SHARE_MIN = 0.25;

/** Weight follows capacity in TiB; an OST that reports no capacity weighs 1.0. */
export function weightOfCapacity(totalBytes: number): number {
  if (!totalBytes) return 1;
  return Math.max(totalBytes / UNITS.TiB, OST_WEIGHT_MIN);
}

function withEpoch(prev: ClusterState, next: ClusterState): ClusterState {
  // Placement's edits bump the epoch once each; one MDS change is one epoch.
  const map = { ...next.map, epoch: prev.map.epoch + 1 };
  validateMap(map); // throws PLACEMENT_INVALID_MAP naming the field
  return { ...next, map };
}

function checkRegistration(req: Registration): void {
  for (const [field, value] of [
    ['ossId', req.ossId],
    ['host', req.host],
    ['rack', req.rack],
  ] as const) {
    if (!NAME.test(value))
      throw new StripeError(
        'REQ_INVALID',
        `RegisterOss ${field} ${JSON.stringify(value)}: expected 1-64 of [A-Za-z0-9_.:-]`,
      );
  }
  if (req.datacenter && !NAME.test(req.datacenter))
    throw new StripeError('REQ_INVALID', `RegisterOss datacenter ${JSON.stringify(req.datacenter)}`);
  if (req.osts.length === 0) throw new StripeError('REQ_INVALID', 'RegisterOss announces no OSTs');
  const names = new Set(req.osts.map((o) => o.name));
  if (names.size !== req.osts.length || [...names].some((n) => !NAME.test(n))) {
    throw new StripeError('REQ_INVALID', 'RegisterOss OST names must be unique names of [A-Za-z0-9_.:-]');
  }
}

/** Ids held by the OSTs of every other OSS, for the "is this id free" check. */
function idsOfOthers(state: ClusterState, ossId: string): Map<number, string> {
  const taken = new Map<number, string>();
  for (const oss of state.oss)
    if (oss.ossId !== ossId) for (const o of oss.osts) taken.set(o.id, `${oss.ossId}/${o.name}`);
  return taken;
}

/** The id a new OST gets: the one configured for it if free, else the next never given. */
function idOfNewOst(
  state: ClusterState,
  req: Registration,
  ost: Registration['osts'][number],
  taken: Map<number, string>,
  nextOstId: number,
): number {
  const removed = (state.removedOsts ?? []).find((r) => r.ossId === req.ossId && r.name === ost.name);
  if (removed && ost.usedBytes > 0)
    throw new StripeError(
      'MAP_OST_REMOVED',
      `${req.ossId}/${ost.name} was ost${removed.id}, removed from the map (stripefs ost rm), and its folder still holds ${ost.usedBytes} bytes of objects the cluster no longer tracks: start it with an empty folder to add it as a new OST`,
      { ossId: req.ossId, ost: ost.name, ostId: removed.id },
    );
  if (ost.id === undefined) {
    let id = nextOstId;
    while (taken.has(id)) id++;
    return id;
  }
  const holder = taken.get(ost.id);
  if (holder !== undefined)
    throw new StripeError(
      'MAP_OST_ID_CONFLICT',
      `${req.ossId}/${ost.name} asks for id ${ost.id} (oss.ostIds), which ${holder} holds: give each OST of the cluster its own id`,
      { ossId: req.ossId, ost: ost.name, ostId: ost.id },
    );
  return ost.id;
}

/** The weight of a known OST after it reports `totalBytes`: kept unless capacity moved a lot. */
function reweightOnCapacity(map: ClusterMap, id: number, totalBytes: number): ClusterMap {
  const was = map.osts.find((o) => o.id === id)?.weight;
  const now = weightOfCapacity(totalBytes);
  if (was !== undefined && Math.abs(now - was) < was * CAPACITY_REWEIGHT_SHARE_MIN) return map;
  return setOstWeight(map, id, now);
}

/** Adds new OSTs, marks known ones up (and in unless an admin took them out), updates addresses. */
export function registerOss(
  state: ClusterState,
  req: Registration,
): { state: ClusterState; ids: Map<string, number> } {
  checkRegistration(req);
  const known = state.oss.find((o) => o.ossId === req.ossId);
  const ids = new Map<string, number>((known?.osts ?? []).map((o) => [o.name, o.id]));
  const taken = idsOfOthers(state, req.ossId);
  for (const id of ids.values()) taken.set(id, `${req.ossId}`);
  let map = state.map;
  let nextOstId = state.nextOstId;
  const added: { id: number; name: string; weight: number }[] = [];
  for (const ost of req.osts) {
    let id = ids.get(ost.name);
    if (id === undefined) {
      id = idOfNewOst(state, req, ost, taken, nextOstId);
      taken.set(id, `${req.ossId}/${ost.name}`);
      nextOstId = Math.max(nextOstId, id + 1);
      ids.set(ost.name, id);
      added.push({ id, name: `ost${id}`, weight: weightOfCapacity(ost.totalBytes) });
      continue;
    }
    if (ost.id !== undefined && ost.id !== id)
      throw new StripeError(
        'MAP_OST_ID_CONFLICT',
        `${req.ossId}/${ost.name} is ost${id} in the map, but oss.ostIds asks for ${ost.id}: configure ${id} for it`,
        { ossId: req.ossId, ost: ost.name, ostId: id },
      );
    const inAgain = !state.adminOut.includes(id);
    map = setOstState(map, id, inAgain ? { up: true, in: true } : { up: true });
    if (!state.manualWeight.includes(id)) map = reweightOnCapacity(map, id, ost.totalBytes);
  }
  if (added.length > 0) {
    const where = {
      rack: req.rack,
      host: req.host,
      ...(req.datacenter ? { datacenter: req.datacenter } : {}),
    };
    map = addOsts(map, where, added);
  }
  const record: OssRecord = {
    ossId: req.ossId,
    host: req.host,
    rack: req.rack,
    datacenter: req.datacenter,
    grpcAddress: req.grpcAddress,
    bulkAddress: req.bulkAddress,
    adminAddress: req.adminAddress,
    ...(req.publicGrpcAddress
      ? {
          publicGrpcAddress: req.publicGrpcAddress,
          publicBulkAddress: req.publicBulkAddress ?? '',
          publicAdminAddress: req.publicAdminAddress ?? '',
        }
      : {}),
    osts: [...ids].map(([name, id]) => ({ name, id })),
  };
  const oss = [...state.oss.filter((o) => o.ossId !== req.ossId), record];
  const removedOsts = state.removedOsts?.filter(
    (r) => r.ossId !== req.ossId || !added.some((a) => ids.get(r.name) === a.id),
  );
  return {
    state: withEpoch(state, { ...state, map, oss, nextOstId, ...(removedOsts ? { removedOsts } : {}) }),
    ids,
  };
}

/**
 * Removes OSTs from the map and their OSS records (an OSS left without OSTs goes too), and
 * remembers them so their old folders cannot come back with stale objects. The caller checks
 * that nothing still needs them (ClusterService.remove).
 */
export function removeOsts(state: ClusterState, ostIds: readonly number[]): ClusterState {
  for (const id of ostIds) requireOst(state, id);
  const gone = new Set(ostIds);
  const removed: RemovedOst[] = [];
  const oss: OssRecord[] = [];
  for (const record of state.oss) {
    for (const o of record.osts)
      if (gone.has(o.id)) removed.push({ ossId: record.ossId, name: o.name, id: o.id });
    const osts = record.osts.filter((o) => !gone.has(o.id));
    if (osts.length > 0) oss.push({ ...record, osts });
  }
  return withEpoch(state, {
    ...state,
    map: removeMapOsts(state.map, ostIds),
    oss,
    adminOut: state.adminOut.filter((id) => !gone.has(id)),
    manualWeight: state.manualWeight.filter((id) => !gone.has(id)),
    removedOsts: [...(state.removedOsts ?? []), ...removed].slice(-REMOVED_OSTS_KEPT_MAX),
  });
}

function requireOst(state: ClusterState, ostId: number): void {
  if (!state.map.osts.some((o) => o.id === ostId))
    throw new StripeError('MAP_UNKNOWN_OST', `no OST ${ostId}`, { ostId });
}

/** Sets up/in of several OSTs as one change; null when nothing changes. */
export function setStates(
  state: ClusterState,
  changes: { ostId: number; to: Partial<OstState> }[],
): ClusterState | null {
  let map = state.map;
  let changed = false;
  for (const { ostId, to } of changes) {
    requireOst(state, ostId);
    const ost = map.osts.find((o) => o.id === ostId)!;
    if ((to.up === undefined || to.up === ost.state.up) && (to.in === undefined || to.in === ost.state.in))
      continue;
    map = setOstState(map, ostId, to);
    changed = true;
  }
  return changed ? withEpoch(state, { ...state, map }) : null;
}

export function adminSetIn(state: ClusterState, ostId: number, isIn: boolean): ClusterState {
  requireOst(state, ostId);
  const adminOut = isIn
    ? state.adminOut.filter((id) => id !== ostId)
    : [...new Set([...state.adminOut, ostId])];
  const map = setOstState(state.map, ostId, { in: isIn });
  return withEpoch(state, { ...state, map, adminOut });
}

export function adminReweight(state: ClusterState, ostId: number, weight: number): ClusterState {
  requireOst(state, ostId);
  if (!Number.isFinite(weight) || weight < 0 || weight > 65535) {
    throw new StripeError('REQ_INVALID', `weight ${weight}: expected a number from 0 to 65535`, { weight });
  }
  const map = setOstWeight(state.map, ostId, weight);
  return withEpoch(state, { ...state, map, manualWeight: [...new Set([...state.manualWeight, ostId])] });
}

function sameRule(a: RuleSpec, b: RuleSpec): boolean {
  if (a.kind === 'replicated' && b.kind === 'replicated')
    return a.size === b.size && a.failureDomain === b.failureDomain;
  if (a.kind === 'erasure' && b.kind === 'erasure')
    return a.k === b.k && a.m === b.m && a.failureDomain === b.failureDomain;
  return false;
}

export function poolNameOf(rule: RuleSpec): string {
  if (rule.kind === 'replicated')
    return rule.size === 1 && rule.failureDomain === 'ost'
      ? 'raid0'
      : `rep-${rule.size}-${rule.failureDomain}`;
  return `ec-${rule.k}+${rule.m}-${rule.failureDomain}`;
}

/** Ceph's choice: replicated pools accept writes with size - floor(size/2) copies; ec with k+1 chunks. */
export function minSizeOf(rule: RuleSpec): number {
  if (rule.kind === 'replicated') return Math.max(1, rule.size - Math.floor(rule.size / 2));
  return Math.min(1, rule.m);
}

export function findPool(state: ClusterState, rule: RuleSpec): PoolRecord | undefined {
  return state.pools.find((p) => sameRule(p.rule, rule));
}

export function addPool(state: ClusterState, rule: RuleSpec, pgCount: number): ClusterState {
  if (findPool(state, rule)) throw new Error(`pool for ${poolNameOf(rule)} exists`);
  const id = Math.max(0, ...state.pools.map((p) => p.id)) + 1;
  const pool: PoolRecord = { id, name: poolNameOf(rule), pgCount, rule, minSize: minSizeOf(rule) };
  return withEpoch(state, { ...state, pools: [...state.pools, pool] });
}
