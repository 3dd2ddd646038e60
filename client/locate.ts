// Where the objects of a file live under a map: the layout plus the map says
// where every byte is, with no per-object lookup at the MDS.
import { StripeError } from '../common/errors.js';
import { HOLE, objectToPg, placePg } from '../placement/index.js';
import type { FileLayout } from './layout.js';
import type { MapView } from './map.js';
import { ecChunkObjectId, objectKey } from './striping.js';

/** One stored object (raid0/replicated object, or one ec chunk) and the OSTs that hold it. */
export interface ObjectTarget {
  objectId: string;
  poolId: number;
  pg: number;
  /** replicated: every replica, primary first; ec: the one OST of this position; [] for an ec hole. */
  osts: number[];
  epoch: number;
}

export function poolOf(view: MapView, fileLayout: FileLayout) {
  const pool = view.pools.get(fileLayout.poolId);
  if (!pool)
    throw new StripeError('MAP_STALE', `pool ${fileLayout.poolId} is not in map epoch ${view.epoch}`, {
      poolId: fileLayout.poolId,
    });
  return pool;
}

/** raid0 / replicated object `objectIndex` of file `inode`. */
export function locateObject(
  view: MapView,
  fileLayout: FileLayout,
  inode: number,
  objectIndex: number,
): ObjectTarget {
  const pool = poolOf(view, fileLayout);
  const key = objectKey(inode, objectIndex);
  const pg = objectToPg(pool, key);
  const placement = placePg(view.map, pool, pg);
  return {
    objectId: key,
    poolId: pool.id,
    pg,
    osts: placement.osts.filter((o) => o !== HOLE),
    epoch: view.epoch,
  };
}

/** Every chunk of an ec file, by position 0..k+m-1 (data first, then parity). */
export function locateEcChunks(view: MapView, fileLayout: FileLayout, inode: number): ObjectTarget[] {
  const pool = poolOf(view, fileLayout);
  const pg = objectToPg(pool, objectKey(inode, 0));
  const placement = placePg(view.map, pool, pg);
  const width = (fileLayout.layout.k ?? 0) + (fileLayout.layout.m ?? 0);
  if (placement.osts.length !== width)
    throw new Error(`ec placement has ${placement.osts.length} positions, layout needs ${width}`);
  return placement.osts.map((ost, chunk) => ({
    objectId: ecChunkObjectId(inode, chunk),
    poolId: pool.id,
    pg,
    osts: ost === HOLE ? [] : [ost],
    epoch: view.epoch,
  }));
}
