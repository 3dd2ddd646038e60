// The MDS's pure cores without a process: path rules, the failure detector as
// a script of (state, now) -> actions, PG states, the objects a removed file
// leaves behind, and how hard the destroy worker may run.
import { describe, expect, it } from 'vitest';
import { parseLayout } from '../../layout/index.js';
import { detectFailures, detectorStallMs, type OstLiveness } from '../../mds/cluster/detector.js';
import { addPool, initialState, registerOss } from '../../mds/cluster/state.js';
import { objectsOf } from '../../mds/destroy/objects.js';
import {
  DESTROY_BUSY_PASS_GAP_MS,
  DESTROY_BUSY_RECORDS_PER_PASS_MAX,
  DESTROY_QUIET_MS,
  DESTROY_RECORDS_PER_PASS_MAX,
  planPass,
} from '../../mds/destroy/pace.js';
import { recordOf } from '../../mds/layout.js';
import { parsePath } from '../../mds/paths.js';
import { pgStateOf, summarizePgs } from '../../mds/pgstate.js';
import { placePg, setOstState } from '../../placement/index.js';
import { codeOf } from '../helpers/errors.js';

describe('paths', () => {
  it('accepts absolute paths and rejects the rest with a code', async () => {
    expect(parsePath('/')).toEqual([]);
    expect(parsePath('/a/b c/é')).toEqual(['a', 'b c', 'é']);
    for (const bad of ['/a/', '/a\0b', 'relative', '', '//a', '/a/../b', '/./a', '/..', 'a/b', ' /a'])
      expect(await codeOf(() => parsePath(bad)), JSON.stringify(bad)).toBe('NS_INVALID_NAME');
    expect(await codeOf(() => parsePath(42))).toBe('NS_INVALID_NAME');
    expect(await codeOf(() => parsePath(`/${'x'.repeat(255)}`))).toBe('OK');
    expect(await codeOf(() => parsePath(`/${'x'.repeat(256)}`))).toBe('NS_NAME_TOO_LONG');
  });
});

describe('failure detector', () => {
  const timers = { heartbeatTimeoutMs: 1_500, outGraceMs: 60_000 };
  const ost = (over: Partial<OstLiveness>): OstLiveness => ({
    id: 0,
    up: true,
    in: true,
    lastSeenMs: 0,
    downSinceMs: 0,
    ...over,
  });
  it('marks down after the timeout, out after the grace, and nothing early', () => {
    // t=1500: exactly at the timeout, still up.
    expect(detectFailures([ost({})], 1_500, timers)).toEqual({ markDown: [], markOut: [] });
    // t=1501: past it, down.
    expect(detectFailures([ost({})], 1_501, timers)).toEqual({ markDown: [0], markOut: [] });
    // Down since t=2000: out only after 60 s more.
    const down = ost({ up: false, downSinceMs: 2_000 });
    expect(detectFailures([down], 62_000, timers)).toEqual({ markDown: [], markOut: [] });
    expect(detectFailures([down], 62_001, timers)).toEqual({ markDown: [], markOut: [0] });
    // Already out: nothing more to do.
    expect(detectFailures([ost({ up: false, in: false })], 1e9, timers)).toEqual({
      markDown: [],
      markOut: [],
    });
  });
});

describe('failure detector stalls', () => {
  it('credits the time the detector did not run beyond one tick, only past twice the tick', () => {
    expect(detectorStallMs(undefined, 5_000, 100)).toBe(0);
    expect(detectorStallMs(1_000, 1_100, 100)).toBe(0);
    expect(detectorStallMs(1_000, 1_200, 100)).toBe(0);
    expect(detectorStallMs(1_000, 1_201, 100)).toBe(101);
    expect(detectorStallMs(1_000, 4_000, 100)).toBe(2_900);
  });
});

function threeHosts() {
  let state = initialState();
  for (let h = 0; h < 3; h++) {
    const req = {
      ossId: `oss${h}`,
      host: `h${h}`,
      rack: 'r0',
      datacenter: '',
      grpcAddress: `127.0.0.1:${h + 1}`,
      bulkAddress: '',
      adminAddress: '',
      osts: [
        { name: 'a', totalBytes: 2 ** 40, usedBytes: 0 },
        { name: 'b', totalBytes: 0, usedBytes: 0 },
      ],
    };
    state = registerOss(state, req).state;
  }
  return addPool(state, { kind: 'replicated', size: 3, failureDomain: 'host' }, 32);
}

