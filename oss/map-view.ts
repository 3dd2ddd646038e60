// The cluster map as this OSS last learnt it, and the stale-map rule:
// a request made with an older epoch for a PG this OST does not serve under
// the current map, for an object not stored here, is told to refresh.
import { StripeError } from '../common/errors.js';
import { type ClusterMap, type Pool, placePg } from '../placement/index.js';
import type { ClusterMap__Output as WireMap } from '../proto/index.js';
import { mapViewFromWire } from '../wire/index.js';

export interface RefForCheck {
  ostId: number;
  poolId: number;
  pg: number;
  mapEpoch: number;
}

export class MapView {
  private map: ClusterMap | undefined;
  private pools = new Map<number, Pool>();
  /** Called when a request shows a newer epoch than ours (fetch the map now). */
  onNewerEpoch: ((epoch: number) => void) | undefined;

  get epoch(): number {
    return this.map?.epoch ?? 0;
  }

  /** Applies a map from the MDS; older or equal epochs are ignored. */
  apply(wire: WireMap): boolean {
    const { map, pools } = mapViewFromWire(wire);
    if (this.map && map.epoch <= this.map.epoch) return false;
    this.map = map;
    this.pools = pools;
    return true;
  }

  /**
   * Throws MAP_STALE when the rule says so; objectIsHere is asked only when needed. A write of data
   * (`dataWrite`) made with an older map to an OST its PG is no longer placed on is refused even
   * when the object is here: the OST is an old holder, which the PG's new members and its fill do
   * not hear from, so a write it alone took would be lost to them (readers of the old holder
   * are let through: they find data not moved yet).
   */
  async check(ref: RefForCheck, objectIsHere: () => Promise<boolean>, dataWrite = false): Promise<void> {
    const map = this.map;
    if (!map) return;
    if (ref.mapEpoch > map.epoch) {
      this.onNewerEpoch?.(ref.mapEpoch);
      return;
    }
    if (ref.mapEpoch === map.epoch) return;
    const pool = this.pools.get(ref.poolId);
    if (!pool || ref.pg >= pool.pgCount) return;
    if (placePg(map, pool, ref.pg).osts.includes(ref.ostId)) return;
    if (!dataWrite && (await objectIsHere())) return;
    throw new StripeError(
      'MAP_STALE',
      `map epoch ${ref.mapEpoch} is older than ${map.epoch}: refresh the map`,
      {
        epoch: map.epoch,
        requestEpoch: ref.mapEpoch,
      },
    );
  }
}
