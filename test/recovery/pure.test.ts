// The pure cores of recovery: holder records across map changes, the
// planner's choices and throttle-free ordering, completion, PG states and the
// slow-OST detector. No IO, no clock.
import { describe, expect, it } from 'vitest';
import type { ClusterService } from '../../mds/cluster/service.js';
import {
  addPool,
  adminSetIn,
  type ClusterState,
  initialState,
  registerOss,
} from '../../mds/cluster/state.js';
import { pgStateWithHolders } from '../../mds/pgstate.js';
import { applyDone, holderChanges, pgKey, targetsOf } from '../../mds/recovery/holders.js';
import { planRecovery } from '../../mds/recovery/planner.js';
import { Repairs } from '../../mds/recovery/repairs.js';
import { detectSlowOsts, SLOW_SAMPLES_MIN } from '../../mds/recovery/slow-osts.js';
import { objectToPg, placePg } from '../../placement/index.js';

function cluster(hosts: number): ClusterState {
  let state = initialState();
  for (let h = 0; h < hosts; h++) {
    state = registerOss(state, {
      ossId: `oss${h}`,
      host: `h${h}`,
      rack: `r${h % 3}`,
      datacenter: '',
      grpcAddress: `127.0.0.1:${1000 + h}`,
      bulkAddress: `127.0.0.1:${2000 + h}`,
      adminAddress: '',
      osts: [
        { name: 'ost0', totalBytes: 2 ** 40, usedBytes: 0 },
        { name: 'ost1', totalBytes: 2 ** 40, usedBytes: 0 },
      ],
    }).state;
  }
  state = addPool(state, { kind: 'replicated', size: 2, failureDomain: 'host' }, 32);
  return addPool(state, { kind: 'erasure', k: 2, m: 1, failureDomain: 'host' }, 32);
}

function holdersAfter(
  prev: ClusterState,
  next: ClusterState,
  table = new Map<string, number[]>(),
): Map<string, number[]> {
  const changes = holderChanges(prev, next, table);
  for (const [key, holders] of changes.set) table.set(key, holders);
  for (const key of changes.del) table.delete(key);
  return table;
}

describe('holders and the planner', () => {
  const base = cluster(6);
  const out = adminSetIn(base, 0, false);
  const table = holdersAfter(base, out);

  it('a map change records the old placement of exactly the PGs that moved', () => {
    for (const pool of out.pools) {
      for (let pg = 0; pg < pool.pgCount; pg++) {
        const was = placePg(base.map, pool, pg).osts;
        const record = table.get(pgKey(pool.id, pg));
        expect(record !== undefined, `pool ${pool.id} pg ${pg}`).toBe(was.includes(0));
        if (record) expect(record).toEqual(was);
      }
    }
    // Back in: every record matches the placement again and is dropped.
    expect(holdersAfter(out, adminSetIn(out, 0, true), new Map(table)).size).toBe(0);
  });

  it('plans at most maxActivePgs PGs, from surviving holders, and completion clears the record', () => {
    const tasks = planRecovery({
      state: out,
      holders: table,
      activePgs: new Set(),
      maxActivePgs: 3,
      paused: false,
      notBeforeMs: new Map(),
      nowMs: 0,
    });
    expect(new Set(tasks.map((t) => pgKey(t.poolId, t.pg))).size).toBe(3);
    for (const task of tasks) {
      // An admin-out OST that is still up is a valid source (a drain), but never the target.
      expect(task.sources.every((s) => s.ostId !== task.target.ostId)).toBe(true);
      expect(task.target.ostId).not.toBe(0);
      expect(task.lost).toBe(true);
      const pool = out.pools.find((p) => p.id === task.poolId)!;
      const placement = placePg(out.map, pool, task.pg).osts;
      const done = applyDone(pool.rule, table.get(pgKey(task.poolId, task.pg))!, placement, task.target);
      expect(done.holders).toBeNull();
      expect(done.stale).toEqual([0]);
    }
    expect(
      planRecovery({
        state: out,
        holders: table,
        activePgs: new Set(),
        maxActivePgs: 3,
        paused: true,
        notBeforeMs: new Map(),
        nowMs: 0,
      }),
    ).toEqual([]);
  });

  it('PG states follow the holders', () => {
    const pool = out.pools[1]!;
    const key = [...table.keys()].find((k) => k.startsWith(`${pool.id}/`))!;
    const pg = Number(key.split('/')[1]);
    const placement = placePg(out.map, pool, pg);
    expect(targetsOf(pool.rule, table.get(key)!, placement.osts).length).toBe(1);
    expect(pgStateWithHolders(out.map, pool, placement, table.get(key), false)).toBe('degraded');
    expect(pgStateWithHolders(out.map, pool, placement, table.get(key), true)).toBe('recovering');
    expect(pgStateWithHolders(out.map, pool, placement, [0, -1, -1], false)).toBe('unfound');
    expect(pgStateWithHolders(out.map, pool, placement, undefined, false)).toBe('clean');
  });
});

