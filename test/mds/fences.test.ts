// The MDS's write fence (mds/cluster/fences.ts), pure: an epoch that takes a
// PG from an OST is let to writes once every OSS it waits for has said (a
// heartbeat) that it applied that epoch, or once the lease of the last call the
// MDS answered from it has lapsed; the writable epoch never passes an epoch
// still fenced. Which OSSs an epoch waits for comes from the PGs it moves
// (placement/pg-moves.ts).
import { describe, expect, it } from 'vitest';
import { MapFences } from '../../mds/cluster/fences.js';
import { adminReweight, adminSetIn } from '../../mds/cluster/state.js';
import { ostsLeavingPgs } from '../../placement/index.js';
import { pureCluster } from '../helpers/cluster-state.js';

const LEASE_MS = 1_000;

describe('MapFences', () => {
  it('holds an epoch until its OSS applied it', () => {
    const f = new MapFences();
    f.heard('oss0', 0, 4);
    f.heard('oss1', 0, 4);
    f.open(5, ['oss0'], 100, LEASE_MS);
    expect(f.writableEpoch(5)).toBe(4);
    expect(f.status(5).pending).toEqual([{ epoch: 5, oss: ['oss0'] }]);
    f.heard('oss1', 200, 5); // another OSS's word does not count
    expect(f.writableEpoch(5)).toBe(4);
    f.heard('oss0', 300, 5);
    expect(f.writableEpoch(5)).toBe(5);
    expect(f.status(5).pending).toEqual([]);
  });

  it('lifts an OSS that says nothing once its lease lapsed, counted from when it was last heard', () => {
    const f = new MapFences();
    f.heard('oss0', 0, 4);
    f.open(5, ['oss0'], 600, LEASE_MS);
    f.expire(999);
    expect(f.writableEpoch(5)).toBe(4);
    f.expire(1_000);
    expect(f.writableEpoch(5)).toBe(5);
  });

  it('waits a whole lease for an OSS not heard since the MDS started, and none for one long silent', () => {
    const f = new MapFences();
    f.open(5, ['unheard'], 10_000, LEASE_MS);
    f.expire(10_999);
    expect(f.writableEpoch(5)).toBe(4);
    f.expire(11_000);
    expect(f.writableEpoch(5)).toBe(5);
    f.heard('silent', 0, 3);
    f.open(6, ['silent'], 20_000, LEASE_MS);
    expect(f.writableEpoch(6)).toBe(6);
  });

  it('never lets an epoch past one still fenced', () => {
    const f = new MapFences();
    f.heard('oss0', 0, 4);
    f.heard('oss1', 0, 4);
    f.open(5, ['oss0'], 100, LEASE_MS);
    f.open(6, ['oss1'], 100, LEASE_MS);
    f.heard('oss1', 200, 6);
    expect(f.writableEpoch(6)).toBe(4);
    // A heartbeat with epoch 6 lifts every fence up to 6 for that OSS.
    f.heard('oss0', 300, 6);
    expect(f.writableEpoch(6)).toBe(6);
  });

  it('forgets a removed OSS', () => {
    const f = new MapFences();
    f.heard('gone', 0, 1);
    f.open(2, ['gone'], 100, LEASE_MS);
    f.forget('gone');
    expect(f.writableEpoch(2)).toBe(2);
  });
});

describe('the OSTs a map change takes PGs from', () => {
  const base = pureCluster(
    4,
    [{ rule: { kind: 'replicated', size: 3, failureDomain: 'host' }, pgCount: 32 }],
    (h) => Math.floor(h / 2),
  );
  const leaving = (next: typeof base) => ostsLeavingPgs(base.map, base.pools, next.map, next.pools);

  it('are the OST marked out or reweighted to 0; on its return, those that held its PGs meanwhile', () => {
    const ost = base.map.osts[0]!.id;
    expect([...leaving(adminSetIn(base, ost, false))]).toEqual([ost]);
    expect([...leaving(adminReweight(base, ost, 0))]).toEqual([ost]);
    expect(leaving(base).size).toBe(0);
    const out = adminSetIn(base, ost, false);
    const back = ostsLeavingPgs(out.map, out.pools, adminSetIn(out, ost, true).map, out.pools);
    expect(back.size).toBeGreaterThan(0);
    expect(back.has(ost)).toBe(false);
  });
});
