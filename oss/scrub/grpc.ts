// The deep-scrub RPCs of OssService, validated at the edge: DigestObjects
// (a member digests its own copies) and ScrubPg (the primary compares the
// members' copies and repairs).
import { StripeError } from '../../common/errors.js';
import { unary } from '../../common/grpc.js';
import type {
  DigestObjectsRequest__Output,
  DigestObjectsResponse,
  OssServiceHandlers,
  ScrubPgRequest__Output,
  ScrubPgResponse,
} from '../../proto/index.js';
import { ruleFromWire } from '../../wire/index.js';
import type { OssCore } from '../ops.js';
import { digestObjects } from './digest.js';
import type { PgScrubber, ScrubPgInput } from './pg-scrub.js';

/** Widest ec geometry (as layouts allow) and most replicas a scrub accepts. */
const MEMBERS_MAX = 32;

export function scrubPgInputFromWire(req: ScrubPgRequest__Output): ScrubPgInput {
  const rule = ruleFromWire(req.rule, 'ScrubPg rule');
  const erasure = rule.kind === 'erasure';
  if (req.members.length === 0 || req.members.length > MEMBERS_MAX)
    throw new StripeError('REQ_INVALID', `ScrubPg with ${req.members.length} members (1 to ${MEMBERS_MAX})`);
  if (erasure && rule.m < 1) throw new StripeError('REQ_INVALID', `ScrubPg ec ${rule.k}+${rule.m}`);
  const positions = new Set(req.members.map((m) => m.position));
  if (
    positions.size !== req.members.length ||
    (erasure && req.members.some((m) => m.position >= rule.k + rule.m))
  )
    throw new StripeError('REQ_INVALID', 'ScrubPg members need distinct positions inside the rule');
  return {
    poolId: req.poolId,
    pg: req.pg,
    rule,
    members: req.members.map((m) => ({
      ostId: m.ostId,
      grpcAddress: m.grpcAddress,
      bulkAddress: m.bulkAddress,
      position: m.position,
    })),
    mapEpoch: Number(req.mapEpoch),
    bytesPerSec: Number(req.bytesPerSec),
    repair: req.repair,
  };
}

export function scrubHandlers(
  core: OssCore,
  scrubber: PgScrubber,
): Pick<OssServiceHandlers, 'DigestObjects' | 'ScrubPg'> {
  return {
    DigestObjects: unary<DigestObjectsRequest__Output, DigestObjectsResponse>(async (req) => ({
      digests: await digestObjects(core, {
        ostId: req.ostId,
        objectIds: req.objectIds,
        bytesPerSec: Number(req.bytesPerSec),
      }),
    })),
    ScrubPg: unary<ScrubPgRequest__Output, ScrubPgResponse>(async (req) =>
      scrubber.scrubPg(scrubPgInputFromWire(req)),
    ),
  };
}
