// The cluster map as this OSS last learnt it, and the stale-map rule:
// a request made with an older epoch for a PG this OST does not serve under
// the current map, for an object not stored here, is told to refresh; so is a
// write of data to an OST its PG left, and a read of data made with a map from
// before the PG left it, even when the object is here (see check).
import { StripeError } from '../common/errors.js';
import { type ClusterMap, eachPgMembers, type Pool, placePg } from '../placement/index.js';
import type { ClusterMap__Output as WireMap } from '../proto/index.js';
import { mapViewFromWire } from '../wire/index.js';

export interface RefForCheck {
  ostId: number;
  poolId: number;
  pg: number;
  mapEpoch: number;
}

/** The key of an OST's membership of a PG. */
function leftKey(ostId: number, poolId: number, pg: number): string {
  return `${ostId}/${poolId}/${pg}`;
}

export class MapView {
  private map: ClusterMap | undefined;
  private pools = new Map<number, Pool>();
  /**
   * Per OST and PG that OST was placed on and is no longer (in the maps this OSS applied one after
   * another): the first epoch without it.
   */
  private readonly leftAt = new Map<string, number>();
  /**
   * The last map applied without the one before it (the first, or after a gap: a paused or cut-off
   * OSS hears only the newest): any PG not placed here may have left at that epoch.
   */
  private gapEpoch = 0;
  /** Called when a request shows a newer epoch than ours (fetch the map now). */
  onNewerEpoch: ((epoch: number) => void) | undefined;

  get epoch(): number {
    return this.map?.epoch ?? 0;
  }

  /** Applies a map from the MDS; older or equal epochs are ignored. */
  apply(wire: WireMap): boolean {
    const { map, pools } = mapViewFromWire(wire);
    if (this.map && map.epoch <= this.map.epoch) return false;
    if (this.map) this.noteLeft(this.map, this.pools, map, pools);
    if (!this.map || map.epoch > this.map.epoch + 1) this.gapEpoch = map.epoch;
    this.map = map;
    this.pools = pools;
    return true;
  }

  /** Records the PGs each OST left (and forgets those placed on it again) from `before` to `after`. */
  private noteLeft(
    before: ClusterMap,
    beforePools: ReadonlyMap<number, Pool>,
    after: ClusterMap,
    afterPools: ReadonlyMap<number, Pool>,
  ): void {
    eachPgMembers(before, beforePools.values(), after, afterPools.values(), ({ poolId, pg, now, was }) => {
      for (const ostId of now) if (ostId >= 0) this.leftAt.delete(leftKey(ostId, poolId, pg));
      for (const ostId of was ?? [])
        if (ostId >= 0 && !now.includes(ostId)) this.leftAt.set(leftKey(ostId, poolId, pg), after.epoch);
    });
  }

  /**
   * Throws MAP_STALE when the rule says so; objectIsHere is asked only when needed. Made with an
   * older map to an OST its PG is no longer placed on, even when the object is here: a write of data
   * is refused (the OST is an old holder, which the PG's new members and their fill do not hear
   * from, so a write it alone took would be lost to them), and so is a read of data made with a map
   * from before the PG left it (the writers that knew the newer map wrote to the new members, so it
   * would get the bytes from before their writes). A reader that knows the PG moved (a map from
   * when it left or later) may read the old holder: it asked the MDS where data not yet moved is.
   */
  async check(
    ref: RefForCheck,
    objectIsHere: () => Promise<boolean>,
    data?: 'read' | 'write',
  ): Promise<void> {
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
    const left = Math.max(this.leftAt.get(leftKey(ref.ostId, ref.poolId, ref.pg)) ?? 0, this.gapEpoch);
    const refused = data === 'write' || (data === 'read' && ref.mapEpoch < left);
    if (!refused && (await objectIsHere())) return;
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
