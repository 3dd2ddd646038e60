// The wire form of one failed item of a batched call (CreateMany,
// UnlinkMany, StatMany): the same code, message and details the single call
// would have sent in its status, so a client can raise the identical error.
import { StripeError } from '../../common/index.js';
import { PlacementError } from '../../placement/index.js';
import type { ItemError } from '../../proto/index.js';

export function itemError(err: unknown): ItemError {
  const coded =
    err instanceof StripeError
      ? err
      : err instanceof PlacementError
        ? new StripeError(err.code, err.message)
        : new StripeError('REQ_INTERNAL', err instanceof Error ? err.message : String(err));
  const hasDetails = Object.keys(coded.details).length > 0;
  return {
    code: coded.code,
    message: coded.message,
    detailsJson: hasDetails ? JSON.stringify(coded.details) : '',
  };
}
