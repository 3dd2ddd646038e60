// How a raid0/replicated read decides between "the data moved", "the map is
// old" and "a hole" while a PG moves. Under test is ObjectIo's decision logic;
// the OSSs and the MDS are stand-ins that answer from tables (what each OST
// holds, where the MDS says a PG's data is), so each race happens every time:
// - the placed copies have nothing and the MDS answers for a newer map: the
//   read refreshes its map and finds the data (it used to read zeros);
// - the MDS cannot be asked: the read fails, retryably, and never reads zeros;
// - the only copy is a prefix still being filled: the old holder's whole copy
//   is read, not the prefix padded with zeros;
// - nothing anywhere, the MDS saying the PG is clean at the read's map: a
//   hole, which reads as zeros;
// - an ec chunk still being filled (shorter than the range): rebuilt from k
//   others, never padded with zeros.
import { describe, expect, it } from 'vitest';
import { BlockPool } from '../../client/block-pool.js';
import { ClientCounters } from '../../client/counters.js';
import { encodeParity } from '../../client/ec.js';
import type { FileLayout } from '../../client/layout.js';
import { clientLimits } from '../../client/limits.js';
import { locateEcChunks, locateObject } from '../../client/locate.js';
import type { MapView, OstEndpoint } from '../../client/map.js';
import type { MdsClient, PgHolders } from '../../client/mds-client.js';
import { ObjectIo } from '../../client/object-io.js';
import type { OssPool } from '../../client/oss-pool.js';
import { OstHealth } from '../../client/ost-health.js';
import { StripeError } from '../../common/errors.js';
import { seededRandom } from '../../common/random.js';
import { buildTopology, type ClusterMap, type Pool, setOstWeight } from '../../placement/index.js';
import type { ObjectRef } from '../../proto/index.js';

const POOL: Pool = {
  id: 1,
  name: 'rep2',
  pgCount: 64,
  rule: { kind: 'replicated', size: 2, failureDomain: 'host' },
};
const EC_POOL: Pool = {
  id: 2,
  name: 'ec42',
  pgCount: 64,
  rule: { kind: 'erasure', k: 4, m: 2, failureDomain: 'host' },
};
const FILE: FileLayout = {
  layout: { pattern: 'replicated', stripeSize: 1 << 20, stripeCount: 1, replicas: 2, failureDomain: 'host' },
  poolId: POOL.id,
};
const INODE = 7;
const LENGTH = 64 * 1024;

function viewOf(map: ClusterMap): MapView {
  const osts = new Map<number, OstEndpoint>();
  for (const o of map.osts)
    osts.set(o.id, {
      id: o.id,
      up: true,
      in: true,
      grpcAddress: `127.0.0.1:${9000 + o.id}`,
      bulkAddress: `127.0.0.1:${9100 + o.id}`,
      host: o.host ?? '',
    });
  return {
    epoch: map.epoch,
    map,
    pools: new Map([
      [POOL.id, POOL],
      [EC_POOL.id, EC_POOL],
    ]),
    poolMinSizes: new Map([
      [POOL.id, 1],
      [EC_POOL.id, 5],
    ]),
    osts,
  };
}

/** Two maps: object 0 of the file is placed on different OSTs in the newer one. */
function twoMaps(): { old: MapView; next: MapView } {
  const base = buildTopology({ racks: 2, hostsPerRack: 3, ostsPerHost: 1 });
  const old = viewOf(base);
  const oldOsts = locateObject(old, FILE, INODE, 0).osts;
  const next = viewOf(setOstWeight(base, oldOsts[0] as number, 0));
  const nextOsts = locateObject(next, FILE, INODE, 0).osts;
  expect(nextOsts).not.toEqual(oldOsts);
  return { old, next };
}

/** Stand-ins for the OSSs (what each OST holds) and the MDS (its map and its PG holders answer). */
class World {
  readonly disks = new Map<string, Buffer>();
  view: MapView;
  mdsView: MapView;
  holders: (view: MapView) => PgHolders | Error;
  reads: string[] = [];

  constructor(view: MapView) {
    this.view = view;
    this.mdsView = view;
    this.holders = (v) => ({ holders: [], clean: true, mapEpoch: v.epoch });
  }

  store(ost: number, data: Buffer, objectId = `${INODE}.0`): void {
    this.disks.set(`${ost}/${objectId}`, data);
  }

  io(): { io: ObjectIo; counters: ClientCounters } {
    const counters = new ClientCounters(10);
    const limits = clientLimits({ backoffMsBase: 1, backoffMsMax: 2 });
    const pool = {
      readRange: async (_e: OstEndpoint, ref: ObjectRef, offset: number, length: number) => {
        this.reads.push(`${ref.ostId}@${ref.mapEpoch}`);
        const data = this.disks.get(`${ref.ostId}/${ref.objectId}`);
        if (!data) throw new StripeError('OBJ_NOT_FOUND', `no ${ref.objectId} on OST ${ref.ostId}`);
        return { sent: true, data: Buffer.from(data.subarray(offset, offset + length)) };
      },
    } as unknown as OssPool;
    const world = this;
    const mds = {
      get mapView() {
        return world.view;
      },
      refreshMap: async () => {
        world.view = world.mdsView;
        return world.view;
      },
      pgHolders: async () => {
        const answer = world.holders(world.mdsView);
        if (answer instanceof Error) throw answer;
        return answer;
      },
      reportBadChunk: async () => undefined,
    } as unknown as MdsClient;
    const io = new ObjectIo({
      mds,
      limits,
      random: seededRandom(1),
      counters,
      pool,
      health: new OstHealth(5_000),
      blocks: new BlockPool(LENGTH, 4),
    });
    return { io, counters };
  }
}

