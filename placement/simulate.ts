import { PlacementError } from './errors.js';
import { expectedShares } from './expectation.js';
import { SIMULATE_INPUTS_MAX } from './limits.js';
import { placeInput } from './place.js';
import { ruleWidth } from './rule.js';
import type { ClusterMap, RuleSpec } from './types.js';

export interface InputRange {
  minX: number;
  maxX: number;
}

export interface SimulateResult {
  osts: { id: number; count: number; expected: number }[];
  maxOverExpected: number;
  minOverExpected: number;
  stddev: number; // of count - expected over OSTs expecting data, in members
  stddevOverExpected: number; // the same relative to the mean expectation
  unplaced: number; // inputs whose placement is not complete
  inputs: number;
}

export function checkRange(opts: InputRange): number {
  const count = opts.maxX - opts.minX + 1;
  if (
    !Number.isInteger(opts.minX) ||
    !Number.isInteger(opts.maxX) ||
    count < 1 ||
    count > SIMULATE_INPUTS_MAX
  ) {
    throw new PlacementError(
      'PLACEMENT_INVALID_RULE',
      `input range [${opts.minX}, ${opts.maxX}] is empty or too big`,
    );
  }
  return count;
}

/** Utilisation of every OST over inputs minX..maxX against the ideal expectation (see expectation.ts). */
export function simulate(map: ClusterMap, rule: RuleSpec, opts: InputRange): SimulateResult {
  const inputs = checkRange(opts);
  const counts = new Map<number, number>(map.osts.map((o) => [o.id, 0]));
  let unplaced = 0;
  for (let x = opts.minX; x <= opts.maxX; x++) {
    const p = placeInput(map, rule, x);
    if (!p.complete) unplaced++;
    for (const id of p.osts) if (id >= 0) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return summarise(counts, expectedShares(map, rule), inputs, unplaced);
}

export function summarise(
  counts: Map<number, number>,
  shares: Map<number, number>,
  inputs: number,
  unplaced: number,
): SimulateResult {
  const osts = [...counts].map(([id, count]) => ({ id, count, expected: (shares.get(id) ?? 0) * inputs }));
  osts.sort((a, b) => a.id - b.id);
  const loaded = osts.filter((o) => o.expected > 0);
  const ratios = loaded.map((o) => o.count / o.expected);
  const sq = loaded.reduce((s, o) => s + (o.count - o.expected) ** 2, 0);
  const stddev = loaded.length === 0 ? 0 : Math.sqrt(sq / loaded.length);
  const meanExpected = loaded.reduce((s, o) => s + o.expected, 0) / Math.max(1, loaded.length);
  return {
    osts,
    maxOverExpected: ratios.length === 0 ? 0 : Math.max(...ratios),
    minOverExpected: ratios.length === 0 ? 0 : Math.min(...ratios),
    stddev,
    stddevOverExpected: meanExpected === 0 ? 0 : stddev / meanExpected,
    unplaced,
    inputs,
  };
}

export interface DiffResult {
  movedFraction: number;
  idealFraction: number;
  ratio: number;
  moved: number;
  slots: number;
}

/** Members that changed between two maps for the same rule; replicated compares sets, erasure positions. */
export function diffMaps(
  before: ClusterMap,
  after: ClusterMap,
  rule: RuleSpec,
  opts: InputRange,
): DiffResult {
  const inputs = checkRange(opts);
  const width = ruleWidth(rule);
  let moved = 0;
  for (let x = opts.minX; x <= opts.maxX; x++) {
    moved += movedMembers(rule, placeInput(before, rule, x).osts, placeInput(after, rule, x).osts);
  }
  const slots = inputs * width;
  const idealFraction = idealMovedFraction(before, after, rule);
  const movedFraction = moved / slots;
  const ratio =
    idealFraction > 0 ? movedFraction / idealFraction : movedFraction === 0 ? 1 : Number.POSITIVE_INFINITY;
  return { movedFraction, idealFraction, ratio, moved, slots };
}

export function movedMembers(rule: RuleSpec, before: number[], after: number[]): number {
  let moved = 0;
  if (rule.kind === 'replicated') {
    for (const id of after) if (!before.includes(id)) moved++;
    return moved;
  }
  for (let p = 0; p < after.length; p++) if (after[p] !== before[p]) moved++;
  return moved;
}

/** The least fraction of members that must move: total variation between the ideal shares. */
export function idealMovedFraction(before: ClusterMap, after: ClusterMap, rule: RuleSpec): number {
  const a = expectedShares(before, rule);
  const b = expectedShares(after, rule);
  let gained = 0;
  for (const [id, share] of b) gained += Math.max(0, share - (a.get(id) ?? 0));
  return gained / ruleWidth(rule);
}
