// Wire ClusterMap -> placement types, kept local until placement/wire.ts
// (the integrator's shared codec) exists; then this file should re-export it.
import type { ClusterMap, Pool, RuleSpec } from '../placement/index.js';
import type { ClusterMap__Output, Rule__Output } from '../proto/index.js';

function ruleFromWire(rule: Rule__Output | null): RuleSpec {
  if (!rule) throw new Error('pool without a rule');
  const root = rule.root ? { root: rule.root } : {};
  if (rule.kind === 'RULE_KIND_ERASURE')
    return { kind: 'erasure', k: rule.k, m: rule.m, failureDomain: rule.failureDomain, ...root };
  return { kind: 'replicated', size: rule.size, failureDomain: rule.failureDomain, ...root };
}

export function mapFromWireLocal(wire: ClusterMap__Output): { map: ClusterMap; pools: Pool[] } {
  const map: ClusterMap = {
    epoch: Number(wire.epoch),
    types: [...wire.types],
    osts: wire.osts.map((o) => ({
      id: o.id,
      name: o.name,
      weight: o.weight,
      state: { up: o.state?.up ?? false, in: o.state?.in ?? false },
      ...(o.host ? { host: o.host } : {}),
    })),
    buckets: wire.buckets.map((b) => ({ id: b.id, name: b.name, type: b.type, children: [...b.children] })),
    rootName: wire.rootName,
  };
  const pools = wire.pools.map((p) => ({
    id: p.id,
    name: p.name,
    pgCount: p.pgCount,
    rule: ruleFromWire(p.rule),
  }));
  return { map, pools };
}