const DATA = Buffer.alloc(LENGTH, 0x5a);

describe('reads of a moving object', () => {
  it('an MDS answer for a newer map refreshes the map and finds the data, not zeros', async () => {
    const { old, next } = twoMaps();
    const world = new World(old);
    // The client still has the old map; the data already sits where the new map places it,
    // the old copies were purged and the PG is clean at the newer epoch.
    world.mdsView = next;
    for (const ost of locateObject(next, FILE, INODE, 0).osts) world.store(ost, DATA);
    for (const ost of locateObject(old, FILE, INODE, 0).osts) world.disks.delete(`${ost}/${INODE}.0`);
    const { io, counters } = world.io();
    const read = await io.readReplicated(FILE, INODE, 0, 0, LENGTH);
    expect(read.equals(DATA)).toBe(true);
    expect(world.view.epoch).toBe(next.epoch);
    expect(counters.retries).toBe(1);
  });

  it('an MDS that cannot be asked fails the read (retryably), never zeros', async () => {
    const { old } = twoMaps();
    const world = new World(old);
    world.holders = () => new StripeError('REQ_UNAVAILABLE', 'MDS unreachable');
    const { io } = world.io();
    await expect(io.readReplicated(FILE, INODE, 0, 0, LENGTH)).rejects.toMatchObject({
      code: 'REQ_UNAVAILABLE',
      message: expect.stringContaining('cannot tell where PG'),
    });
  });

  it('a copy still being filled is passed over for the old holder that has it all', async () => {
    const { old, next } = twoMaps();
    const world = new World(next);
    const placed = locateObject(next, FILE, INODE, 0).osts;
    const holders = locateObject(old, FILE, INODE, 0).osts;
    // Every placed copy that is not also an old holder has only the first 4 KiB so far.
    for (const ost of placed) world.store(ost, holders.includes(ost) ? DATA : DATA.subarray(0, 4096));
    for (const ost of holders) world.store(ost, DATA);
    world.holders = (v) => ({ holders, clean: false, mapEpoch: v.epoch });
    const { io } = world.io();
    expect((await io.readReplicated(FILE, INODE, 0, 0, LENGTH)).equals(DATA)).toBe(true);
    // The only placed copy short too (a raid0-like single copy, or both copies new).
    for (const ost of placed) world.store(ost, DATA.subarray(0, 4096));
    const gone = holders.filter((ost) => !placed.includes(ost));
    expect(gone.length).toBeGreaterThan(0);
    expect((await io.readReplicated(FILE, INODE, 0, 0, LENGTH)).equals(DATA)).toBe(true);
  });

  it('nothing anywhere and the PG clean at the read map: a hole, read as zeros', async () => {
    const { old } = twoMaps();
    const world = new World(old);
    const { io } = world.io();
    const read = await io.readReplicated(FILE, INODE, 0, 0, LENGTH);
    expect(read.equals(Buffer.alloc(LENGTH))).toBe(true);
    // Each placed copy was asked twice (the second look before settling on a hole).
    expect(world.reads.length).toBe(2 * locateObject(old, FILE, INODE, 0).osts.length);
  });

  it('an ec chunk still being filled is rebuilt from k others, not padded with zeros', async () => {
    const ecFile: FileLayout = {
      layout: { pattern: 'ec', stripeSize: LENGTH, k: 4, m: 2, failureDomain: 'host' },
      poolId: EC_POOL.id,
    };
    const { old } = twoMaps();
    const world = new World(old);
    const stripe = Buffer.alloc(6 * LENGTH);
    for (let i = 0; i < 4 * LENGTH; i++) stripe[i] = (i * 7919) >>> 5;
    encodeParity(stripe, 4, 2);
    const targets = locateEcChunks(old, ecFile, INODE);
    for (const [j, t] of targets.entries())
      world.store(t.osts[0] as number, stripe.subarray(j * LENGTH, (j + 1) * LENGTH), t.objectId);
    // Chunk 1's copy has its first 4 KiB so far.
    world.store(targets[1]?.osts[0] as number, stripe.subarray(LENGTH, LENGTH + 4096), targets[1]?.objectId);
    const { io, counters } = world.io();
    const read = await io.readEc(ecFile, INODE, 1, 0, LENGTH);
    expect(read.equals(stripe.subarray(LENGTH, 2 * LENGTH))).toBe(true);
    expect(counters.degradedReads).toBe(1);
  });
});
