import { assert } from './errors.js';
import { flatLayout } from './layout.js';
import { placeInput } from './place.js';
import type { ClusterMap, ExplainStep, RuleSpec } from './types.js';

/**
 * The walk of one input: every draw, the candidate it produced, and each rejection or retry
 * (collision, failure-domain-reused, out) with the replacement that followed. It runs the same
 * engine with a tracer, so the explanation cannot drift from the real placement.
 */
export function explainInput(map: ClusterMap, rule: RuleSpec, x: number): ExplainStep[] {
  const steps: ExplainStep[] = [];
  const layout = flatLayout(map, rule.root ?? map.rootName, rule.failureDomain);
  for (const name of layout.zeroWeightNames) {
    steps.push({
      slot: -1,
      attempt: -1,
      level: 'ost',
      bucket: layout.rootName,
      candidate: name,
      candidateId: -1,
      outcome: 'note',
      reason: 'weight-zero',
      detail: 'weight 0: never drawn',
    });
  }
  const traced = placeInput(map, rule, x, (s) => steps.push(s));
  const plain = placeInput(map, rule, x);
  assert(JSON.stringify(traced) === JSON.stringify(plain), 'tracing must not change the placement');
  steps.push({
    slot: -1,
    attempt: -1,
    level: 'result',
    bucket: layout.rootName,
    candidate: JSON.stringify(plain.osts),
    candidateId: -1,
    outcome: 'note',
    detail: plain.complete ? 'complete' : 'incomplete: too few usable failure domains',
  });
  return steps;
}

/** One line per step, for the CLI's human output. */
export function formatExplain(steps: ExplainStep[]): string {
  return steps
    .map((s) => {
      const slot = s.slot < 0 ? '    ' : `#${String(s.slot).padEnd(3)}`;
      const attempt = s.attempt < 0 ? '' : ` r=${s.attempt}`;
      const why = s.reason ? ` (${s.reason})` : '';
      const detail = s.detail ? ` - ${s.detail}` : '';
      return `${slot} ${s.level.padEnd(6)} in ${s.bucket}: ${s.candidate} ${s.outcome}${why}${attempt}${detail}`;
    })
    .join('\n');
}
