// The recovery driver: keeps the holder records (persisted with every map
// change that moves a PG, see holders.ts), runs the pure planner on a timer,
// sends each task to the OSS of its target OST (OssService.RecoverPg), and
// records a finished copy as a holder in one synced batch. Old holders of a
// PG that became complete are purged; the ones that are down are remembered
// (stale copies) and purged, or fully re-copied, when they come back.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ChannelCache,
  type Clock,
  call,
  deadlineIn,
  type Logger,
  Semaphore,
  StripeError,
} from '../../common/index.js';
import { HOLE, placePg } from '../../placement/index.js';
import type { OssServiceClient } from '../../proto/gen/stripefs/v1/OssService.js';
import type { RecoverPgRequest, RecoverSource } from '../../proto/index.js';
import { ruleToWire } from '../../wire/index.js';
import type { ClusterService } from '../cluster/service.js';
import type { ClusterState, PoolRecord } from '../cluster/state.js';
import type { GroupCommitter } from '../commit.js';
import type { BatchOp, MdsDb } from '../db.js';
import { KEYS, numbersOfRecoveryKey, ofRepairKey } from '../keys.js';
import {
  applyDone,
  type FillSource,
  type FillSourceChanges,
  fillSourcesAfter,
  type HolderChanges,
  holderChanges,
  leftMembers,
  parsePgKey,
  pgKey,
  sameMembers,
  targetsOf,
} from './holders.js';
import { RecoveryPacer } from './pacer.js';
import { planRecovery, type RecoveryTask, staleKey, taskKey } from './planner.js';
import { RateWindow, type RecoveryProgress } from './progress.js';
import { type BadChunkReport, type RecoverySettings, type RepairRecord, Repairs } from './repairs.js';

export const RECOVERY_TICK_MS = 200;
export const RECOVERY_CALL_TIMEOUT_MS = 3_600_000;
export const RECOVERY_BACKOFF_MS_BASE = 500;
export const RECOVERY_BACKOFF_MS_MAX = 30_000;
/** Purge and estimate passes. */
export const RECOVERY_SLOW_TICK_MS = 2_000;
/** ListObjects/DeleteObject calls the MDS makes at once (estimates, purges). */
export const RECOVERY_MDS_CALLS_MAX = 8;
/** mds.missedWritesPerPgMax's default (common/config.ts). */
export const MISSED_WRITES_PER_PG_DEFAULT = 1_000;
const SHORT_CALL_MS = 10_000;

const MODE_WIRE = {
  absent: 'RECOVER_MODE_ABSENT',
  'absent-or-size': 'RECOVER_MODE_ABSENT_OR_SIZE',
  all: 'RECOVER_MODE_ALL',
} as const;

interface Active {
  task: RecoveryTask;
  startedMs: number;
}

export interface RecoveryTotals {
  tasksDone: number;
  tasksFailed: number;
  objectsCopied: number;
  bytesCopied: number;
  objectsRepaired: number;
  staleCopiesPurged: number;
  /** Purge passes that left copies behind (a failed DeleteObject): the stale-copy record stays for the next. */
  staleCopyPurgesFailed: number;
}

export class RecoveryService {
  readonly holders = new Map<string, number[]>();
  /** ec members that are a source of one fill only, per PG (holders.ts, ecReturning). */
  readonly fillSources = new Map<string, FillSource[]>();
  readonly staleCopies = new Set<string>();
  readonly active = new Map<string, Active>();
  readonly totals: RecoveryTotals = {
    tasksDone: 0,
    tasksFailed: 0,
    objectsCopied: 0,
    bytesCopied: 0,
    objectsRepaired: 0,
    staleCopiesPurged: 0,
    staleCopyPurgesFailed: 0,
  };
  readonly repairs: Repairs;
  settings: RecoverySettings;
  private readonly retry = new Map<string, { attempts: number; notBeforeMs: number }>();
  private readonly estimates = new Map<string, number>();
  private readonly rate = new RateWindow();
  private readonly pacer = new RecoveryPacer();
  private readonly calls = new Semaphore(RECOVERY_MDS_CALLS_MAX);
  /** Writes that skipped a copy awaiting a full backfill, per `staleKey`: a backfill that saw more must run again. */
  private readonly backfillSkips = new Map<string, number>();
  /** A map change's holder records, persisted with it and applied in memory as it becomes current. */
  private pendingHolders:
    | {
        epoch: number;
        changes: HolderChanges;
        fills: FillSourceChanges;
        forgotten: string[];
        left: string[];
      }
    | undefined;
  private timer: NodeJS.Timeout | undefined;
  private slowTimer: NodeJS.Timeout | undefined;
  private slowRunning = false;
  private stopped = false;

