// GetPgHolders: where a PG's data is while it moves (see the proto).
import { StripeError } from '../../common/index.js';
import { placePg } from '../../placement/index.js';
import type { GetPgHoldersRequest__Output, GetPgHoldersResponse } from '../../proto/index.js';
import type { ClusterState } from '../cluster/state.js';
import { pgStateOf } from '../pgstate.js';
import { type HoldersTable, pgKey } from './holders.js';

export function pgHolders(
  state: ClusterState,
  holders: HoldersTable | undefined,
  req: GetPgHoldersRequest__Output,
): GetPgHoldersResponse {
  const pool = state.pools.find((p) => p.id === req.poolId);
  if (!pool) throw new StripeError('REQ_INVALID', `no pool ${req.poolId}`, { poolId: req.poolId });
  if (req.pg >= pool.pgCount)
    throw new StripeError('REQ_INVALID', `pg ${req.pg} outside pool ${pool.name} [0, ${pool.pgCount})`);
  const placement = placePg(state.map, pool, req.pg);
  const record = holders?.get(pgKey(pool.id, req.pg));
  return {
    holders: [...(record ?? placement.osts)],
    placement: placement.osts,
    mapEpoch: state.map.epoch,
    clean: !record && pgStateOf(state.map, pool, placement) === 'clean',
  };
}
