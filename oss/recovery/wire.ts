// RecoverPgRequest (wire) -> RecoverRequest, validated at the edge.
import { StripeError } from '../../common/errors.js';
import type { RecoverPgRequest__Output } from '../../proto/index.js';
import { ruleFromWire } from '../../wire/index.js';
import type { RecoverMode, RecoverRequest } from './recover-pg.js';

const MODES: Record<string, RecoverMode> = {
  RECOVER_MODE_ABSENT: 'absent',
  RECOVER_MODE_ABSENT_OR_SIZE: 'absent-or-size',
  RECOVER_MODE_ALL: 'all',
};

export function recoverRequestFromWire(req: RecoverPgRequest__Output): RecoverRequest {
  const rule = ruleFromWire(req.rule, 'RecoverPg rule');
  const mode = MODES[req.mode];
  if (!mode) throw new StripeError('REQ_INVALID', `RecoverPg mode ${req.mode}`);
  if (rule.kind === 'erasure' && (rule.m < 1 || req.position >= rule.k + rule.m))
    throw new StripeError('REQ_INVALID', `RecoverPg ec ${rule.k}+${rule.m} position ${req.position}`);
  return {
    poolId: req.poolId,
    pg: req.pg,
    targetOstId: req.targetOstId,
    position: req.position,
    rule,
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
