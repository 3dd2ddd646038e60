import { CEPH_OPTIMAL_TUNABLES, type CephRule, type CephRuleStep } from './ceph-types.js';
import { RULE_SIZE_MAX } from './limits.js';
import { indexMap } from './map-index.js';
import type { BucketItem, ClusterMap, RuleSpec } from './types.js';

/** Weights with 5 decimals, as recent crushtool -d prints them. */
function w(weight: number): string {
  return weight.toFixed(5);
}

/** Ceph's usual erasure rule retries (what `ceph osd erasure-code-profile` rules carry). */
const EC_CHOOSELEAF_TRIES = 5;
const EC_CHOOSE_TRIES = 100;

/** The Ceph steps equivalent to a stripefs rule (size comes from --num-rep / the pool). */
export function cephStepsOf(rule: RuleSpec, rootName: string): CephRuleStep[] {
  const take: CephRuleStep = { op: 'take', item: rule.root ?? rootName };
  const mode = rule.kind === 'replicated' ? 'firstn' : 'indep';
  const steps = rule.steps ?? [{ type: rule.failureDomain, count: 0 }];
  const chooses: CephRuleStep[] = steps.map((s, i) => ({
    op: i === steps.length - 1 ? 'chooseleaf' : 'choose',
    mode,
    num: s.count,
    type: s.type,
  }));
  if (rule.kind === 'replicated') return [take, ...chooses, { op: 'emit' }];
  return [
    { op: 'set_chooseleaf_tries', value: EC_CHOOSELEAF_TRIES },
    { op: 'set_choose_tries', value: EC_CHOOSE_TRIES },
    take,
    ...chooses,
    { op: 'emit' },
  ];
}

function stepText(s: CephRuleStep): string {
  switch (s.op) {
    case 'take':
      return `step take ${s.item}`;
    case 'emit':
      return 'step emit';
    case 'set_choose_tries':
    case 'set_chooseleaf_tries':
      return `step ${s.op} ${s.value}`;
    default:
      return `step ${s.op} ${s.mode} ${s.num} type ${s.type}`;
  }
}

function toCephRule(r: CephRule | RuleSpec, i: number, rootName: string): CephRule {
  if (!('kind' in r)) return r;
  const type = r.kind === 'replicated' ? 'replicated' : 'erasure';
  return { id: i, name: `${type}_rule_${i}`, type, steps: cephStepsOf(r, rootName) };
}

/**
 * The map in `crushtool -d` text form, compilable with `crushtool -c`. OST in/out state is not
 * part of a Ceph CRUSH map (it is the OSD map's reweight): pass `--weight ID 0` to crushtool.
 */
export function toCephCrushText(
  map: ClusterMap,
  rules: (CephRule | RuleSpec)[] = [],
  typeIds?: number[],
): string {
  const index = indexMap(map);
  const total = new Map<number, number>();
  const weightOf = (id: number): number => {
    if (id >= 0) return index.ostById.get(id)!.weight;
    const cached = total.get(id);
    if (cached !== undefined) return cached;
    const sum = index.bucketById.get(id)!.children.reduce((s, c) => s + weightOf(c), 0);
    total.set(id, sum);
    return sum;
  };
  const out: string[] = ['# begin crush map'];
  for (const [k, v] of Object.entries(CEPH_OPTIMAL_TUNABLES)) out.push(`tunable ${k} ${v}`);
  out.push('', '# devices');
  for (const o of [...map.osts].sort((a, b) => a.id - b.id)) out.push(`device ${o.id} ${o.name}`);
  out.push('', '# types');
  map.types.forEach((t, i) => {
    out.push(`type ${typeIds?.[i] ?? i} ${t}`);
  });
  out.push('', '# buckets');
  const rank = (b: BucketItem) => map.types.indexOf(b.type);
  for (const b of [...map.buckets].sort((a, c) => rank(a) - rank(c) || c.id - a.id)) {
    out.push(
      `${b.type} ${b.name} {`,
      `\tid ${b.id}\t\t# do not change unnecessarily`,
      `\t# weight ${w(weightOf(b.id))}`,
    );
    out.push('\talg straw2', '\thash 0\t# rjenkins1');
    for (const c of b.children) {
      const name = c >= 0 ? index.ostById.get(c)!.name : index.bucketById.get(c)!.name;
      out.push(`\titem ${name} weight ${w(weightOf(c))}`);
    }
    out.push('}');
  }
  out.push('', '# rules');
  rules.forEach((r, i) => {
    const rule = toCephRule(r, i, map.rootName);
    out.push(`rule ${rule.name} {`, `\tid ${rule.id}`, `\ttype ${rule.type}`);
    out.push('\tmin_size 1', `\tmax_size ${RULE_SIZE_MAX}`); // required by crushtool <= 16
    for (const s of rule.steps) out.push(`\t${stepText(s)}`);
    out.push('}');
  });
  out.push('', '# end crush map', '');
  return out.join('\n');
}
