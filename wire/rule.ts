// RuleSpec <-> the proto Rule, every field kept (root and choose steps too).
// Decoding checks the rule as placement does and refuses an unspecified kind.
import { StripeError } from '../common/errors.js';
import { checkRuleSpec, PlacementError, type RuleSpec } from '../placement/index.js';
import type { Rule as WireRule, Rule__Output as WireRuleOut } from '../proto/index.js';

export function ruleToWire(rule: RuleSpec): WireRule {
  const common = {
    failureDomain: rule.failureDomain,
    root: rule.root ?? '',
    steps: (rule.steps ?? []).map((s) => ({ type: s.type, count: s.count })),
  };
  return rule.kind === 'replicated'
    ? { kind: 'RULE_KIND_REPLICATED', size: rule.size, ...common }
    : { kind: 'RULE_KIND_ERASURE', k: rule.k, m: rule.m, ...common };
}

/** Throws REQ_INVALID when the rule is missing, of no known kind, or malformed. */
export function ruleFromWire(wire: WireRuleOut | null | undefined, what = 'rule'): RuleSpec {
  if (!wire) throw new StripeError('REQ_INVALID', `${what} is missing`);
  const extras = {
    ...(wire.root ? { root: wire.root } : {}),
    ...(wire.steps.length > 0 ? { steps: wire.steps.map((s) => ({ type: s.type, count: s.count })) } : {}),
  };
  let rule: RuleSpec;
  if (wire.kind === 'RULE_KIND_REPLICATED')
    rule = { kind: 'replicated', size: wire.size, failureDomain: wire.failureDomain, ...extras };
  else if (wire.kind === 'RULE_KIND_ERASURE')
    rule = { kind: 'erasure', k: wire.k, m: wire.m, failureDomain: wire.failureDomain, ...extras };
  else
    throw new StripeError(
      'REQ_INVALID',
      `${what}: kind ${JSON.stringify(wire.kind)} is not replicated or erasure`,
    );
  try {
    return checkRuleSpec(rule);
  } catch (err) {
    if (err instanceof PlacementError) throw new StripeError('REQ_INVALID', `${what}: ${err.message}`);
    throw err;
  }
}
