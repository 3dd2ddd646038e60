import { PlacementError } from './errors.js';
import { RULE_SIZE_MAX } from './limits.js';
import type { RuleSpec } from './types.js';

function bad(text: string | { toString(): string }, why: string): never {
  throw new PlacementError('PLACEMENT_INVALID_RULE', `rule '${String(text)}': ${why}`);
}

/** 'replicated:3:rack', 'rep:3:rack', 'ec:4+2:host' or 'erasure:4+2:host', optional ':ROOT' suffix. */
export function parseRuleSpec(text: string): RuleSpec {
  const parts = text.trim().split(':');
  const [kind, size, failureDomain, root, extra] = parts;
  if (!kind || !size || !failureDomain || extra !== undefined) {
    bad(text, "expected 'replicated:N:DOMAIN' or 'ec:K+M:DOMAIN' (optionally ':ROOT')");
  }
  const rootPart = root === undefined ? {} : { root };
  if (kind === 'replicated' || kind === 'rep') {
    if (!/^\d+$/.test(size)) bad(text, `replica count '${size}' is not a whole number`);
    return checkRuleSpec({ kind: 'replicated', size: Number(size), failureDomain, ...rootPart });
  }
  if (kind === 'ec' || kind === 'erasure') {
    const km = /^(\d+)\+(\d+)$/.exec(size);
    if (!km) bad(text, `'${size}' is not of the form K+M`);
    return checkRuleSpec({ kind: 'erasure', k: Number(km[1]), m: Number(km[2]), failureDomain, ...rootPart });
  }
  return bad(text, `unknown kind '${kind}' (replicated or ec)`);
}

/** Width of a rule: replica count or k+m. */
export function ruleWidth(rule: RuleSpec): number {
  return rule.kind === 'replicated' ? rule.size : rule.k + rule.m;
}

/** Runs on every placeInput call, so it allocates nothing unless the rule is bad. */
export function checkRuleSpec(rule: RuleSpec): RuleSpec {
  if (rule.kind === 'replicated') {
    if (!Number.isInteger(rule.size) || rule.size < 1) badRule(rule, 'size must be an integer >= 1');
  } else if (rule.kind === 'erasure') {
    if (!Number.isInteger(rule.k) || rule.k < 1) badRule(rule, 'k must be an integer >= 1');
    if (!Number.isInteger(rule.m) || rule.m < 0) badRule(rule, 'm must be an integer >= 0');
  } else {
    badRule(rule, 'kind must be replicated or erasure');
  }
  if (ruleWidth(rule) > RULE_SIZE_MAX) badRule(rule, `at most ${RULE_SIZE_MAX} members (RULE_SIZE_MAX)`);
  if (typeof rule.failureDomain !== 'string' || rule.failureDomain === '')
    badRule(rule, 'failureDomain missing');
  return rule;
}

function badRule(rule: RuleSpec, why: string): never {
  return bad(JSON.stringify(rule), why);
}

export function formatRuleSpec(rule: RuleSpec): string {
  const root = rule.root === undefined ? '' : `:${rule.root}`;
  return rule.kind === 'replicated'
    ? `replicated:${rule.size}:${rule.failureDomain}${root}`
    : `ec:${rule.k}+${rule.m}:${rule.failureDomain}${root}`;
}
