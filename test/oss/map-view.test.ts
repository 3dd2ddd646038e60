// The OSS's stale-map rule for reads of data (oss/map-view.ts): an OST a PG
// moved off refuses a read made with a map from before the move (MAP_STALE),
// and serves one made with a map from the move on (a reader that asked the
// MDS where data not yet moved is). An OSS that applied a map without the one
// before it (it was stopped or cut off while the PG moved off and back, and
// heard only the newest) cannot know when a PG left one of its OSTs: it
// refuses every read older than that map of an OST the PG is not placed on.
// Before, a stopped OSS let through a reader still on the map in between: the
// member placed meanwhile served the bytes from before the writes made after
// it was replaced (chaos suite seed 7). Pure: maps built as the MDS builds
// them, no servers.
import { describe, expect, it } from 'vitest';
import { StripeError } from '../../common/errors.js';
import { adminReweight, type ClusterState } from '../../mds/cluster/state.js';
import { MapView } from '../../oss/map-view.js';
import { placePg } from '../../placement/index.js';
import type { ClusterMap__Output as WireMap } from '../../proto/index.js';
import { mapToWire } from '../../wire/index.js';
import { pureCluster } from '../helpers/cluster-state.js';

function cluster(): ClusterState {
  return pureCluster(
    4,
    [{ rule: { kind: 'replicated', size: 3, failureDomain: 'host' }, pgCount: 16 }],
    (h) => Math.floor(h / 2),
  );
}

const wire = (state: ClusterState): WireMap => mapToWire(state.map, state.pools) as unknown as WireMap;

/** A PG that moves off `left` to `joined` when `left` is reweighted to 0, and back when it returns. */
function aMove(base: ClusterState) {
  const pool = base.pools[0]!;
  for (const ost of base.map.osts) {
    const away = adminReweight(base, ost.id, 0);
    const back = adminReweight(away, ost.id, ost.weight);
    for (let pg = 0; pg < pool.pgCount; pg++) {
      const before = placePg(base.map, pool, pg).osts;
      const during = placePg(away.map, pool, pg).osts;
      const joined = during.find((id) => !before.includes(id));
      if (before.includes(ost.id) && joined !== undefined)
        return { pool, pg, left: ost.id, joined, away, back };
    }
  }
  throw new Error('no PG moves');
}

async function readAnswer(
  view: MapView,
  ref: { ostId: number; poolId: number; pg: number; mapEpoch: number },
) {
  return view
    .check(ref, async () => true, 'read')
    .then(
      () => 'served',
      (err: unknown) => (err instanceof StripeError ? err.code : `uncoded: ${(err as Error).message}`),
    );
}

describe('a read of an OST its PG moved off', () => {
  const base = cluster();
  const { pool, pg, left, joined, away, back } = aMove(base);
  const ref = (ostId: number, state: ClusterState) => ({
    ostId,
    poolId: pool.id,
    pg,
    mapEpoch: state.map.epoch,
  });

  it('is refused when made with a map from before the move, served with one from the move on', async () => {
    const view = new MapView();
    view.apply(wire(base));
    view.apply(wire(away));
    expect(await readAnswer(view, ref(left, base))).toBe('MAP_STALE');
    // The old holder, read by a reader that knows the PG moved (where data not yet moved is).
    expect(await readAnswer(view, ref(left, away))).toBe('served');
    view.apply(wire(back));
    // The member placed meanwhile left again: a reader still on the map between is refused.
    expect(await readAnswer(view, ref(joined, away))).toBe('MAP_STALE');
    expect(await readAnswer(view, ref(left, away))).toBe('served');
  });

  it('is refused after a gap in the maps applied: the OSS cannot know when the PG left', async () => {
    const view = new MapView();
    view.apply(wire(base));
    // Stopped while the PG moved off and back: the map between is never applied.
    view.apply(wire(back));
    expect(await readAnswer(view, ref(joined, away))).toBe('MAP_STALE');
    // Placed now: served to any map.
    expect(await readAnswer(view, ref(left, away))).toBe('served');
  });

  it('lets writes and reads made with the current map through', async () => {
    const view = new MapView();
    view.apply(wire(base));
    view.apply(wire(back));
    expect(await readAnswer(view, ref(joined, back))).toBe('served');
  });
});
