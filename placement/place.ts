import { PlacementError } from './errors.js';
import { placeErasureFlat } from './flat-erasure.js';
import { placeReplicatedFlat } from './flat-replicated.js';
import { hash32x3, hashString } from './hash.js';
import { flatLayout } from './layout.js';
import { PG_COUNT_MAX } from './limits.js';
import { checkRuleSpec, ruleWidth } from './rule.js';
import type { ClusterMap, Placement, Pool, RuleSpec, Tracer } from './types.js';

/** Salt of the PG -> input hash, so PG inputs do not coincide with raw inputs of tests. */
const PG_INPUT_SALT = 0x50470000; // 'PG'

/** Pure CRUSH-like mapping of a 32-bit input under a stripefs rule (flat straw2, see README). */
export function placeInput(map: ClusterMap, rule: RuleSpec, x: number, trace?: Tracer): Placement {
  checkRuleSpec(rule);
  const layout = flatLayout(map, rule.root ?? map.rootName, rule.failureDomain);
  const input = x >>> 0;
  return rule.kind === 'replicated'
    ? placeReplicatedFlat(layout, rule.size, input, trace)
    : placeErasureFlat(layout, ruleWidth(rule), input, trace);
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
