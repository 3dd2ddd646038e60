import { PlacementError } from './errors.js';
import { placeErasureFlat } from './flat-erasure.js';
import { placeReplicatedFlat } from './flat-replicated.js';
import { hash32x3, hashString } from './hash.js';
import { flatLayout } from './layout.js';
import { PG_COUNT_MAX, RULE_SIZE_MAX } from './limits.js';
import { checkRuleSpec, ruleWidth } from './rule.js';
import { placeSteppedFirstn } from './stepped-firstn.js';
import { placeSteppedIndep } from './stepped-indep.js';
import { steppedLayout } from './stepped-layout.js';
import type { ClusterMap, Placement, Pool, RuleSpec, Tracer } from './types.js';

/** Salt of the PG -> input hash, so PG inputs do not coincide with raw inputs of tests. */
const PG_INPUT_SALT = 0x50470000; // 'PG'

/** A rule resolved against one map, for loops over many inputs (simulate, diff, benchmarks). */
export interface Placer {
  /** Replica count or k+m: out must hold at least this many entries. */
  readonly width: number;
  /**
   * Writes input x's members to out, as placeInput orders them (replicated: dense, best first;
   * erasure: by position, HOLE for none), and returns how many are placed (width = complete).
   * No checks and no allocation per call; the map must not change while the placer is used.
   */
  placeInto(x: number, out: Int32Array, trace?: Tracer): number;
}

/** Checks the rule and resolves it against the map once (the derived tables are memoised per epoch). */
export function placerFor(map: ClusterMap, rule: RuleSpec): Placer {
  checkRuleSpec(rule);
  const width = ruleWidth(rule);
  if (rule.steps !== undefined) {
    const stepped = steppedLayout(map, rule.root ?? map.rootName, rule.steps);
    return rule.kind === 'replicated'
      ? { width, placeInto: (x, out, trace) => placeSteppedFirstn(stepped, width, x >>> 0, out, trace) }
      : { width, placeInto: (x, out, trace) => placeSteppedIndep(stepped, width, x >>> 0, out, trace) };
  }
  const layout = flatLayout(map, rule.root ?? map.rootName, rule.failureDomain);
  if (rule.kind === 'replicated') {
    return { width, placeInto: (x, out, trace) => placeReplicatedFlat(layout, width, x >>> 0, out, trace) };
  }
  return { width, placeInto: (x, out, trace) => placeErasureFlat(layout, width, x >>> 0, out, trace) };
}

/** Scratch output of placeInput, copied into the returned array (calls never nest). */
const placeScratch = new Int32Array(RULE_SIZE_MAX);

/** Pure CRUSH-like mapping of a 32-bit input under a stripefs rule (flat straw2, see README). */
export function placeInput(map: ClusterMap, rule: RuleSpec, x: number, trace?: Tracer): Placement {
  checkRuleSpec(rule);
  const width = ruleWidth(rule);
  const input = x >>> 0;
  let placed: number;
  if (rule.steps !== undefined) placed = placerFor(map, rule).placeInto(input, placeScratch, trace);
  else {
    const layout = flatLayout(map, rule.root ?? map.rootName, rule.failureDomain);
    placed =
      rule.kind === 'replicated'
        ? placeReplicatedFlat(layout, width, input, placeScratch, trace)
        : placeErasureFlat(layout, width, input, placeScratch, trace);
  }
  const length = rule.kind === 'replicated' ? placed : width;
  const osts: number[] = [];
  for (let i = 0; i < length; i++) osts.push(placeScratch[i]!);
  return { osts, complete: placed === width };
}

function checkPool(pool: Pool): void {
  if (!Number.isInteger(pool.pgCount) || pool.pgCount < 1 || pool.pgCount > PG_COUNT_MAX) {
    throw new PlacementError(
      'PLACEMENT_INVALID_RULE',
      `pool ${pool.name}: pgCount must be in [1, ${PG_COUNT_MAX}]`,
    );
  }
  if (!Number.isInteger(pool.id) || pool.id < 0) {
    throw new PlacementError('PLACEMENT_INVALID_RULE', `pool ${pool.name}: id must be an integer >= 0`);
  }
}

/**
 * Ceph's stable_mod: with pgCount not a power of two, hashes whose low bits exceed pgCount fold
 * onto the lower half. Growing pgCount then splits PGs one at a time instead of reshuffling all.
 */
export function stableMod(hash: number, pgCount: number): number {
  const mask = pgCount <= 1 ? 0 : 2 ** (32 - Math.clz32(pgCount - 1)) - 1;
  const low = hash & mask;
  return low < pgCount ? low : hash & (mask >>> 1);
}

/** object -> PG: murmur3 of the key's UTF-8 bytes, then stable_mod. */
export function objectToPg(pool: Pool, objectKey: string): number {
  checkPool(pool);
  return stableMod(hashString(objectKey), pool.pgCount);
}

/** The CRUSH input of a PG: hash(pg, pool id), so pools with the same rule spread differently. */
export function pgInput(pool: Pool, pg: number): number {
  return hash32x3(pg, pool.id, PG_INPUT_SALT);
}

export function placePg(map: ClusterMap, pool: Pool, pg: number): Placement {
  checkPool(pool);
  if (!Number.isInteger(pg) || pg < 0 || pg >= pool.pgCount) {
    throw new PlacementError(
      'PLACEMENT_INVALID_RULE',
      `pg ${pg} outside pool ${pool.name} [0, ${pool.pgCount})`,
    );
  }
  return placeInput(map, pool.rule, pgInput(pool, pg));
}

export function placeObject(map: ClusterMap, pool: Pool, objectKey: string): { pg: number } & Placement {
  const pg = objectToPg(pool, objectKey);
  return { pg, ...placePg(map, pool, pg) };
}
