// Which members a map change takes from each PG: those placed under `before`
// and not under `after` (an OST kept by a PG at another ec position has not
// left it). Pure. The OSS's stale-map rule (oss/map-view.ts) records each
// PG an OST left; the MDS's write fence (mds/cluster/fences.ts) waits for
// the OSSs of the OSTs that left any PG.
import { placePg } from './place.js';
import type { ClusterMap, Pool } from './types.js';

/** One PG's members after a change, and before it (undefined: the PG did not exist). */
export interface PgMembers {
  poolId: number;
  pg: number;
  now: readonly number[];
  was: readonly number[] | undefined;
}

/** Calls `visit` for every PG of `afterPools` with its members under both maps. */
export function eachPgMembers(
  before: ClusterMap,
  beforePools: Iterable<Pool>,
  after: ClusterMap,
  afterPools: Iterable<Pool>,
  visit: (members: PgMembers) => void,
): void {
  const previous = new Map<number, Pool>();
  for (const pool of beforePools) previous.set(pool.id, pool);
  for (const pool of afterPools) {
    const was = previous.get(pool.id);
    for (let pg = 0; pg < pool.pgCount; pg++) {
      const existed = was !== undefined && pg < was.pgCount;
      visit({
        poolId: pool.id,
        pg,
        now: placePg(after, pool, pg).osts,
        was: existed ? placePg(before, was, pg).osts : undefined,
      });
    }
  }
}

/** The OSTs that some PG placed on them under `before` is no longer placed on under `after`. */
export function ostsLeavingPgs(
  before: ClusterMap,
  beforePools: Iterable<Pool>,
  after: ClusterMap,
  afterPools: Iterable<Pool>,
): Set<number> {
  const leaving = new Set<number>();
  eachPgMembers(before, beforePools, after, afterPools, ({ now, was }) => {
    for (const ostId of was ?? []) if (ostId >= 0 && !now.includes(ostId)) leaving.add(ostId);
  });
  return leaving;
}
