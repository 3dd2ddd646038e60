import { PlacementError } from './errors.js';
import { RULE_SIZE_MAX, RULE_STEPS_MAX } from './limits.js';
import type { ChooseStep, RuleSpec } from './types.js';

function bad(text: string | { toString(): string }, why: string): never {
  throw new PlacementError('PLACEMENT_INVALID_RULE', `rule '${String(text)}': ${why}`);
}

/**
 * 'replicated:3:rack', 'rep:3:rack', 'ec:4+2:host' or 'erasure:4+2:host', optional ':ROOT'
 * suffix. The domain part may list choose steps, outermost first: 'replicated:4:rack=2,host=2'
 * (two racks, two hosts in each), 'ec:4+2:rack=3,host=2'; a step without '=N' takes the rest
 * (count 0).
 */
export function parseRuleSpec(text: string): RuleSpec {
  const parts = text.trim().split(':');
  const [kind, size, domainPart, root, extra] = parts;
  if (!kind || !size || !domainPart || extra !== undefined) {
    bad(text, "expected 'replicated:N:DOMAIN' or 'ec:K+M:DOMAIN' (optionally ':ROOT')");
  }
  const steps = parseSteps(text, domainPart);
  const failureDomain = steps.at(-1)!.type;
  const extras = {
    ...(root === undefined ? {} : { root }),
    ...(steps.length > 1 || steps[0]!.count !== 0 ? { steps } : {}),
  };
  if (kind === 'replicated' || kind === 'rep') {
    if (!/^\d+$/.test(size)) bad(text, `replica count '${size}' is not a whole number`);
    return checkRuleSpec({ kind: 'replicated', size: Number(size), failureDomain, ...extras });
  }
  if (kind === 'ec' || kind === 'erasure') {
    const km = /^(\d+)\+(\d+)$/.exec(size);
    if (!km) bad(text, `'${size}' is not of the form K+M`);
    return checkRuleSpec({ kind: 'erasure', k: Number(km[1]), m: Number(km[2]), failureDomain, ...extras });
  }
  return bad(text, `unknown kind '${kind}' (replicated or ec)`);
}

function parseSteps(text: string, domainPart: string): ChooseStep[] {
  return domainPart.split(',').map((part) => {
    const m = /^([A-Za-z_][\w-]*)(?:=(-?\d+))?$/.exec(part);
    if (!m) bad(text, `'${part}' is not of the form TYPE or TYPE=COUNT`);
    return { type: m[1]!, count: m[2] === undefined ? 0 : Number(m[2]) };
  });
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
  if (rule.steps !== undefined) checkSteps(rule, rule.steps);
  return rule;
}

function checkSteps(rule: RuleSpec, steps: ChooseStep[]): void {
  if (!Array.isArray(steps) || steps.length < 1 || steps.length > RULE_STEPS_MAX)
    badRule(rule, `steps must list 1 to ${RULE_STEPS_MAX} choose steps (RULE_STEPS_MAX)`);
  for (const s of steps) {
    if (typeof s?.type !== 'string' || s.type === '') badRule(rule, 'every step needs a type');
    if (!Number.isInteger(s.count) || Math.abs(s.count) > RULE_SIZE_MAX)
      badRule(rule, `step count must be an integer in [-${RULE_SIZE_MAX}, ${RULE_SIZE_MAX}]`);
  }
  if (steps.at(-1)!.type !== rule.failureDomain) badRule(rule, "the last step's type must be failureDomain");
}

function badRule(rule: RuleSpec, why: string): never {
  return bad(JSON.stringify(rule), why);
}

export function formatRuleSpec(rule: RuleSpec): string {
  const root = rule.root === undefined ? '' : `:${rule.root}`;
  const domains =
    rule.steps === undefined
      ? rule.failureDomain
      : rule.steps.map((s) => (s.count === 0 ? s.type : `${s.type}=${s.count}`)).join(',');
  return rule.kind === 'replicated'
    ? `replicated:${rule.size}:${domains}${root}`
    : `ec:${rule.k}+${rule.m}:${domains}${root}`;
}
