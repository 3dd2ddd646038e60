// The pure cores of recovery: holder records across map changes, the
// planner's choices and throttle-free ordering, completion, PG states and the
// slow-OST detector. No IO, no clock.
import { describe, expect, it } from 'vitest';
import type { ClusterService } from '../../mds/cluster/service.js';
import {
  addPool,
  adminSetIn,
  type ClusterState,
  type PoolRecord,
  setStates,
} from '../../mds/cluster/state.js';
import { pgStateWithHolders } from '../../mds/pgstate.js';
import { applyDone, holderChanges, parsePgKey, pgKey, targetsOf } from '../../mds/recovery/holders.js';
import { planRecovery, type RecoveryTask } from '../../mds/recovery/planner.js';
import { Repairs } from '../../mds/recovery/repairs.js';
import { detectSlowOsts, SLOW_SAMPLES_MIN } from '../../mds/recovery/slow-osts.js';
import { HOLE, objectToPg, placePg } from '../../placement/index.js';
import { pureCluster } from '../helpers/cluster-state.js';
import { codeOf } from '../helpers/errors.js';

function cluster(hosts: number): ClusterState {
  return pureCluster(hosts, [
    { rule: { kind: 'replicated', size: 2, failureDomain: 'host' }, pgCount: 32 },
    { rule: { kind: 'erasure', k: 2, m: 1, failureDomain: 'host' }, pgCount: 32 },
  ]);
}

/**
 * Repairs over `state` that nothing else feeds: `run` carries out a task (default: succeeds at
 * once), `oldHolders` names a moving PG's old holders, `nowMs` is the clock.
 */