  constructor(
    private readonly db: MdsDb,
    private readonly committer: GroupCommitter,
    private readonly cluster: ClusterService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    defaults: RecoverySettings,
    /** The MDS's one channel to each OSS (closed by its builder). */
    private readonly clients: ChannelCache<OssServiceClient>,
    /** Skipped copies of one OST in one PG recorded one by one at most (mds.missedWritesPerPgMax). */
    readonly missedWritesPerPgMax = MISSED_WRITES_PER_PG_DEFAULT,
  ) {
    this.settings = { ...defaults };
    this.repairs = new Repairs(
      cluster,
      (task) => this.run(task, true),
      (ostId, poolId, pg) => this.staleCopies.has(staleKey(ostId, poolId, pg)),
      (poolId, pg) => this.holders.get(pgKey(poolId, pg)),
      () => this.clock.monotonicMs(),
      async (grpcAddress, ostId, objectIds) => {
        await call(
          this.clients.get(grpcAddress),
          'MarkStale',
          { ostId, objectIds },
          deadlineIn(SHORT_CALL_MS),
        );
      },
      (ops) => this.committer.submit(ops),
      {
        missedWritesPerPgMax,
        backfillWhole: (ostId, poolId, pg) => this.backfillWhole(ostId, poolId, pg),
        skippedDuringBackfill: (ostId, poolId, pg) => {
          const key = staleKey(ostId, poolId, pg);
          this.backfillSkips.set(key, (this.backfillSkips.get(key) ?? 0) + 1);
        },
      },
    );
  }

  /**
   * Marks `ostId`'s copy of a PG stale whole, durably, under the cluster mutex: a stale-copy record
   * (the backfill copies every object, mode `all`) and a holders record without it (the PG is
   * degraded and the planner targets it). Its OST is told at once when up, and in every
   * registration and heartbeat answer until the backfill is done. False when it already was.
   */
  private async backfillWhole(ostId: number, poolId: number, pg: number): Promise<boolean> {
    const marked = await this.cluster.exclusive(async () => {
      const pool = this.cluster.state.pools.find((p) => p.id === poolId);
      if (!pool || this.staleCopies.has(staleKey(ostId, poolId, pg))) return false;
      const key = pgKey(poolId, pg);
      const placement = placePg(this.cluster.state.map, pool, pg).osts;
      const record = this.holders.get(key) ?? placement;
      const holders =
        pool.rule.kind === 'erasure'
          ? record.map((id) => (id === ostId ? HOLE : id))
          : record.filter((id) => id !== ostId);
      const same = sameMembers(pool.rule, holders, placement);
      await this.committer.submit([
        same
          ? { type: 'del', key: KEYS.holders(poolId, pg) }
          : { type: 'put', key: KEYS.holders(poolId, pg), value: holders },
        { type: 'put', key: KEYS.staleCopy(ostId, poolId, pg), value: 1 },
      ]);
      if (same) this.holders.delete(key);
      else this.holders.set(key, holders);
      this.staleCopies.add(staleKey(ostId, poolId, pg));
      return true;
    });
    if (!marked) return false;
    this.logger.warn({ ostId, pg: pgKey(poolId, pg) }, 'missed writes past the per-PG bound: full backfill');
    const oss = this.upOss(ostId);
    if (oss)
      await call(
        this.clients.get(oss.grpcAddress),
        'MarkStale',
        { ostId, objectIds: [], stalePgs: [{ poolId, pg }] },
        deadlineIn(SHORT_CALL_MS),
      ).catch(() => undefined); // its next heartbeat answer lists the PG too
    return true;
  }

  /**
   * Missed writes, both ways: copies recorded one by one and PGs turned into a full backfill since
   * start, and the copies of PGs placed on their OST that await a full backfill now (its OST
   * refuses reads of them).
   */
  missedWrites(): {
    perPgMax: number;
    logged: number;
    backfills: number;
    inherited: number;
    awaitingBackfill: number;
  } {
    const state = this.cluster.state;
    let awaitingBackfill = 0;
    for (const key of this.staleCopies) {
      const [ostId, poolId, pg] = key.split('/').map(Number) as [number, number, number];
      const pool = state.pools.find((p) => p.id === poolId);
      if (pool && placePg(state.map, pool, pg).osts.includes(ostId)) awaitingBackfill++;
    }
    return {
      perPgMax: this.missedWritesPerPgMax,
      logged: this.repairs.missedWritesLogged,
      backfills: this.repairs.missedWriteBackfills,
      inherited: this.repairs.missedWritesInherited,
      awaitingBackfill,
    };
  }