describe('cluster state and PG states', () => {
  it('bumps the epoch once per change and gives stable ids', () => {
    const state = threeHosts();
    expect(state.map.epoch).toBe(5); // initial 1, three registrations, one pool
    expect(state.map.osts.map((o) => o.id)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(state.pools[0]).toMatchObject({ id: 1, name: 'rep-3-host', minSize: 2 });
  });

  it('keeps a known OST weight when it registers again with a capacity that drifted, not when it grew', () => {
    const first = threeHosts();
    const again = (totalBytes: number) =>
      registerOss(first, {
        ossId: 'oss0',
        host: 'h0',
        rack: 'r0',
        datacenter: '',
        grpcAddress: '127.0.0.1:1',
        bulkAddress: '',
        adminAddress: '',
        osts: [
          { name: 'a', totalBytes, usedBytes: 0 },
          { name: 'b', totalBytes: 0, usedBytes: 0 },
        ],
      }).state;
    const weightOf = (state: ReturnType<typeof threeHosts>) => state.map.osts.find((o) => o.id === 0)?.weight;
    expect(weightOf(first)).toBe(1);
    // Free space on a shared filesystem moved by a tenth: the placement must not move with it.
    const drifted = again(2 ** 40 * 0.9);
    expect(weightOf(drifted)).toBe(1);
    expect(drifted.map.osts.map((o) => o.weight)).toEqual(first.map.osts.map((o) => o.weight));
    // A disk twice the size: weight follows it.
    expect(weightOf(again(2 ** 41))).toBe(2);
    expect(weightOf(again(2 ** 40 * 0.5))).toBe(0.5);
  });

  it('counts clean, degraded and undersized PGs', () => {
    const state = threeHosts();
    expect(summarizePgs(state).byState).toEqual({ clean: 32, degraded: 0, undersized: 0, incomplete: 0 });
    const pool = state.pools[0]!;
    const member = placePg(state.map, pool, 0).osts[0]!;
    const downMap = setOstState(state.map, member, { up: false });
    expect(pgStateOf(downMap, pool, placePg(downMap, pool, 0))).toBe('degraded');
    // Both OSTs of one host out: only two hosts remain for three copies.
    let outMap = setOstState(state.map, 0, { in: false });
    outMap = setOstState(outMap, 1, { in: false });
    const summary = summarizePgs({ ...state, map: outMap });
    expect(summary.byState.undersized).toBe(32);
    expect(summary.nonClean[0]?.osts.length).toBe(2);
  });

  it('lists every object of a removed file on the OSTs that hold it', () => {
    const state = threeHosts();
    const layout = recordOf(parseLayout('replicated:3:host:2'), 1);
    const targets = objectsOf({ ino: 42, layout, queuedAtMs: 0 }, [state]);
    expect(targets).toHaveLength(6); // 2 objects x 3 copies
    expect(new Set(targets.map((t) => t.objectId))).toEqual(new Set(['42.0', '42.1']));
  });
});

describe('destroy pacing', () => {
  // (now, last mutation, last pass start) -> how long to wait and how many records to take.
  it('drains at full budget when the namespace is quiet and yields while it is busy', () => {
    const quietFor = DESTROY_QUIET_MS;
    // No mutation yet, or the last one DESTROY_QUIET_MS ago: at once, full budget.
    expect(planPass(1_000, Number.NEGATIVE_INFINITY, 990)).toEqual({
      waitMs: 0,
      recordsMax: DESTROY_RECORDS_PER_PASS_MAX,
    });
    expect(planPass(10_000, 10_000 - quietFor, 9_999)).toEqual({
      waitMs: 0,
      recordsMax: DESTROY_RECORDS_PER_PASS_MAX,
    });
    // A mutation just now, a pass 100 ms ago: wait out the gap, then a small budget.
    expect(planPass(10_000, 10_000, 9_900)).toEqual({
      waitMs: DESTROY_BUSY_PASS_GAP_MS - 100,
      recordsMax: DESTROY_BUSY_RECORDS_PER_PASS_MAX,
    });
    // Busy, but the last pass is older than the gap: now, small budget (progress is never starved).
    expect(planPass(10_000, 9_999, 10_000 - DESTROY_BUSY_PASS_GAP_MS)).toEqual({
      waitMs: 0,
      recordsMax: DESTROY_BUSY_RECORDS_PER_PASS_MAX,
    });
    expect(DESTROY_BUSY_RECORDS_PER_PASS_MAX).toBeLessThan(DESTROY_RECORDS_PER_PASS_MAX);
    expect(DESTROY_BUSY_RECORDS_PER_PASS_MAX).toBeGreaterThan(0);
  });
});