describe('slow OST detection', () => {
  const busy = { readSamples: 40, writeSamples: 40 };
  const sample = (ostId: number, readMs: number, errorsInWindow = 0) => ({
    ostId,
    readMs,
    writeMs: 20,
    ...busy,
    errorsInWindow,
  });
  const peers = [1, 2, 3, 4].map((ostId) => sample(ostId, 2));
  const opts = { factor: 3, minMs: 10 };
  it('flags a read outlier, not a uniformly slow cluster or one under the floor', () => {
    expect(detectSlowOsts([...peers, sample(9, 50)], opts).map((v) => v.ostId)).toEqual([9]);
    expect(detectSlowOsts([...peers, sample(9, 8)], opts)).toEqual([]);
    expect(
      detectSlowOsts(
        peers.map((p) => ({ ...p, readMs: 60 })),
        opts,
      ),
    ).toEqual([]);
  });
  it('judges an OST only on enough requests of that kind', () => {
    const few = { ...sample(9, 50), readSamples: SLOW_SAMPLES_MIN - 1 };
    expect(detectSlowOsts([...peers, few], opts)).toEqual([]);
    expect(detectSlowOsts([...peers, { ...few, readSamples: SLOW_SAMPLES_MIN }], opts)).toHaveLength(1);
    // Writes are judged apart: a slow write p50 over too few writes is not a verdict either.
    const fewWrites = { ...sample(9, 2), writeMs: 200, writeSamples: 3 };
    expect(detectSlowOsts([...peers, fewWrites], opts)).toEqual([]);
  });
  it('flags an OST with many errors in the window', () => {
    expect(detectSlowOsts([...peers, sample(9, 2, 25)], opts)[0]?.reason).toMatch(/errors/);
  });
});

describe('repairs', () => {
  it('never gives up a copy that missed writes; gives up a rotten one after its attempts', async () => {
    const state = cluster(6);
    const pool = state.pools[0]!;
    const pg = 3;
    const [ostId] = placePg(state.map, pool, pg).osts as number[];
    let nowMs = 0;
    const started: string[] = [];
    const repairs = new Repairs(
      { state } as unknown as ClusterService,
      async (task) => {
        started.push(task.objectIds[0]!);
        return false; // every attempt fails
      },
      () => false,
      () => undefined,
      () => nowMs,
      async () => undefined,
      async () => undefined,
      { missedWritesPerPgMax: 100, backfillWhole: async () => false, skippedDuringBackfill: () => undefined },
    );
    const objectIds = Array.from({ length: 400 }, (_, i) => `${100 + i}.0`).filter(
      (id) => objectToPg(pool, id) === pg,
    );
    expect(objectIds.length).toBeGreaterThan(1);
    const [skipped, rotten] = objectIds as [string, string];
    expect(
      await repairs.report({
        ostId: ostId!,
        objectId: skipped,
        reason: 'WRITE_SKIPPED',
        poolId: pool.id,
        pg,
      }),
    ).toBe(true);
    expect(
      await repairs.report({ ostId: ostId!, objectId: rotten, reason: 'OBJ_CHECKSUM', poolId: pool.id, pg }),
    ).toBe(true);
    await repairs.announceDue();
    for (let attempt = 0; attempt < 25; attempt++) {
      repairs.startDue(new Map());
      await new Promise((resolve) => setImmediate(resolve));
      nowMs += 60_000;
    }
    expect(started.filter((id) => id === rotten).length).toBe(10);
    expect(started.filter((id) => id === skipped).length).toBe(25);
    expect(repairs.list(10).map((r) => r.objectId)).toEqual([skipped]);
    expect(repairs.repairsAbandoned).toBe(1);
  });
});
