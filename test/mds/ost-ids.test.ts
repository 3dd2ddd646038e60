// Stable OST ids (oss.ostIds) and removed OSTs, on the pure cluster state: configured ids are
// the same whatever order the OSSs register in; an id another OST holds, or a known OST asking
// for another id, is refused with MAP_OST_ID_CONFLICT; an OST removed from the map cannot come
// back with its old objects (MAP_OST_REMOVED), but an empty folder registers as a new OST.
import { describe, expect, it } from 'vitest';
import {
  type ClusterState,
  initialState,
  type Registration,
  registerOss,
  removeOsts,
} from '../../mds/cluster/state.js';
import { parseOstIds } from '../../oss/ost-ids.js';
import { codeOf } from '../helpers/errors.js';

function registration(host: number, ids?: number[], usedBytes = 0): Registration {
  return {
    ossId: `oss-host${host}`,
    host: `host${host}`,
    rack: `rack${host >> 1}`,
    datacenter: 'dc0',
    grpcAddress: `oss-host${host}:7073`,
    bulkAddress: `oss-host${host}:7074`,
    adminAddress: `oss-host${host}:7075`,
    osts: ['ost0', 'ost1'].map((name, i) => ({
      name,
      totalBytes: 2 ** 40,
      usedBytes,
      ...(ids ? { id: ids[i] } : {}),
    })),
  };
}

function idsByHost(state: ClusterState): Record<string, number[]> {
  return Object.fromEntries(state.oss.map((o) => [o.host, o.osts.map((x) => x.id)]));
}

describe('configured OST ids', () => {
  const configured = (host: number) => registration(host, [2 * host, 2 * host + 1]);

  it('are the same whatever order the OSSs register in', () => {
    let forward = initialState();
    for (const host of [0, 1, 2]) forward = registerOss(forward, configured(host)).state;
    let backward = initialState();
    for (const host of [2, 1, 0]) backward = registerOss(backward, configured(host)).state;
    expect(idsByHost(forward)).toEqual({ host0: [0, 1], host1: [2, 3], host2: [4, 5] });
    expect(idsByHost(backward)).toEqual(idsByHost(forward));
    // Without configuration the first to register gets ost0.
    let auto = initialState();
    for (const host of [2, 1, 0]) auto = registerOss(auto, registration(host)).state;
    expect(idsByHost(auto)).toEqual({ host2: [0, 1], host1: [2, 3], host0: [4, 5] });
    // An OST without a configured id never takes one already given.
    const mixed = registerOss(registerOss(initialState(), configured(1)).state, registration(0)).state;
    expect(idsByHost(mixed)).toEqual({ host1: [2, 3], host0: [4, 5] });
  });

  it('refuses an id another OST holds, or a known OST asking for another id', async () => {
    const state = registerOss(initialState(), configured(0)).state;
    expect(await codeOf(() => registerOss(state, registration(1, [1, 9])))).toBe('MAP_OST_ID_CONFLICT');
    expect(await codeOf(() => registerOss(state, registration(0, [6, 7])))).toBe('MAP_OST_ID_CONFLICT');
    expect(idsByHost(registerOss(state, configured(0)).state)).toEqual({ host0: [0, 1] });
  });

  it('parses oss.ostIds with a coded error for a wrong count, a bad id or a duplicate', async () => {
    expect(parseOstIds('', 2)).toBeUndefined();
    expect(parseOstIds(' 4, 5 ', 2)).toEqual([4, 5]);
    for (const bad of ['4', '4,x', '4,4', '4,-1', '4,99999999999'])
      expect(await codeOf(() => parseOstIds(bad, 2)), bad).toBe('CONFIG_INVALID');
  });
});

describe('removed OSTs', () => {
  let state = initialState();
  for (const host of [0, 1, 2])
    state = registerOss(state, registration(host, [2 * host, 2 * host + 1])).state;
  const removed = removeOsts(state, [2, 3]);

  it('leave the map, their OSS record and any empty bucket, in one epoch', () => {
    expect(removed.map.epoch).toBe(state.map.epoch + 1);
    expect(removed.map.osts.map((o) => o.id)).toEqual([0, 1, 4, 5]);
    expect(removed.oss.map((o) => o.ossId)).toEqual(['oss-host0', 'oss-host2']);
    expect(removed.map.buckets.map((b) => b.name)).not.toContain('host1');
    expect(removed.removedOsts).toEqual([
      { ossId: 'oss-host1', name: 'ost0', id: 2 },
      { ossId: 'oss-host1', name: 'ost1', id: 3 },
    ]);
  });

  it('cannot register again with their old objects, but can from an empty folder', async () => {
    expect(await codeOf(() => registerOss(removed, registration(1, undefined, 4096)))).toBe(
      'MAP_OST_REMOVED',
    );
    const fresh = registerOss(removed, registration(1));
    expect(fresh.state.oss.find((o) => o.ossId === 'oss-host1')?.osts.map((o) => o.id)).toEqual([6, 7]);
    expect(fresh.state.removedOsts).toEqual([]);
  });
});
