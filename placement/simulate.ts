import { PlacementError } from './errors.js';
import { expectedShares } from './expectation.js';
import { SIMULATE_INPUTS_MAX } from './limits.js';
import { placerFor } from './place.js';
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
  const placer = placerFor(map, rule);
  const out = new Int32Array(placer.width);
  const counter = ostCounter(map);
  let unplaced = 0;
  for (let x = opts.minX; x <= opts.maxX; x++) {
    const placed = placer.placeInto(x, out);
    if (placed !== placer.width) unplaced++;
    const length = rule.kind === 'replicated' ? placed : placer.width;
    for (let i = 0; i < length; i++) if (out[i]! >= 0) counter.counts[counter.slotOf(out[i]!)]!++;
  }
  return summarise(counter.toMap(), expectedShares(map, rule), inputs, unplaced);
}

/** Above this id spread, counts go through a Map instead of a dense array indexed by OST id. */
const DENSE_ID_SLACK = 1024;

/** Per-OST counters without a Map lookup per member: dense by id when ids are compact. */
function ostCounter(map: ClusterMap) {
  const ids = map.osts.map((o) => o.id);
  const maxId = ids.reduce((m, id) => Math.max(m, id), -1);
  const dense = maxId < 4 * ids.length + DENSE_ID_SLACK;
  const slots = dense ? undefined : new Map(ids.map((id, i) => [id, i]));
  const counts = new Float64Array(dense ? maxId + 1 : ids.length);
  return {
    counts,
    slotOf: dense ? (id: number) => id : (id: number) => slots!.get(id)!,
    toMap: () => new Map(ids.map((id, i) => [id, counts[dense ? id : i]!])),
  };
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
  const placerBefore = placerFor(before, rule);
  const placerAfter = placerFor(after, rule);
  const a = new Int32Array(width);
  const b = new Int32Array(width);
  let moved = 0;
  for (let x = opts.minX; x <= opts.maxX; x++) {
    const countA = placerBefore.placeInto(x, a);
    const countB = placerAfter.placeInto(x, b);
    moved += rule.kind === 'replicated' ? newMembers(a, countA, b, countB) : changedPositions(a, b, width);
  }
  const slots = inputs * width;
  const idealFraction = idealMovedFraction(before, after, rule);
  const movedFraction = moved / slots;
  const ratio =
    idealFraction > 0 ? movedFraction / idealFraction : movedFraction === 0 ? 1 : Number.POSITIVE_INFINITY;
  return { movedFraction, idealFraction, ratio, moved, slots };
}

/** Replicated: members of after that were not in before. Erasure: positions whose OST changed. */
export function movedMembers(rule: RuleSpec, before: number[], after: number[]): number {
  return rule.kind === 'replicated'
    ? newMembers(before, before.length, after, after.length)
    : changedPositions(before, after, after.length);
}

function newMembers(
  before: ArrayLike<number>,
  countBefore: number,
  after: ArrayLike<number>,
  countAfter: number,
) {
  let moved = 0;
  for (let i = 0; i < countAfter; i++) {
    let found = false;
    for (let j = 0; j < countBefore && !found; j++) found = before[j] === after[i];
    if (!found) moved++;
  }
  return moved;
}

function changedPositions(before: ArrayLike<number>, after: ArrayLike<number>, width: number): number {
  let moved = 0;
  for (let p = 0; p < width; p++) if (after[p] !== before[p]) moved++;
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
