import type { CephImport, CephRule, CephRuleStep } from './ceph-types.js';
import { PlacementError } from './errors.js';
import { validateMap } from './map-validate.js';
import type { BucketItem, ChooseStep, OstItem, RuleSpec } from './types.js';

interface Line {
  no: number; // 1-based line number in the input
  words: string[];
}

function fail(
  line: Line | number,
  why: string,
  code: 'PLACEMENT_CEPH_PARSE' | 'PLACEMENT_UNSUPPORTED' = 'PLACEMENT_CEPH_PARSE',
): never {
  const no = typeof line === 'number' ? line : line.no;
  throw new PlacementError(code, `ceph crush map line ${no}: ${why}`);
}

function num(line: Line, word: string | undefined, what: string): number {
  const v = Number(word);
  if (word === undefined || word === '' || !Number.isFinite(v))
    fail(line, `expected ${what}, got '${word ?? ''}'`);
  return v;
}

interface RawBucket {
  line: Line;
  type: string;
  name: string;
  id?: number;
  items: { name: string; weight: number; line: Line }[];
}

/** Parses the text of `crushtool -d`: devices, types, straw2 buckets, tunables and simple rules. */
export function parseCephCrushText(text: string): CephImport {
  const lines: Line[] = text
    .split('\n')
    .map((raw, i) => ({ no: i + 1, words: raw.replace(/#.*/, '').trim().split(/\s+/) }));
  const devices = new Map<string, number>();
  const types: { id: number; name: string }[] = [];
  const tunables: Record<string, number> = {};
  const buckets: RawBucket[] = [];
  const rules: CephRule[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const [w0, w1, w2, w3] = line.words;
    if (!w0) continue;
    if (w0 === 'tunable')
      tunables[w1 ?? fail(line, 'tunable without a name')] = num(line, w2, 'a tunable value');
    else if (w0 === 'device') {
      if (!w2) fail(line, "expected 'device ID NAME [class CLASS]'");
      devices.set(w2, num(line, w1, 'a device id'));
    } else if (w0 === 'type')
      types.push({ id: num(line, w1, 'a type id'), name: w2 ?? fail(line, 'type without a name') });
    else if (w0 === 'rule') i = parseRule(lines, i, rules, leafTypeOf(types));
    else if (w3 === undefined && w2 === '{' && w1 && types.some((t) => t.name === w0)) {
      i = parseBucket(lines, i, w0, w1, buckets);
    } else fail(line, `unsupported statement '${line.words.join(' ')}'`, 'PLACEMENT_UNSUPPORTED');
  }
  return assemble(devices, types, buckets, rules, tunables);
}

function parseBucket(lines: Line[], start: number, type: string, name: string, out: RawBucket[]): number {
  const bucket: RawBucket = { line: lines[start]!, type, name, items: [] };
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    const [w0, w1, w2, w3] = line.words;
    if (!w0) continue;
    if (w0 === '}') {
      out.push(bucket);
      return i;
    }
    if (w0 === 'id') {
      if (w2 === 'class') continue; // shadow id of a device-class tree: derived data, ignored
      bucket.id = num(line, w1, 'a bucket id');
    } else if (w0 === 'alg') {
      if (w1 !== 'straw2')
        fail(line, `bucket alg '${w1}' is not supported (only straw2)`, 'PLACEMENT_UNSUPPORTED');
    } else if (w0 === 'hash') {
      if (w1 !== '0')
        fail(line, `hash '${w1}' is not supported (only 0, rjenkins1)`, 'PLACEMENT_UNSUPPORTED');
    } else if (w0 === 'item') {
      if (w2 !== 'weight' || !w1) fail(line, "expected 'item NAME weight W'");
      bucket.items.push({ name: w1, weight: num(line, w3, 'an item weight'), line });
    } else fail(line, `unsupported bucket field '${w0}'`, 'PLACEMENT_UNSUPPORTED');
  }
  return fail(bucket.line, `bucket '${name}' is not closed with '}'`);
}

/** The leaf type: the declared type with the lowest id (types precede rules in crushtool -d output). */
function leafTypeOf(types: { id: number; name: string }[]): string | undefined {
  return [...types].sort((a, b) => a.id - b.id)[0]?.name;
}

function parseRule(lines: Line[], start: number, out: CephRule[], leafType: string | undefined): number {
  const head = lines[start]!;
  const name = head.words[1];
  if (!name || head.words[2] !== '{') fail(head, "expected 'rule NAME {'");
  const rule: CephRule = { id: -1, name, type: 'replicated', steps: [] };
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    const [w0, w1, w2, w3, w4, w5] = line.words;
    if (!w0) continue;
    if (w0 === '}') {
      if (rule.id < 0) fail(head, `rule '${name}' has no id`);
      const spec = ruleSpecOf(rule.steps, rule.type, leafType);
      out.push(typeof spec === 'string' ? { ...rule, notRunnable: spec } : { ...rule, asRuleSpec: spec });
      return i;
    }
    if (w0 === 'id' || w0 === 'ruleset') rule.id = num(line, w1, 'a rule id');
    else if (w0 === 'type') {
      if (w1 !== 'replicated' && w1 !== 'erasure')
        fail(line, `rule type '${w1}' is not supported`, 'PLACEMENT_UNSUPPORTED');
      rule.type = w1;
    } else if (w0 === 'min_size' || w0 === 'max_size') continue;
    else if (w0 !== 'step') fail(line, `unsupported rule field '${w0}'`, 'PLACEMENT_UNSUPPORTED');
    else rule.steps.push(parseStep(line, w1, w2, w3, w4, w5));
  }
  return fail(head, `rule '${name}' is not closed with '}'`);
}

function parseStep(line: Line, ...w: (string | undefined)[]): CephRuleStep {
  const [op, a, b, c, d] = w;
  if (op === 'take') {
    if (b === 'class')
      fail(line, `'step take ${a} class ${c}': device classes are not supported`, 'PLACEMENT_UNSUPPORTED');
    if (!a || b !== undefined) fail(line, "expected 'step take BUCKET'");
    return { op: 'take', item: a };
  }
  if (op === 'emit') return { op: 'emit' };
  if (op === 'set_choose_tries' || op === 'set_chooseleaf_tries')
    return { op, value: num(line, a, 'a try count') };
  if ((op === 'choose' || op === 'chooseleaf') && (a === 'firstn' || a === 'indep') && c === 'type' && d) {
    return { op, mode: a, num: num(line, b, 'a count'), type: d };
  }
  return fail(line, `unsupported step '${w.filter(Boolean).join(' ')}'`, 'PLACEMENT_UNSUPPORTED');
}

/** Width of an imported rule when a count is relative (<= 0): Ceph's usual pool sizes. */
const DEFAULT_REPLICATED_SIZE = 3;
const DEFAULT_ERASURE = { k: 4, m: 2 };

/**
 * take R / [choose firstn|indep N type T]... / chooseleaf firstn|indep N type T / emit (or a
 * last choose of the leaf type): every step applies to each item the previous one produced
 * (rule.steps); one step is the plain rule.
 * The width is the product of the counts when all are positive, else Ceph's usual pool size
 * (3, or 4+2) until --num-rep says otherwise.
 */
function ruleSpecOf(steps: CephRuleStep[], type: CephRule['type'], leafType?: string): RuleSpec | string {
  const core = steps.filter((s) => s.op !== 'set_choose_tries' && s.op !== 'set_chooseleaf_tries');
  const take = core[0];
  const chooses = core.slice(1, -1);
  if (take?.op !== 'take' || core.at(-1)?.op !== 'emit' || chooses.length === 0)
    return 'only rules of the form take / choose... / chooseleaf / emit can run';
  const modes = new Set<string>();
  const list: ChooseStep[] = [];
  for (const [i, c] of chooses.entries()) {
    if (c.op !== 'choose' && c.op !== 'chooseleaf')
      return `step '${c.op}' between take and emit is not supported`;
    if (c.op === 'choose' && i === chooses.length - 1 && c.type !== leafType)
      return `the last step must be chooseleaf, or choose of the leaf type '${leafType}'`;
    if (c.op === 'chooseleaf' && i !== chooses.length - 1) return 'chooseleaf must be the last choose step';
    modes.add(c.mode);
    list.push({ type: c.type, count: c.num });
  }
  if (modes.size > 1) return 'firstn and indep steps cannot be mixed in one rule';
  const last = chooses.at(-1) as Extract<CephRuleStep, { mode: string }>;
  const counts = list.map((c) => c.count);
  const product = counts.every((c) => c > 0) ? counts.reduce((a, b) => a * b, 1) : 0;
  const extras = {
    failureDomain: last.type,
    root: take.item,
    ...(list.length > 1 || (product === 0 && counts[0] !== 0) ? { steps: list } : {}),
  };
  if (last.mode === 'firstn') {
    if (type !== 'replicated') return 'firstn steps in an erasure rule are not supported';
    return { kind: 'replicated', size: product || DEFAULT_REPLICATED_SIZE, ...extras };
  }
  return product
    ? { kind: 'erasure', k: product, m: 0, ...extras }
    : { kind: 'erasure', ...DEFAULT_ERASURE, ...extras };
}

function assemble(
  devices: Map<string, number>,
  rawTypes: { id: number; name: string }[],
  raw: RawBucket[],
  rules: CephRule[],
  tunables: Record<string, number>,
): CephImport {
  const sortedTypes = [...rawTypes].sort((a, b) => a.id - b.id);
  const typeNames = sortedTypes.map((t) => t.name);
  const bucketIds = new Map<string, number>();
  for (const b of raw) {
    if (b.id === undefined) fail(b.line, `bucket '${b.name}' has no id`);
    if (!typeNames.includes(b.type)) fail(b.line, `bucket type '${b.type}' is not declared in # types`);
    bucketIds.set(b.name, b.id);
  }
  const osts: OstItem[] = [];
  const buckets: BucketItem[] = raw.map((b) => ({
    id: b.id!,
    name: b.name,
    type: b.type,
    children: b.items.map((item) => {
      const dev = devices.get(item.name);
      if (dev !== undefined) {
        const host = b.type === 'host' ? { host: b.name } : {};
        osts.push({ id: dev, name: item.name, weight: item.weight, state: { up: true, in: true }, ...host });
        return dev;
      }
      return (
        bucketIds.get(item.name) ?? fail(item.line, `item '${item.name}' is neither a device nor a bucket`)
      );
    }),
  }));
  const children = new Set(buckets.flatMap((b) => b.children));
  const roots = buckets.filter((b) => !children.has(b.id));
  const firstTake = rules.flatMap((r) => r.steps).find((s) => s.op === 'take');
  const rootName =
    (firstTake?.op === 'take' && roots.some((r) => r.name === firstTake.item) ? firstTake.item : undefined) ??
    roots.find((r) => r.name === 'default')?.name ??
    roots[0]?.name ??
    fail(1, 'no root bucket found');
  osts.sort((a, b) => a.id - b.id);
  const map = validateMap({ epoch: 1, types: typeNames, osts, buckets, rootName });
  return { map, rules, tunables, typeIds: sortedTypes.map((t) => t.id) };
}
