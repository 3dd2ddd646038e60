// The proto ObjectRef -> the reference every object request names: the OST,
// the object, its pool and PG, and the map epoch the sender used. Senders build
// an ObjectRefFields and send it as is on either path (gRPC or bulk).

import type { BulkRef } from '../common/bulk/frame.js';
import { StripeError } from '../common/errors.js';
import type { ObjectRef__Output } from '../proto/index.js';

/** Every field present: the gRPC path sends it as the proto's input type, the bulk path frames it as is. */
export type ObjectRefFields = BulkRef;

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
