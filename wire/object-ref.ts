// The proto ObjectRef -> the reference every object request names: the OST,
// the object, its pool and PG, and the map epoch the sender used. Senders build
// an ObjectRefFields and send it as is (it is the proto's input type, complete).
import { StripeError } from '../common/errors.js';
import type { ObjectRef__Output } from '../proto/index.js';

export interface ObjectRefFields {
  ostId: number;
  objectId: string;
  poolId: number;
  pg: number;
  mapEpoch: number;
}

/** Throws REQ_INVALID when the request carries no ref; the object id is checked where it is used. */
export function objectRefFromWire(ref: ObjectRef__Output | null | undefined): ObjectRefFields {
  if (!ref) throw new StripeError('REQ_INVALID', 'request has no object ref');
  return {
    ostId: ref.ostId,
    objectId: ref.objectId,
    poolId: ref.poolId,
    pg: ref.pg,
    mapEpoch: Number(ref.mapEpoch),
  };
}
