// RecoverPgRequest (wire) -> RecoverRequest, validated at the edge.
import { StripeError } from '../../common/errors.js';
import type { RecoverPgRequest__Output } from '../../proto/index.js';
import type { RecoverMode, RecoverRequest } from './recover-pg.js';

const MODES: Record<string, RecoverMode> = {
  RECOVER_MODE_ABSENT: 'absent',
  RECOVER_MODE_ABSENT_OR_SIZE: 'absent-or-size',
  RECOVER_MODE_ALL: 'all',
};
/** Widest ec geometry a rebuild accepts (as layouts allow). */
const EC_WIDTH_MAX = 32;

export function recoverRequestFromWire(req: RecoverPgRequest__Output): RecoverRequest {
  const rule = req.rule;
  if (!rule) throw new StripeError('REQ_INVALID', 'RecoverPg without a rule');
  const mode = MODES[req.mode];
  if (!mode) throw new StripeError('REQ_INVALID', `RecoverPg mode ${req.mode}`);
  const erasure = rule.kind === 'RULE_KIND_ERASURE';
  if (
    erasure &&
    (rule.k < 1 || rule.m < 1 || rule.k + rule.m > EC_WIDTH_MAX || req.position >= rule.k + rule.m)
  )
    throw new StripeError('REQ_INVALID', `RecoverPg ec ${rule.k}+${rule.m} position ${req.position}`);
  return {
    poolId: req.poolId,
    pg: req.pg,
    targetOstId: req.targetOstId,
    position: req.position,
    rule: erasure ? { kind: 'erasure', k: rule.k, m: rule.m } : { kind: 'replicated' },
    sources: req.sources.map((s) => ({
      ostId: s.ostId,
      grpcAddress: s.grpcAddress,
      bulkAddress: s.bulkAddress,
      position: s.position,
      inPlacement: s.inPlacement,
    })),
    mapEpoch: Number(req.mapEpoch),
    bytesPerSec: Number(req.bytesPerSec),
    creditBytes: Number(req.creditBytes),
    mode,
    objectIds: [...req.objectIds],
  };
}
