import { PlacementError } from './errors.js';
import { BUCKET_COUNT_MAX, HIERARCHY_DEPTH_MAX, OST_COUNT_MAX, OST_WEIGHT_MAX } from './limits.js';
import type { BucketItem, ClusterMap, OstItem } from './types.js';

function fail(path: string, expected: string, got: unknown): never {
  const shown = got === undefined ? 'undefined' : JSON.stringify(got)?.slice(0, 60);
  throw new PlacementError('PLACEMENT_INVALID_MAP', `${path}: expected ${expected}, got ${shown}`);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readInt(v: unknown, path: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    fail(path, `an integer in [${min}, ${max}]`, v);
  }
  return v;
}

function readName(v: unknown, path: string): string {
  if (typeof v !== 'string' || !/^[A-Za-z0-9_.:-]{1,64}$/.test(v))
    fail(path, 'a name of 1-64 [A-Za-z0-9_.:-]', v);
  return v;
}

function readOst(v: unknown, path: string): OstItem {
  if (!isRecord(v)) fail(path, 'an object { id, name, weight, state }', v);
  const id = readInt(v.id, `${path}.id`, 0, 2 ** 31 - 1);
  const name = readName(v.name, `${path}.name`);
  const w = v.weight;
  if (typeof w !== 'number' || !Number.isFinite(w) || w < 0 || w > OST_WEIGHT_MAX) {
    fail(`${path}.weight`, `a number in [0, ${OST_WEIGHT_MAX}]`, w);
  }
  const s = v.state;
  if (!isRecord(s) || typeof s.up !== 'boolean' || typeof s.in !== 'boolean') {
    fail(`${path}.state`, '{ up: boolean, in: boolean }', s);
  }
  const ost: OstItem = { id, name, weight: w, state: { up: s.up, in: s.in } };
  if (v.host !== undefined) ost.host = readName(v.host, `${path}.host`);
  return ost;
}

function readBucket(v: unknown, path: string, types: string[]): BucketItem {
  if (!isRecord(v)) fail(path, 'an object { id, name, type, children }', v);
  const id = readInt(v.id, `${path}.id`, -(2 ** 31), -1);
  const name = readName(v.name, `${path}.name`);
  if (typeof v.type !== 'string' || types.indexOf(v.type) < 1) {
    fail(`${path}.type`, `one of ${JSON.stringify(types.slice(1))}`, v.type);
  }
  if (!Array.isArray(v.children)) fail(`${path}.children`, 'an array of item ids', v.children);
  const children = v.children.map((c, i) => readInt(c, `${path}.children[${i}]`, -(2 ** 31), 2 ** 31 - 1));
  return { id, name, type: v.type, children };
}

function readTypes(v: unknown): string[] {
  if (!Array.isArray(v) || v.length < 1 || v.length > HIERARCHY_DEPTH_MAX) {
    fail('types', `an array of 1-${HIERARCHY_DEPTH_MAX} type names, leaf first`, v);
  }
  const types = v.map((t, i) => readName(t, `types[${i}]`));
  if (new Set(types).size !== types.length) fail('types', 'unique type names', v);
  return types;
}

/** Parses and checks an untrusted JSON value; throws PlacementError naming the bad field path. */
export function validateMap(json: unknown): ClusterMap {
  if (!isRecord(json)) fail('$', 'a cluster map object', json);
  const epoch = readInt(json.epoch, 'epoch', 0, Number.MAX_SAFE_INTEGER);
  const types = readTypes(json.types);
  if (!Array.isArray(json.osts) || json.osts.length > OST_COUNT_MAX)
    fail('osts', 'an array of OSTs', json.osts);
  if (!Array.isArray(json.buckets) || json.buckets.length > BUCKET_COUNT_MAX) {
    fail('buckets', 'an array of buckets', json.buckets);
  }
  const osts = json.osts.map((o, i) => readOst(o, `osts[${i}]`));
  const buckets = json.buckets.map((b, i) => readBucket(b, `buckets[${i}]`, types));
  const rootName = readName(json.rootName, 'rootName');
  const map: ClusterMap = { epoch, types, osts, buckets, rootName };
  checkStructure(map);
  return map;
}

/** Cross-item checks: unique ids and names, a forest, child rank below parent rank, OSTs attached. */
export function checkStructure(map: ClusterMap): void {
  const rank = new Map<number, number>();
  const names = new Set<string>();
  const noteItem = (id: number, name: string, r: number, path: string): void => {
    if (rank.has(id)) fail(`${path}.id`, 'an id used once', id);
    if (names.has(name)) fail(`${path}.name`, 'a name used once', name);
    rank.set(id, r);
    names.add(name);
  };
  map.osts.forEach((o, i) => {
    noteItem(o.id, o.name, 0, `osts[${i}]`);
  });
  map.buckets.forEach((b, i) => {
    noteItem(b.id, b.name, map.types.indexOf(b.type), `buckets[${i}]`);
  });
  const parentOf = new Map<number, number>();
  map.buckets.forEach((b, i) => {
    b.children.forEach((c, j) => {
      const path = `buckets[${i}].children[${j}]`;
      const childRank = rank.get(c);
      if (childRank === undefined) fail(path, 'the id of an existing OST or bucket', c);
      if (childRank >= (rank.get(b.id) ?? 0)) fail(path, `an item of a lower type than '${b.type}'`, c);
      if (parentOf.has(c)) fail(path, 'an item with a single parent', c);
      parentOf.set(c, b.id);
    });
  });
  const root = map.buckets.find((b) => b.name === map.rootName);
  if (!root) fail('rootName', 'the name of a bucket', map.rootName);
  if (parentOf.has(root.id)) fail('rootName', 'a bucket without a parent', map.rootName);
  map.osts.forEach((o, i) => {
    if (!parentOf.has(o.id)) fail(`osts[${i}]`, 'an OST listed as the child of a bucket', o.name);
  });
}