function testRepairs(
  state: ClusterState,
  parts: {
    run?: (task: RecoveryTask) => Promise<boolean>;
    oldHolders?: (poolId: number, pg: number) => number[] | undefined;
    nowMs?: () => number;
  } = {},
): Repairs {
  return new Repairs(
    { state } as unknown as ClusterService,
    parts.run ?? (async () => true),
    () => false,
    parts.oldHolders ?? (() => undefined),
    parts.nowMs ?? (() => 0),
    async () => undefined,
    async () => undefined,
    { missedWritesPerPgMax: 100, backfillWhole: async () => false, skippedDuringBackfill: () => undefined },
  );
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
  });

  it('an OST back in before its PGs were filled elsewhere is filled again: it missed their writes meanwhile', () => {
    const back = adminSetIn(out, 0, true);
    const after = holdersAfter(out, back, new Map(table));
    const returning = holderChanges(out, back, new Map(table)).returning;
    let ecMoved = 0;
    for (const pool of back.pools) {
      for (let pg = 0; pg < pool.pgCount; pg++) {
        const now = placePg(back.map, pool, pg).osts;
        const meanwhile = placePg(out.map, pool, pg).osts;
        const moved = table.has(pgKey(pool.id, pg));
        const record = after.get(pgKey(pool.id, pg));
        expect(record !== undefined, `pool ${pool.id} pg ${pg}`).toBe(moved);
        if (!record) continue;
        // Every other holder stays; OST 0 is a member to fill, not a holder.
        expect(record.includes(0)).toBe(false);
        expect(targetsOf(pool.rule, record, now).map((t) => t.ostId)).toEqual([0]);
        if (pool.rule.kind !== 'erasure') continue;
        // ec: OST 0's position is a hole (readers rebuild it from the others), and the member placed
        // there meanwhile (the writes made meanwhile are on it alone) is a source of OST 0's fill
        // only, its first: the fill merges that member's chunks into OST 0's.
        ecMoved++;
        const position = now.indexOf(0);
        expect(record[position]).toBe(HOLE);
        expect(record).not.toContain(meanwhile[position]);
        const fills = returning.filter((r) => r.poolId === pool.id && r.pg === pg);
        expect(fills).toEqual([{ poolId: pool.id, pg, position, from: meanwhile[position], to: 0 }]);
        const plan = (state: ClusterState) =>
          planRecovery({
            state,
            holders: new Map([[pgKey(pool.id, pg), record]]),
            activePgs: new Set(),
            maxActivePgs: 1,
            paused: false,
            notBeforeMs: new Map(),
            nowMs: 0,
            fillSources: () => fills,
          });
        const task = plan(back)[0]!;
        expect(task.sources[0]).toMatchObject({ ostId: meanwhile[position], position });
        // One more holder down: fewer up holders than k, so nothing can rebuild the PG, but OST 0's
        // fill needs no rebuild (it merges that member into OST 0's chunk), so it is still planned.
        const other = record.find((id) => id !== HOLE && id !== meanwhile[position])!;
        const down = setStates(back, [{ ostId: other, to: { up: false } }])!;
        expect(placePg(down.map, pool, pg).osts).toEqual(now);
        const planned = plan(down);
        expect(planned.map((t) => t.target.ostId)).toEqual([0]);
        expect(planned[0]!.sources[0]).toMatchObject({ ostId: meanwhile[position], position });
      }
    }
    expect(ecMoved).toBeGreaterThan(0);
    // Had the moved PGs been filled (their records gone), OST 0 back in is filled from where they moved.
    for (const [key, record] of holdersAfter(out, back, new Map())) {
      const { poolId, pg } = parsePgKey(key);
      expect(record).toEqual(placePg(out.map, out.pools.find((p) => p.id === poolId)!, pg).osts);
    }
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

  it('fills list the PG on a source without copies awaiting a missed write first', () => {
    // An ec 2+1 PG whose chunk 2 is a hole: its member is filled by decoding chunks 0 and 1, and
    // lists the PG's objects on the first source. Chunk 0's OST missed a write in the PG (perhaps an
    // object's creation, which its listing then lacks): chunk 1's OST is listed first.
    const ec = base.pools[1]!;
    const pg = 5;
    const placement = placePg(base.map, ec, pg).osts as number[];
    const plan = (missed: number) =>
      planRecovery({
        state: base,
        holders: new Map([[pgKey(ec.id, pg), [placement[0]!, placement[1]!, -1]]]),
        activePgs: new Set(),
        maxActivePgs: 8,
        paused: false,
        notBeforeMs: new Map(),
        nowMs: 0,
        missedWrites: (ostId, poolId, at) => (ostId === missed && poolId === ec.id && at === pg ? 1 : 0),
      });
    const [task] = plan(placement[0]!);
    expect(task!.target).toEqual({ ostId: placement[2], position: 2 });
    expect(task!.sources.map((s) => s.ostId)).toEqual([placement[1], placement[0]]);
    expect(plan(-1)[0]!.sources.map((s) => s.ostId)).toEqual([placement[0], placement[1]]);
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
    const repairs = testRepairs(state, {
      run: async (task) => {
        started.push(task.objectIds[0]!);
        return false; // every attempt fails
      },
      nowMs: () => nowMs,
    });
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

describe('the sources of a repair', () => {
  it('are neither an old holder of its own position nor a copy of the object that missed a write', async () => {
    const state = addPool(cluster(6), { kind: 'erasure', k: 2, m: 2, failureDomain: 'host' }, 32);
    const [replicated, ec21, ec22] = state.pools as [PoolRecord, PoolRecord, PoolRecord];
    const started: RecoveryTask[] = [];
    /** The old holders of a moving PG, by pool and PG. */
    const moving = new Map<string, number[]>();
    const repairs = testRepairs(state, {
      run: (task) => {
        started.push(task);
        return new Promise<boolean>(() => undefined); // still running
      },
      oldHolders: (poolId, pg) => moving.get(pgKey(poolId, pg)),
    });
    const report = (pool: PoolRecord, ostId: number, objectId: string, reason = 'WRITE_SKIPPED') =>
      repairs.report({
        ostId,
        objectId,
        reason,
        poolId: pool.id,
        pg: objectToPg(pool, objectId.replace(/\.c\d+$/, '')),
      });
    const sourcesOf = async (ostId: number, objectId: string): Promise<number[]> => {
      await repairs.announceDue();
      repairs.startDue(new Map());
      const task = started.find((t) => t.target.ostId === ostId && t.objectIds[0] === objectId);
      expect(task, `the repair of ${objectId} on OST ${ostId} started`).toBeDefined();
      return task!.sources.map((s) => s.ostId);
    };
    /** An OST on a host none of `osts` is on: an old holder the PG moved away from. */
    const elsewhere = (osts: readonly number[]): number => {
      const hosts = new Set(osts.map((id) => state.map.osts.find((o) => o.id === id)!.host));
      return state.map.osts.find((o) => !hosts.has(o.host))!.id;
    };

    // ec 2+1, chunk 2 moving: its new member missed a stripe write made since the move. The old
    // holder of position 2 never took that write; the chunk is rebuilt from the placed chunks 0 and 1.
    const group = '500.0';
    const chunks = placePg(state.map, ec21, objectToPg(ec21, group)).osts as number[];
    const oldHolder = elsewhere(chunks);
    moving.set(pgKey(ec21.id, objectToPg(ec21, group)), [chunks[0]!, chunks[1]!, oldHolder]);
    expect(await report(ec21, chunks[2]!, `${group}.c2`)).toBe(true);
    expect(await sourcesOf(chunks[2]!, `${group}.c2`)).toEqual([chunks[0], chunks[1]]);

    // replicated, moving: the new member's copy missed a write; the old holder never took it.
    const objectId = '600.0';
    const [kept, filled] = placePg(state.map, replicated, objectToPg(replicated, objectId)).osts as number[];
    moving.set(pgKey(replicated.id, objectToPg(replicated, objectId)), [kept!, elsewhere([kept!, filled!])]);
    expect(await report(replicated, filled!, objectId)).toBe(true);
    expect(await sourcesOf(filled!, objectId)).toEqual([kept]);

    // ec 2+2, settled: chunk 0 missed a write (its repair running), chunk 1 is rotten.
    const stripe = '700.0';
    const members = placePg(state.map, ec22, objectToPg(ec22, stripe)).osts as number[];
    expect(await report(ec22, members[0]!, `${stripe}.c0`)).toBe(true);
    expect(await report(ec22, members[1]!, `${stripe}.c1`, 'OBJ_CHECKSUM')).toBe(true);
    expect(await sourcesOf(members[1]!, `${stripe}.c1`)).toEqual([members[2], members[3]]);
  });
});

describe('a skip of a copy its PG is no longer placed on', () => {
  it('is refused as made with an older map (MAP_STALE): the members placed instead may lack the write', async () => {
    // Before, it was not recorded (or recorded against an old holder) and the write acknowledged.
    const state = cluster(6);
    const [replicated, ec] = state.pools as [PoolRecord, PoolRecord];
    const repairs = testRepairs(state);
    const skip = (pool: PoolRecord, ostId: number, objectId: string) =>
      repairs
        .report({
          ostId,
          objectId,
          reason: 'WRITE_SKIPPED',
          poolId: pool.id,
          pg: objectToPg(pool, objectId.replace(/\.c\d+$/, '')),
        })
        .then(
          (scheduled) => (scheduled ? 'recorded' : 'not recorded'),
          (err: { code?: string }) => err.code,
        );
    const objectId = '800.0';
    const pg = objectToPg(replicated, objectId);
    const placed = placePg(state.map, replicated, pg).osts as number[];
    const elsewhere = state.map.osts.find((o) => !placed.includes(o.id))!.id;
    expect(await skip(replicated, elsewhere, objectId)).toBe('MAP_STALE');
    expect(await skip(replicated, placed[1]!, objectId)).toBe('recorded');
    // ec: the chunk's own position counts, not the PG's other members.
    const group = '900.0';
    const chunks = placePg(state.map, ec, objectToPg(ec, group)).osts as number[];
    expect(await skip(ec, chunks[1]!, `${group}.c0`)).toBe('MAP_STALE');
    expect(await skip(ec, chunks[0]!, `${group}.c0`)).toBe('recorded');
    expect(repairs.list(10).map((r) => `${r.ostId}/${r.objectId}`)).toEqual([
      `${placed[1]}/${objectId}`,
      `${chunks[0]}/${group}.c0`,
    ]);
  });
});

describe('a skip that would leave no copy without missed writes', () => {
  it('is refused (IO_COPIES_STALE) until a copy is repaired; other objects and stripes are not held', async () => {
    const state = cluster(6);
    const [replicated, ec] = state.pools as [ClusterState['pools'][number], ClusterState['pools'][number]];
    /** Ends the repairs running (with whether they succeeded). */
    const running: ((done: boolean) => void)[] = [];
    const finish = (done: boolean) => {
      for (const end of running.splice(0)) end(done);
    };
    /** The old holders of a moving PG, by PG. */
    const moving = new Map<number, number[]>();
    const repairs = testRepairs(state, {
      run: () =>
        new Promise<boolean>((resolve) => {
          running.push(resolve);
        }),
      oldHolders: (_poolId, pg) => moving.get(pg),
    });
    const skip = (pool: typeof replicated, ostId: number, objectId: string) =>
      repairs.report({
        ostId,
        objectId,
        reason: 'WRITE_SKIPPED',
        poolId: pool.id,
        // An ec chunk is placed by its group (the id without .cN).
        pg: objectToPg(pool, objectId.replace(/\.c\d+$/, '')),
      });

    // replicated, size 2: its copies on a and b.
    const objectId = '100.0';
    const [a, b] = placePg(state.map, replicated, objectToPg(replicated, objectId)).osts as [number, number];
    expect(await skip(replicated, a, objectId)).toBe(true);
    // a missed a write and b would miss the next: neither would hold both.
    expect(await codeOf(skip(replicated, b, objectId))).toBe('IO_COPIES_STALE');
    expect(repairs.list(10).map((r) => `${r.ostId}/${r.objectId}`)).toEqual([`${a}/${objectId}`]);
    // Another object of b's: its other copy missed nothing.
    const other = Array.from({ length: 400 }, (_, i) => `${200 + i}.0`).find((id) => {
      const osts = placePg(state.map, replicated, objectToPg(replicated, id)).osts;
      return osts.includes(b) && !osts.includes(a);
    }) as string;
    expect(await skip(replicated, b, other)).toBe(true);
    // a's copy being repaired (off the queue while it runs): it still lacks the write.
    await repairs.announceDue();
    repairs.startDue(new Map());
    expect(repairs.list(10).map((r) => r.objectId)).not.toContain(objectId);
    expect(await codeOf(skip(replicated, b, objectId))).toBe('IO_COPIES_STALE');
    // a's copy repaired: b may miss writes again.
    finish(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await skip(replicated, b, objectId)).toBe(true);

    // ec 2+1: each stripe needs 2 chunks that missed nothing.
    const group = '300.0';
    const chunks = placePg(state.map, ec, objectToPg(ec, group)).osts as number[];
    expect(await skip(ec, chunks[0] as number, `${group}.c0`)).toBe(true);
    expect(await codeOf(skip(ec, chunks[1] as number, `${group}.c1`))).toBe('IO_COPIES_STALE');
    // The same chunk again is no new loss.
    expect(await skip(ec, chunks[0] as number, `${group}.c0`)).toBe(true);

    // A PG moving: its new member, still being filled, is no current copy (its fill needs one).
    const movingId = '400.0';
    const pg = objectToPg(replicated, movingId);
    const [kept, filled] = placePg(state.map, replicated, pg).osts as [number, number];
    moving.set(pg, [kept, 1000]);
    expect(await codeOf(skip(replicated, kept, movingId))).toBe('IO_COPIES_STALE');
    moving.delete(pg);
    expect(await skip(replicated, kept, movingId)).toBe(true);
    expect(filled).not.toBe(kept);
  });
});

describe('a copy already awaiting a repair, skipped again', () => {
  it('is refused (IO_COPIES_STALE) once no other copy is current: the one its first skip left has left the PG', async () => {
    const state = cluster(6);
    const replicated = state.pools[0] as ClusterState['pools'][number];
    /** The old holders of a moving PG, by PG. */
    const moving = new Map<number, number[]>();
    const repairs = testRepairs(state, {
      run: async () => false,
      oldHolders: (_poolId, pg) => moving.get(pg),
    });
    const objectId = '100.0';
    const pg = objectToPg(replicated, objectId);
    const skip = () =>
      repairs.report({ ostId: a, objectId, reason: 'WRITE_SKIPPED', poolId: replicated.id, pg });
    const [a, b] = placePg(state.map, replicated, pg).osts as [number, number];
    // a misses a write; b took it and is current.
    expect(await skip()).toBe(true);
    expect(await skip()).toBe(true);
    // The PG moves: b is now a member being filled (the record holds a and an old holder that left
    // the placement), so no placed copy but a holds the writes a missed. A write that skips a again
    // would be on no copy that took every write: chaos --seed 4 and --seed 1 (suite size) acknowledged
    // such writes to /chaos/l0-f1's 4.1, and no copy of it then held them all.
    moving.set(pg, [a, 1000]);
    expect(await codeOf(skip())).toBe('IO_COPIES_STALE');
    expect(repairs.list(10).map((r) => `${r.ostId}/${r.objectId}`)).toEqual([`${a}/${objectId}`]);
    // Filled again: b is a current copy, and a may miss writes again.
    moving.delete(pg);
    expect(await skip()).toBe(true);
    expect(b).not.toBe(a);
  });
});

describe('an ec position placed back on its holder while the member placed meanwhile holds it', () => {
  it("queues that member's missed writes in the PG for the returning holder too", async () => {
    // The fill gives the returning holder the member's newest blocks, which lack a write the member
    // missed: without the inherited repair, the returning holder served the write before it.
    const state = cluster(6);
    const ec = state.pools[1]!;
    const repairs = testRepairs(state);
    const group = '900.0';
    const pg = objectToPg(ec, group);
    const chunks = placePg(state.map, ec, pg).osts as number[];
    const returning = state.map.osts.find((o) => !chunks.includes(o.id))!.id;
    await repairs.report({
      ostId: chunks[0]!,
      objectId: `${group}.c0`,
      reason: 'WRITE_SKIPPED',
      poolId: ec.id,
      pg,
    });
    // Another position's member, or another PG, passes nothing on.
    expect(
      repairs.inheritMissed([{ poolId: ec.id, pg, position: 1, from: chunks[1]!, to: returning }]),
    ).toEqual([]);
    expect(
      repairs.inheritMissed([{ poolId: ec.id, pg: pg + 1, position: 0, from: chunks[0]!, to: returning }]),
    ).toEqual([]);
    const ops = repairs.inheritMissed([{ poolId: ec.id, pg, position: 0, from: chunks[0]!, to: returning }]);
    expect(ops.map((op) => op.type)).toEqual(['put']);
    expect(repairs.list(10).map((r) => `${r.ostId}/${r.objectId}`)).toEqual([
      `${chunks[0]}/${group}.c0`,
      `${returning}/${group}.c0`,
    ]);
  });
});