  /**
   * The copies and whole PGs of `ostIds` that missed writes, for registration and heartbeat
   * answers: copies awaiting repair, PGs awaiting a full backfill or purge, and the PGs each OST is
   * being filled for (placed there, not yet a holder: its copy has only the writes since the move).
   * Holders and the map change together (see onMapChange), so the list is the current epoch's.
   */
  staleCopiesOf(
    ostIds: readonly number[],
  ): { ostId: number; objectIds: string[]; stalePgs: { poolId: number; pg: number }[] }[] {
    const objects = new Map(this.repairs.staleCopiesOf(ostIds).map((s) => [s.ostId, s.objectIds]));
    const pgs = new Map<number, { poolId: number; pg: number }[]>();
    const add = (ostId: number, poolId: number, pg: number): void => {
      const list = pgs.get(ostId) ?? [];
      if (!list.some((p) => p.poolId === poolId && p.pg === pg)) list.push({ poolId, pg });
      pgs.set(ostId, list);
    };
    for (const key of this.staleCopies) {
      const [ostId, poolId, pg] = key.split('/').map(Number) as [number, number, number];
      if (ostIds.includes(ostId)) add(ostId, poolId, pg);
    }
    for (const fill of this.fillTargets())
      if (ostIds.includes(fill.ostId)) add(fill.ostId, fill.poolId, fill.pg);
    return ostIds.flatMap((ostId) => {
      const objectIds = objects.get(ostId) ?? [];
      const stalePgs = pgs.get(ostId) ?? [];
      return objectIds.length + stalePgs.length > 0 ? [{ ostId, objectIds, stalePgs }] : [];
    });
  }

  /**
   * Every PG member not yet a holder (a rebalance or recovery target): its copy is being filled and
   * may hold only the writes made since the PG moved (a client write creates the object there with
   * a hole before it), so it must not serve reads until its fill is recorded done.
   */
  fillTargets(): { ostId: number; poolId: number; pg: number }[] {
    const state = this.cluster.state;
    const out: { ostId: number; poolId: number; pg: number }[] = [];
    for (const [key, record] of this.holders) {
      const { poolId, pg } = parsePgKey(key);
      const pool = state.pools.find((p) => p.id === poolId);
      if (!pool || pg >= pool.pgCount) continue;
      for (const target of targetsOf(pool.rule, record, placePg(state.map, pool, pg).osts))
        out.push({ ostId: target.ostId, poolId, pg });
    }
    return out;
  }

  async init(): Promise<void> {
    for (const [key, value] of await this.db.iterator(KEYS.holdersRange).all()) {
      const [poolId, pg] = numbersOfRecoveryKey(key);
      this.holders.set(pgKey(poolId!, pg!), value as number[]);
    }
    for (const [key, value] of await this.db.iterator(KEYS.fillSourcesRange).all()) {
      const [poolId, pg] = numbersOfRecoveryKey(key);
      this.fillSources.set(pgKey(poolId!, pg!), value as FillSource[]);
    }
    for (const key of await this.db.keys(KEYS.staleCopyRange).all()) {
      const [ostId, poolId, pg] = numbersOfRecoveryKey(key);
      this.staleCopies.add(staleKey(ostId!, poolId!, pg!));
    }
    const repairs = await this.db.iterator(KEYS.repairRange).all();
    this.repairs.restore(
      repairs.map(([key, value]) => ({ ...ofRepairKey(key), record: value as RepairRecord })),
    );
    const stored = (await this.db.get(KEYS.recoverySettings)) as Partial<RecoverySettings> | undefined;
    if (stored) this.settings = { ...this.settings, ...stored };
    this.cluster.beforeCommit = (prev, next) => this.onMapChange(prev, next);
    this.cluster.subscribe((next) => this.mapChanged(next));
    this.cluster.removalBlockers = (state, ostIds) => this.removalBlockers(state, ostIds);
  }

