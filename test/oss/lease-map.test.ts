// The OSS's side of the write fence (issue 23), on an OssCore with a real OST
// and MapView and the MDS played by the test (as oss/mds-link.ts plays it):
// - a lease given by an answer computed at a map this OSS has not applied yet
//   serves no read until that map is here, and the stale-map rule then runs
//   on it: a reader still on the map from before the PG left this OST is
//   refused (MAP_STALE). Before, the rule ran first, on the older map, and the
//   read was served the bytes from before the writes made with the newer map;
// - a write made with a map the MDS does not yet let writes use is held until
//   the MDS says it may (the map stream's writable epoch), or refused once the
//   lease and a margin have passed (REQ_UNAVAILABLE).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import { silentLogger } from '../../common/logging.js';
import { systemClock } from '../../common/random.js';
import { adminReweight, type ClusterState } from '../../mds/cluster/state.js';
import { OstFaults } from '../../oss/faults.js';
import { MapView } from '../../oss/map-view.js';
import { OssMetrics } from '../../oss/metrics.js';
import { OssCore } from '../../oss/ops.js';
import { Ost } from '../../oss/store/ost.js';
import { placePg } from '../../placement/index.js';
import type { ClusterMap__Output as WireMap } from '../../proto/index.js';
import { mapToWire } from '../../wire/index.js';
import { pureCluster } from '../helpers/cluster-state.js';
import { codeOf } from '../helpers/errors.js';
import { readWhole, tempDir } from './helpers.js';

const wire = (state: ClusterState): WireMap => mapToWire(state.map, state.pools) as unknown as WireMap;

/** A PG placed on `ostId` under `base` and not once `ostId` is reweighted to 0. */
function aMove(base: ClusterState) {
  const pool = base.pools[0]!;
  for (const ost of base.map.osts) {
    const away = adminReweight(base, ost.id, 0);
    for (let pg = 0; pg < pool.pgCount; pg++)
      if (placePg(base.map, pool, pg).osts.includes(ost.id)) return { pool, pg, ostId: ost.id, away };
  }
  throw new Error('no PG moves');
}

const base = pureCluster(
  4,
  [{ rule: { kind: 'replicated', size: 3, failureDomain: 'host' }, pgCount: 16 }],
  (h) => Math.floor(h / 2),
);
const { pool, pg, ostId, away } = aMove(base);
const DATA = Buffer.from('the bytes from before the PG left');
const LEASE_MS = 60_000;
const tmp = tempDir('stripefs-lease-map-');
let ost: Ost;
let core: OssCore;
let view: MapView;
const ref = (mapEpoch: number) => ({ ostId, objectId: '7.0', poolId: pool.id, pg, mapEpoch });

function read(mapEpoch: number): Promise<Buffer> {
  return readWhole(core, ref(mapEpoch), DATA.length);
}

function write(mapEpoch: number): Promise<unknown> {
  async function* body() {
    yield { data: DATA };
  }
  return core.write(ref(mapEpoch), 0, DATA.length, crc32c(DATA), false, body());
}

beforeAll(async () => {
  ost = await Ost.open({ dir: tmp.dir, name: `ost-${ostId}`, capacityBytes: 1 << 30, fsync: false });
  await ost.assignId(ostId);
  view = new MapView();
  view.apply(wire(base));
  core = new OssCore(
    [{ ost, faults: new OstFaults(1) }],
    view,
    new OssMetrics(() => [], false),
    silentLogger(),
    systemClock,
  );
  core.applyStaleCopies([], {
    sentAtMs: core.monotonicMs(),
    readLeaseMs: LEASE_MS,
    mapEpoch: base.map.epoch,
  });
  core.writeFence.learn(base.map.epoch);
  await write(base.map.epoch);
});
afterAll(async () => {
  await ost?.close();
  tmp.remove();
});

describe('a lease given at a map the OSS has not applied', () => {
  it('serves no read before that map is here, then refuses a reader from before the PG left', async () => {
    expect((await read(base.map.epoch)).equals(DATA)).toBe(true);
    // A heartbeat answer computed at the newer map, come before the map stream's message.
    core.applyStaleCopies([], {
      sentAtMs: core.monotonicMs(),
      readLeaseMs: LEASE_MS,
      mapEpoch: away.map.epoch,
    });
    let fetched = 0;
    core.fetchMap = async () => {
      fetched++;
      view.apply(wire(away));
    };
    expect(await codeOf(read(base.map.epoch))).toBe('MAP_STALE');
    expect(fetched).toBe(1);
    // A reader that knows the PG moved may still read the old holder (where data not yet moved is).
    expect((await read(away.map.epoch)).equals(DATA)).toBe(true);
  });

  it('refuses the read when the map cannot be fetched', async () => {
    core.applyStaleCopies([], {
      sentAtMs: core.monotonicMs(),
      readLeaseMs: LEASE_MS,
      mapEpoch: away.map.epoch + 1,
    });
    core.fetchMap = async () => undefined;
    expect(await codeOf(read(away.map.epoch))).toBe('REQ_UNAVAILABLE');
  });
});

describe('a write made with a map not yet writable', () => {
  it('is held until the MDS lets that epoch be written', async () => {
    core.fetchMap = async () => undefined;
    let done = false;
    const held = write(away.map.epoch).then(() => {
      done = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    core.writeFence.learn(away.map.epoch);
    await held;
    expect(core.writeFence.held).toBe(1);
    expect(await core.metrics.registry.getSingleMetricAsString('stripefs_oss_write_fence_held')).toMatch(
      /^stripefs_oss_write_fence_held(\{[^}]*\})? 1$/m,
    );
  });

  it('is refused once the lease and the margin have passed without a word', async () => {
    core.writeFence.leaseMs = 0;
    let asked = 0;
    core.fetchMap = async () => {
      asked++;
    };
    expect(await codeOf(write(away.map.epoch + 5))).toBe('REQ_UNAVAILABLE');
    expect(asked).toBeGreaterThan(0);
    expect(core.writeFence.refused).toBe(1);
    expect(await core.metrics.registry.getSingleMetricAsString('stripefs_oss_write_fence_refused')).toMatch(
      /^stripefs_oss_write_fence_refused(\{[^}]*\})? 1$/m,
    );
  });
});