  /**
   * Why OSTs cannot leave the map yet, one line per PG: a holder record still names one (its copy
   * is not yet made on the PG's new members), the placement still uses one, or a repair waits for
   * one. Empty once every PG is clean without them.
   */
  removalBlockers(state: ClusterState, ostIds: ReadonlySet<number>): string[] {
    const blockers = new Map<string, string>();
    for (const [key, holders] of this.holders) {
      const held = holders.find((id) => ostIds.has(id));
      if (held !== undefined)
        blockers.set(key, `PG ${key} keeps a copy on ost${held} not yet made elsewhere`);
    }
    for (const pool of state.pools)
      for (let pg = 0; pg < pool.pgCount; pg++) {
        const placed = placePg(state.map, pool, pg).osts.find((id) => ostIds.has(id));
        if (placed !== undefined)
          blockers.set(pgKey(pool.id, pg), `PG ${pgKey(pool.id, pg)} is placed on ost${placed}`);
      }
    for (const r of this.repairs.list(this.repairs.queued))
      if (ostIds.has(r.ostId))
        blockers.set(
          pgKey(r.pool, r.pg),
          `PG ${pgKey(r.pool, r.pg)} waits to repair ${r.objectId} on ost${r.ostId}`,
        );
    return [...blockers.values()];
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), RECOVERY_TICK_MS);
    this.timer.unref();
    this.slowTimer = setInterval(() => void this.slowTick(), RECOVERY_SLOW_TICK_MS);
    this.slowTimer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
    clearInterval(this.slowTimer);
  }

  async updateSettings(next: RecoverySettings): Promise<RecoverySettings> {
    await this.committer.submit([{ type: 'put', key: KEYS.recoverySettings, value: next }]);
    this.settings = { ...next };
    this.tick();
    return this.settings;
  }

  /** Called inside the map change: holder records that must commit with it. */
  private onMapChange(prev: ClusterState, next: ClusterState): BatchOp[] {
    // An OST coming back is told which copies to refuse as the new map is committed, not a tick later.
    if (next.map.osts.some((o) => o.state.up && !prev.map.osts.find((p) => p.id === o.id)?.state.up))
      void this.repairs.announceDue(next);
    const changes = holderChanges(prev, next, this.holders);
    const forgotten = this.forgetRemoved(prev, next);
    const ops: BatchOp[] = forgotten.map((key) => {
      const [ostId, poolId, pg] = key.split('/').map(Number) as [number, number, number];
      return { type: 'del', key: KEYS.staleCopy(ostId, poolId, pg) };
    });
    ops.push(...this.repairs.inheritMissed(changes.returning));
    const { fills, left } = this.leftAfter(prev, next, changes);
    for (const [key, list] of fills.changed) {
      const { poolId, pg } = parsePgKey(key);
      ops.push(
        list
          ? { type: 'put', key: KEYS.fillSources(poolId, pg), value: list }
          : { type: 'del', key: KEYS.fillSources(poolId, pg) },
      );
    }
    for (const key of left) {
      const [ostId, poolId, pg] = key.split('/').map(Number) as [number, number, number];
      ops.push({ type: 'put', key: KEYS.staleCopy(ostId, poolId, pg), value: 1 });
    }
    for (const [key, holders] of changes.set) {
      const { poolId, pg } = parsePgKey(key);
      ops.push({ type: 'put', key: KEYS.holders(poolId, pg), value: holders });
    }
    for (const key of changes.del) {
      const { poolId, pg } = parsePgKey(key);
      ops.push({ type: 'del', key: KEYS.holders(poolId, pg) });
    }
    // Applied in memory once the new map is current (mapChanged), not while it is being persisted:
    // the fill targets answers list (fillTargets) are then always those of the map they name.
    this.pendingHolders = { epoch: next.map.epoch, changes, fills, forgotten, left };
    return ops;
  }

  /**
   * The fill-only sources after a map change, and the copies it leaves stale (leftMembers): a
   * member that is a fill-only source is kept until that fill is done, and one that stops being
   * one while no longer placed nor a holder is purged like a left member.
   */
  private leftAfter(
    prev: ClusterState,
    next: ClusterState,
    changes: HolderChanges,
  ): { fills: FillSourceChanges; left: string[] } {
    const set = new Map(changes.set);
    const del = new Set(changes.del);
    const holdersAfter = (key: string) =>
      del.has(key) ? undefined : (set.get(key) ?? this.holders.get(key));
    const fills = fillSourcesAfter(next, this.fillSources, changes.returning, holdersAfter);
    const changed = new Map(fills.changed);
    const fromsAfter = (key: string): number[] =>
      (changed.has(key) ? (changed.get(key) ?? []) : (this.fillSources.get(key) ?? [])).map((f) => f.from);
    const left = new Set(
      leftMembers(prev, next, (key) => {
        const holders = holdersAfter(key);
        return holders && [...holders, ...fromsAfter(key)];
      }).map(([ostId, poolId, pg]) => staleKey(ostId, poolId, pg)),
    );
    for (const { poolId, pg, from } of fills.dropped) {
      const pool = next.pools.find((p) => p.id === poolId);
      const key = pgKey(poolId, pg);
      const placed = pool && pg < pool.pgCount ? placePg(next.map, pool, pg).osts : [];
      const holders = holdersAfter(key) ?? placed;
      if (!placed.includes(from) && !holders.includes(from) && !fromsAfter(key).includes(from))
        left.add(staleKey(from, poolId, pg));
    }
    return { fills, left: [...left].filter((key) => !this.staleCopies.has(key)) };
  }

  /** The holder changes of a map change, applied as the map becomes current. */
  private mapChanged(next: ClusterState): void {
    const pending = this.pendingHolders;
    if (!pending || pending.epoch !== next.map.epoch) return;
    this.pendingHolders = undefined;
    for (const key of pending.forgotten) this.staleCopies.delete(key);
    for (const key of pending.left) this.staleCopies.add(key);
    for (const [key, holders] of pending.changes.set) this.holders.set(key, holders);
    for (const [key, list] of pending.fills.changed)
      if (list) this.fillSources.set(key, list);
      else this.fillSources.delete(key);
    for (const key of pending.changes.del) {
      this.holders.delete(key);
      for (const k of this.estimatesOf(key)) this.estimates.delete(k);
    }
  }

  /** Stale-copy records of OSTs a change removed from the map: they will never come back to purge. */
  private forgetRemoved(prev: ClusterState, next: ClusterState): string[] {
    if (next.map.osts.length >= prev.map.osts.length) return [];
    const kept = new Set(next.map.osts.map((o) => o.id));
    return [...this.staleCopies].filter((key) => !kept.has(Number(key.split('/')[0])));
  }

  activePgs(): Set<string> {
    return new Set(
      [...this.active.values()]
        .filter((a) => a.task.objectIds.length === 0)
        .map((a) => pgKey(a.task.poolId, a.task.pg)),
    );
  }

  private tick(): void {
    if (this.stopped) return;
    const now = this.clock.monotonicMs();
    this.rate.busy(this.holders.size > 0, now);
    if (this.holders.size === 0 && this.active.size === 0) this.pacer.idle();
    const tasks = planRecovery({
      state: this.cluster.state,
      holders: this.holders,
      activePgs: this.activePgs(),
      maxActivePgs: this.settings.maxActivePgs,
      paused: this.settings.paused,
      notBeforeMs: new Map([...this.retry].map(([k, v]) => [k, v.notBeforeMs])),
      nowMs: now,
      missedWrites: (ostId, poolId, pg) => this.repairs.missedWritesOf(ostId, poolId, pg),
      fillSources: (poolId, pg) => this.fillSources.get(pgKey(poolId, pg)),
    });
    for (const task of tasks) void this.run(task, false);
    // Told even while recovery is paused: reads must not serve a copy known to lack writes.
    void this.repairs.announceDue();
    if (!this.settings.paused) this.repairs.startDue(this.active);
  }

  /** The byte rate one task gets: the cluster-wide setting shared by the PGs that can run at once. */
  private shareOf(task: RecoveryTask): number {
    const max = this.settings.maxBytesPerSec;
    if (max <= 0) return 0;
    const pgs = Math.max(1, Math.min(this.settings.maxActivePgs, this.holders.size || 1));
    const pool = this.cluster.state.pools.find((p) => p.id === task.poolId);
    const record = this.holders.get(pgKey(task.poolId, task.pg));
    const targets =
      pool && record
        ? Math.max(
            1,
            targetsOf(pool.rule, record, placePg(this.cluster.state.map, pool, task.pg).osts).length,
          )
        : 1;
    return Math.max(1, Math.floor(max / pgs / targets));
  }

  private requestOf(task: RecoveryTask, pool: PoolRecord, state: ClusterState): RecoverPgRequest {
    const ossOf = (ostId: number) => state.oss.find((o) => o.osts.some((x) => x.id === ostId));
    const share = this.shareOf(task);
    const sources: RecoverSource[] = task.sources.flatMap((s) => {
      const oss = ossOf(s.ostId);
      return oss
        ? [
            {
              ostId: s.ostId,
              grpcAddress: oss.grpcAddress,
              bulkAddress: oss.bulkAddress,
              position: s.position,
              inPlacement: s.inPlacement,
            },
          ]
        : [];
    });
    return {
      poolId: task.poolId,
      pg: task.pg,
      targetOstId: task.target.ostId,
      position: task.target.position,
      rule: ruleToWire(pool.rule),
      sources,
      mapEpoch: state.map.epoch,
      bytesPerSec: share,
      creditBytes: this.pacer.creditFor(share, this.clock.monotonicMs()),
      mode: MODE_WIRE[task.mode],
      objectIds: task.objectIds,
    };
  }

  /** Runs one task to the end; never throws. */
  /** Runs one task; resolves true when it succeeded (false: failed, or the same task was running). */
  private async run(task: RecoveryTask, repair: boolean): Promise<boolean> {
    const key = repair ? `repair/${task.target.ostId}/${task.objectIds.join(',')}` : taskKey(task);
    if (this.active.has(key)) return false;
    this.active.set(key, { task, startedMs: this.clock.monotonicMs() });
    const skipsAtStart = this.backfillSkips.get(staleKey(task.target.ostId, task.poolId, task.pg)) ?? 0;
    const missedAtStart = repair ? new Set<string>() : this.sourcesMissed(task);
    try {
      const state = this.cluster.state;
      const pool = state.pools.find((p) => p.id === task.poolId);
      const oss = state.oss.find((o) => o.osts.some((x) => x.id === task.target.ostId));
      if (!pool || !oss) throw new Error(`task ${key}: no pool or OSS`);
      const res = await call(
        this.clients.get(oss.grpcAddress),
        'RecoverPg',
        this.requestOf(task, pool, state),
        deadlineIn(RECOVERY_CALL_TIMEOUT_MS),
      );
      this.totals.tasksDone++;
      this.totals.objectsCopied += res.objectsCopied;
      this.totals.bytesCopied += res.bytesCopied;
      const doneMs = this.clock.monotonicMs();
      this.rate.add(res.bytesCopied, doneMs);
      this.pacer.completed(res.bytesCopied, this.settings.maxBytesPerSec, doneMs);
      if (repair) this.totals.objectsRepaired += res.objectsCopied;
      else await this.complete(task, skipsAtStart, missedAtStart);
      this.retry.delete(key);
      return true;
    } catch (err) {
      this.totals.tasksFailed++;
      const attempts = (this.retry.get(key)?.attempts ?? 0) + 1;
      const backoffMs = Math.min(
        RECOVERY_BACKOFF_MS_MAX,
        RECOVERY_BACKOFF_MS_BASE * 2 ** Math.min(attempts - 1, 16),
      );
      this.retry.set(key, { attempts, notBeforeMs: this.clock.monotonicMs() + backoffMs });
      this.logger.warn(
        { err: (err as Error).message, task: key, attempts },
        'recovery task failed; will retry',
      );
      return false;
    } finally {
      this.active.delete(key);
      setImmediate(() => this.tick()); // the next PG starts now, not at the next tick
    }
  }

  /**
   * The objects a replicated fill's sources missed writes to (Repairs.fillInherits), with `also`:
   * none for ec, whose rebuild decodes chunks of one write (block stamps).
   */
  private sourcesMissed(task: RecoveryTask, also: ReadonlySet<string> = new Set()): Set<string> {
    const pool = this.cluster.state.pools.find((p) => p.id === task.poolId);
    if (!pool || pool.rule.kind === 'erasure') return new Set();
    const sources = task.sources.map((s) => s.ostId);
    return new Set([...also, ...this.repairs.missedObjectsOf(sources, task.poolId, task.pg)]);
  }

  /**
   * Records the target as a holder, under the cluster mutex so no map change interleaves, with the
   * repairs of the objects its sources had missed writes to (Repairs.fillInherits).
   */
  private async complete(
    task: RecoveryTask,
    skipsAtStart: number,
    missedAtStart: ReadonlySet<string>,
  ): Promise<void> {
    const targetKey = staleKey(task.target.ostId, task.poolId, task.pg);
    const stale = await this.cluster.exclusive(async () => {
      // A write skipped the target while it was copied: the copy may lack it, so the task runs again.
      if ((this.backfillSkips.get(targetKey) ?? 0) !== skipsAtStart)
        throw new Error(
          `a write skipped ost${task.target.ostId} during its backfill of ${task.poolId}/${task.pg}`,
        );
      const state = this.cluster.state;
      const key = pgKey(task.poolId, task.pg);
      const record = this.holders.get(key);
      const pool = state.pools.find((p) => p.id === task.poolId);
      if (!pool) return [];
      const placement = placePg(state.map, pool, task.pg).osts;
      const stillWanted =
        record !== undefined &&
        (pool.rule.kind === 'erasure'
          ? placement[task.target.position] === task.target.ostId
          : placement.includes(task.target.ostId));
      if (!stillWanted) return this.leftBehind(task, placement, record);
      const done = applyDone(pool.rule, record, placement, task.target);
      const fills = this.fillDone(task, placement, done.holders ?? placement);
      done.stale.push(...fills.stale);
      const ops: BatchOp[] = [
        ...fills.ops,
        done.holders
          ? { type: 'put', key: KEYS.holders(task.poolId, task.pg), value: done.holders }
          : { type: 'del', key: KEYS.holders(task.poolId, task.pg) },
        { type: 'del', key: KEYS.staleCopy(task.target.ostId, task.poolId, task.pg) },
      ];
      for (const ostId of done.stale)
        ops.push({ type: 'put', key: KEYS.staleCopy(ostId, task.poolId, task.pg), value: 1 });
      const inherits = this.repairs.fillInherits(
        task.target.ostId,
        task.poolId,
        task.pg,
        this.sourcesMissed(task, missedAtStart),
      );
      ops.push(...inherits.ops);
      await this.committer.submit(ops);
      inherits.queue();
      if (done.holders) this.holders.set(key, done.holders);
      else this.holders.delete(key);
      if (fills.list) this.fillSources.set(key, fills.list);
      else if (fills.ops.length > 0) this.fillSources.delete(key);
      this.staleCopies.delete(targetKey);
      this.backfillSkips.delete(targetKey);
      for (const ostId of done.stale) this.staleCopies.add(staleKey(ostId, task.poolId, task.pg));
      this.estimates.delete(taskKey(task));
      return done.stale;
    });
    if (stale.length > 0) void this.slowTick();
  }

  /**
   * A fill done whose target had a fill-only source (ecReturning): the source's record goes, and its
   * copy is stale (returned, for the caller to record) when it is neither placed nor a holder nor
   * another fill's source.
   */
  private fillDone(
    task: RecoveryTask,
    placement: readonly number[],
    holders: readonly number[],
  ): { ops: BatchOp[]; list: FillSource[] | null; stale: number[] } {
    const list = this.fillSources.get(pgKey(task.poolId, task.pg)) ?? [];
    const ours = (f: FillSource): boolean =>
      f.position === task.target.position && f.to === task.target.ostId;
    const done = list.filter(ours);
    if (done.length === 0) return { ops: [], list: list.length > 0 ? list : null, stale: [] };
    const rest = list.filter((f) => !ours(f));
    const key = KEYS.fillSources(task.poolId, task.pg);
    const ops: BatchOp[] = [rest.length > 0 ? { type: 'put', key, value: rest } : { type: 'del', key }];
    const stale = done
      .map((f) => f.from)
      .filter((id) => !placement.includes(id) && !holders.includes(id) && !rest.some((f) => f.from === id));
    return { ops, list: rest.length > 0 ? rest : null, stale };
  }

  private estimatesOf(key: string): string[] {
    return [...this.estimates.keys()].filter((k) => k.startsWith(`${key}/`));
  }

  /** Purges stale copies whose OST is up and no longer placed, and estimates the bytes of pending targets. */
  private async slowTick(): Promise<void> {
    if (this.slowRunning || this.stopped) return;
    this.slowRunning = true;
    try {
      const work: Promise<void>[] = [];
      for (const key of [...this.staleCopies]) work.push(this.calls.run(() => this.purge(key)));
      for (const [key, record] of this.holders) {
        const { poolId, pg } = parsePgKey(key);
        const pool = this.cluster.state.pools.find((p) => p.id === poolId);
        if (!pool) continue;
        for (const target of targetsOf(pool.rule, record, placePg(this.cluster.state.map, pool, pg).osts)) {
          const tk = taskKey({ poolId, pg, target });
          if (!this.estimates.has(tk)) work.push(this.calls.run(() => this.estimate(pool, pg, record, tk)));
        }
      }
      await Promise.all(work);
    } finally {
      this.slowRunning = false;
    }
  }

  /**
   * A fill that finished after its PG moved on (or back to its holders): what it copied to the
   * target is a stale copy to purge, unless the target is placed at another position or holds the PG.
   */
  private async leftBehind(
    task: RecoveryTask,
    placement: readonly number[],
    record: readonly number[] | undefined,
  ): Promise<number[]> {
    const ostId = task.target.ostId;
    if (placement.includes(ostId) || (record ?? placement).includes(ostId)) return [];
    await this.committer.submit([
      { type: 'put', key: KEYS.staleCopy(ostId, task.poolId, task.pg), value: 1 },
    ]);
    this.staleCopies.add(staleKey(ostId, task.poolId, task.pg));
    return [ostId];
  }

  private upOss(ostId: number): ClusterState['oss'][number] | undefined {
    const state = this.cluster.state;
    if (!state.map.osts.find((o) => o.id === ostId)?.state.up) return undefined;
    return state.oss.find((o) => o.osts.some((x) => x.id === ostId));
  }

  private async purge(key: string): Promise<void> {
    const [ostId, poolId, pg] = key.split('/').map(Number) as [number, number, number];
    const state = this.cluster.state;
    const pool = state.pools.find((p) => p.id === poolId);
    const oss = this.upOss(ostId);
    if (!pool || !oss) return;
    if (placePg(state.map, pool, pg).osts.includes(ostId)) return; // placed again: it will be a full re-copy target
    if (this.holders.get(pgKey(poolId, pg))?.includes(ostId)) return; // still a source
    if (this.fillSources.get(pgKey(poolId, pg))?.some((f) => f.from === ostId)) return; // a fill's source
    // A fill still copying there: it marks the copy stale again when it ends, and the next pass purges.
    for (const { task } of this.active.values())
      if (task.target.ostId === ostId && task.poolId === poolId && task.pg === pg) return;
    const client = this.clients.get(oss.grpcAddress);
    try {
      let cursor = '';
      // A copy that could not be deleted keeps the record, so the next pass tries it again.
      let failed = 0;
      let firstError: unknown;
      do {
        const page = await call(
          client,
          'ListObjects',
          { ostId, poolId, pg, cursor, limit: 1000 },
          deadlineIn(SHORT_CALL_MS),
        );
        for (const o of page.objects) {
          const ref = { ostId, objectId: o.objectId, poolId, pg, mapEpoch: this.cluster.state.map.epoch };
          try {
            await call(client, 'DeleteObject', { ref }, deadlineIn(SHORT_CALL_MS));
          } catch (err) {
            failed++;
            firstError ??= err;
          }
        }
        cursor = page.nextCursor;
      } while (cursor);
      if (failed > 0)
        throw new Error(`${failed} objects not deleted (${(firstError as Error).message}); the record stays`);
      await this.committer.submit([{ type: 'del', key: KEYS.staleCopy(ostId, poolId, pg) }]);
      this.staleCopies.delete(key);
      this.totals.staleCopiesPurged++;
    } catch (err) {
      this.totals.staleCopyPurgesFailed++;
      this.logger.debug({ err: (err as Error).message, key }, 'stale copy purge failed; will retry');
    }
  }

  private async estimate(pool: PoolRecord, pg: number, record: readonly number[], tk: string): Promise<void> {
    for (const ostId of record) {
      if (ostId === HOLE) continue;
      const oss = this.upOss(ostId);
      if (!oss) continue;
      try {
        let bytes = 0;
        let cursor = '';
        do {
          const page = await call(
            this.clients.get(oss.grpcAddress),
            'ListObjects',
            { ostId, poolId: pool.id, pg, cursor, limit: 1000 },
            deadlineIn(SHORT_CALL_MS),
          );
          for (const o of page.objects) bytes += Number(o.size);
          cursor = page.nextCursor;
        } while (cursor);
        this.estimates.set(tk, bytes);
        return;
      } catch {
        // try the next holder
      }
    }
  }

  /** ReportBadChunk: queues a one-object repair (durably), run once the OST is up and placed to hold the object. */
  async reportBadChunk(bad: BadChunkReport): Promise<boolean> {
    const scheduled = await this.repairs.report(bad);
    this.logger.warn({ ...bad, scheduled }, 'bad chunk reported');
    if (scheduled) this.tick();
    if (scheduled && bad.reason === 'WRITE_SKIPPED') await this.toldOrLapsed(bad.ostId, bad.objectId);
    return scheduled;
  }

  /**
   * Returns once the OSS of `ostId` can no longer serve the skipped copy: told by MarkStale, or its
   * OST is down, or the read lease of its last call this MDS answered has lapsed (its next lease
   * comes with a heartbeat answer, which lists the copy). The writer acknowledges its write only after this answer, so no
   * read that begins after the acknowledgement gets the copy from before the write. Before, the
   * answer came at once and MarkStale later (or the next heartbeat answer): an OSS a writer took for
   * down while it served reads (its map behind) returned the old bytes meanwhile. Not told within
   * two leases (its OSS heard from but unreachable): REQ_UNAVAILABLE, and the writer asks again.
   */
  private async toldOrLapsed(ostId: number, objectId: string): Promise<void> {
    const giveUpMs = this.clock.monotonicMs() + 2 * this.cluster.readLeaseMs;
    for (;;) {
      // Down: the failure detector found no call within a lease, and the next lease comes with a
      // heartbeat answer that lists the copy (it is queued now).
      const oss = this.upOss(ostId);
      if (!oss || !this.repairs.unannounced(ostId, objectId)) return;
      const now = this.clock.monotonicMs();
      const lapsesMs = this.cluster.readLeaseLapsesMs(oss.ossId);
      if (lapsesMs <= now) return;
      if (now >= giveUpMs)
        throw new StripeError(
          'REQ_UNAVAILABLE',
          `OST ${ostId}'s OSS could not be told that ${objectId} missed a write: report the skip again`,
          { osts: [ostId], objects: [objectId] },
        );
      try {
        const waitMs = Math.max(50, Math.min(SHORT_CALL_MS, lapsesMs - now));
        await call(
          this.clients.get(oss.grpcAddress),
          'MarkStale',
          { ostId, objectIds: [objectId] },
          deadlineIn(waitMs),
        );
        this.repairs.noteAnnounced(ostId, objectId);
        return;
      } catch {
        await sleep(Math.max(10, Math.min(100, lapsesMs - now)));
      }
    }
  }

  progress(): RecoveryProgress {
    const now = this.clock.monotonicMs();
    let bytesLeft = 0;
    let unestimatedTargets = 0;
    const state = this.cluster.state;
    for (const [key, record] of this.holders) {
      const { poolId, pg } = parsePgKey(key);
      const pool = state.pools.find((p) => p.id === poolId);
      if (!pool) continue;
      for (const target of targetsOf(pool.rule, record, placePg(state.map, pool, pg).osts)) {
        const bytes = this.estimates.get(taskKey({ poolId, pg, target }));
        if (bytes === undefined) unestimatedTargets++;
        else bytesLeft += bytes;
      }
    }
    const rateBytesPerSec = this.rate.bytesPerSec(now);
    const moving = this.holders.size > 0;
    return {
      activePgs: this.activePgs().size,
      pendingPgs: this.holders.size,
      bytesLeft,
      unestimatedTargets,
      rateBytesPerSec,
      etaSeconds: moving && rateBytesPerSec > 0 ? bytesLeft / rateBytesPerSec : moving ? null : 0,
    };
  }
}
