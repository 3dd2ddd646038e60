// Repairs of single objects: a scrub or a client reports a bad chunk
// (ReportBadChunk, or WRITE_SKIPPED for a copy a client's write or flush
// skipped while its OST was down); when the OST is up and placed to hold the
// object, a one-object task re-writes it there from a good copy (ec: rebuilt
// from k others) through the same RecoverPg path. A report for an OST that is
// down, or out of the PG's placement while the PG moves away from it, waits:
// an OST marked out and then in again before recovery moved its PGs is placed
// as it was, holds its copies as they were, and only the reports say which
// writes it missed. A waiting repair is dropped once recovery has marked that
// OST's copy of the PG stale (a full re-copy replaces it when it is placed
// again) or the OST neither is placed nor holds the PG. A repair that fails
// waits and is tried again, up to REPAIR_ATTEMPTS_MAX times, or for as long
// as it takes for a copy that missed writes (its OST refuses reads of it until
// then; given up, it would serve the old bytes after its OSS restarts). The queue is
// durable: a report is answered once its record is written (R/r/...), and the
// record goes only when the repair is done, dropped or given up, so an MDS
// restart finds every copy still waiting (and tells its OST again). The copies
// of one OST in one PG that missed writes are recorded one by one up to
// missedWritesPerPgMax (and while the queue has room): the next skip turns
// them into a full backfill of that OST's copy of the PG (a stale-copy
// record), which its OST refuses reads of as a whole until it is done.
import { StripeError } from '../../common/index.js';
import { objectToPg, placePg } from '../../placement/index.js';
import type { ClusterService } from '../cluster/service.js';
import type { ClusterState, PoolRecord } from '../cluster/state.js';
import type { BatchOp } from '../db.js';
import { KEYS } from '../keys.js';
import { pgKey, type ReturningPosition, upHolders } from './holders.js';
import { type RecoveryTask, staleKey } from './planner.js';

export interface RecoverySettings {
  /** Cluster-wide bytes/s; 0 unthrottled. */
  maxBytesPerSec: number;
  maxActivePgs: number;
  paused: boolean;
}

/** Repairs running at once, and waiting at most (more reports are dropped until there is room). */
export const REPAIRS_ACTIVE_MAX = 4;
export const REPAIRS_QUEUED_MAX = 10_000;

export interface BadChunkReport {
  ostId: number;
  objectId: string;
  reason: string;
  poolId: number;
  pg: number;
}

const CHUNK = /^(.*)\.c(\d+)$/;

/** The key placement hashes: the object id, or for an ec chunk its group. */
function placementKeyOf(pool: PoolRecord, objectId: string): { key: string; position: number | undefined } {
  if (pool.rule.kind !== 'erasure') return { key: objectId, position: undefined };
  const match = CHUNK.exec(objectId);
  return match ? { key: match[1]!, position: Number(match[2]) } : { key: objectId, position: undefined };
}

/** What the database keeps of a queued repair (its key names the OST and the object). */
export interface RepairRecord {
  poolId: number;
  pg: number;
  position: number | null;
  mode: RecoveryTask['mode'];
  announce: boolean;
}

/** A reported copy to rewrite: where it lives and what to do once its OST is placed and up. */
interface PendingRepair {
  poolId: number;
  pg: number;
  ostId: number;
  objectId: string;
  /** ec: the chunk's position; replicated: undefined (the OST's place in the placement). */
  position: number | undefined;
  mode: RecoveryTask['mode'];
  /**
   * The copy exists but missed writes (WRITE_SKIPPED): its OST is told to refuse reads of it until
   * the repair. Other reports need not be: a missing copy answers OBJ_NOT_FOUND, a rotten one
   * OBJ_CHECKSUM, and a new member's OBJ_NOT_FOUND during a move may be filled by the move first.
   */
  announce: boolean;
  /** Not started again before this (after a failure). */
  notBeforeMs: number;
  attempts: number;
}

/** First wait after a failed repair; it doubles up to REPAIR_RETRY_MS_MAX. */
const REPAIR_RETRY_MS_BASE = 500;
const REPAIR_RETRY_MS_MAX = 30_000;
/** Object ids per MarkStale call (the OSS takes up to 10,000). */
const MARK_STALE_IDS = 1_000;
/**
 * Attempts before a repair of a rotten or missing copy is given up (about 3 minutes of retries;
 * deep scrub finds the copy later). A copy that missed writes is never given up.
 */
const REPAIR_ATTEMPTS_MAX = 10;

/** What Repairs asks of the recovery service beyond one-object tasks. */
export interface RepairHooks {
  /** Queued WRITE_SKIPPED repairs of one OST in one PG at most; the next skip backfills the PG whole. */
  missedWritesPerPgMax: number;
  /**
   * Records durably that `ostId`'s copy of the PG is stale whole (a full backfill replaces it) and
   * tells its OST; resolves false when it already was.
   */
  backfillWhole: (ostId: number, poolId: number, pg: number) => Promise<boolean>;
  /** A write skipped a copy of a PG whose full backfill is pending: a backfill running now must run again. */
  skippedDuringBackfill: (ostId: number, poolId: number, pg: number) => void;
}

export class Repairs {
  private readonly queue = new Map<string, PendingRepair>();
  /** Queued WRITE_SKIPPED repairs per OST and PG (`staleKey`), kept with the queue. */
  private readonly missedPerPg = new Map<string, number>();
  /** Skipped copies recorded one by one, and PGs turned into a full backfill, since start. */
  missedWritesLogged = 0;
  missedWriteBackfills = 0;
  /** Copies a fill's target took from a source that had missed writes to them, queued for repair (fillInherits). */
  missedWritesInherited = 0;
  /** Queue keys whose OST was told (MarkStale) since it last came up: its reads refuse the copy. */
  private readonly announced = new Set<string>();
  /** Missed-write repairs running (taken off the queue until they end): their copies still lack writes. */
  private readonly repairing = new Map<string, PendingRepair>();
  /**
   * Each OST's state at the last announceDue, up and its OSS's address: coming back up, or an OSS
   * that restarted on a new address faster than the heartbeat timeout, resets what it was told.
   */
  private readonly seenBefore = new Map<number, string>();
  private announcing = false;
  reportsIgnored = 0;
  /** Repairs of rotten or missing copies that failed REPAIR_ATTEMPTS_MAX times and were given up. */
  repairsAbandoned = 0;

  constructor(
    private readonly cluster: ClusterService,
    /** Runs a repair task; resolves true when it succeeded. */
    private readonly start: (task: RecoveryTask) => Promise<boolean>,
    /** Whether recovery marked `ostId`'s copy of the PG stale (a full re-copy replaces it). */
    private readonly isStale: (ostId: number, poolId: number, pg: number) => boolean,
    /** The old holders of a PG that is moving (undefined when it is settled). */
    private readonly holdersOf: (poolId: number, pg: number) => readonly number[] | undefined,
    private readonly nowMs: () => number,
    /** Tells an OST's OSS which of its copies await repair (MarkStale), at most MARK_STALE_IDS ids a call. */
    private readonly markStale: (grpcAddress: string, ostId: number, objectIds: string[]) => Promise<void>,
    /** Writes queue records durably (the MDS's group commit). */
    private readonly persist: (ops: BatchOp[]) => Promise<void>,
    private readonly hooks: RepairHooks,
  ) {}

  /** Queues (or re-queues) a repair, keeping the per-PG count of missed writes. */
  private put(key: string, pending: PendingRepair): void {
    if (this.queue.has(key)) this.take(key);
    this.queue.set(key, pending);
    if (pending.announce) {
      const pg = staleKey(pending.ostId, pending.poolId, pending.pg);
      this.missedPerPg.set(pg, (this.missedPerPg.get(pg) ?? 0) + 1);
    }
  }

  private take(key: string): void {
    const pending = this.queue.get(key);
    if (!pending) return;
    this.queue.delete(key);
    if (!pending.announce) return;
    const pg = staleKey(pending.ostId, pending.poolId, pending.pg);
    const left = (this.missedPerPg.get(pg) ?? 1) - 1;
    if (left > 0) this.missedPerPg.set(pg, left);
    else this.missedPerPg.delete(pg);
  }

  /** Queued WRITE_SKIPPED repairs of `ostId` in the PG (the pg query shows them). */
  missedWritesOf(ostId: number, poolId: number, pg: number): number {
    return this.missedPerPg.get(staleKey(ostId, poolId, pg)) ?? 0;
  }

  /** Puts back the repairs the database kept (MDS start): each waits and runs as if just reported. */
  restore(records: { ostId: number; objectId: string; record: RepairRecord }[]): void {
    for (const { ostId, objectId, record } of records) {
      if (this.queue.size >= REPAIRS_QUEUED_MAX) break;
      this.put(`${ostId}/${objectId}`, {
        ...record,
        position: record.position ?? undefined,
        ostId,
        objectId,
        notBeforeMs: 0,
        attempts: 0,
      });
    }
  }

  /**
   * ec positions placed back on a holder while the member placed there meanwhile holds them for the
   * fill (holders.ts, ecReturning): that member's copies in the PG that missed writes are missed by
   * the returning holder too (the fill brings it that member's newest blocks, which lack them), so
   * each is queued for the returning holder as well, refused to its readers until repaired. Returns
   * the records to commit with the map change.
   */
  inheritMissed(moves: readonly ReturningPosition[]): BatchOp[] {
    const ops: BatchOp[] = [];
    for (const move of moves)
      for (const pending of [...this.queue.values()]) {
        if (!pending.announce || pending.ostId !== move.from) continue;
        if (pending.poolId !== move.poolId || pending.pg !== move.pg || pending.position !== move.position)
          continue;
        const key = `${move.to}/${pending.objectId}`;
        if (this.queue.has(key)) continue;
        const inherited: PendingRepair = { ...pending, ostId: move.to, notBeforeMs: 0, attempts: 0 };
        const record: RepairRecord = {
          poolId: inherited.poolId,
          pg: inherited.pg,
          position: inherited.position ?? null,
          mode: inherited.mode,
          announce: true,
        };
        ops.push({ type: 'put', key: KEYS.repair(move.to, pending.objectId), value: record });
        this.put(key, inherited);
      }
    return ops;
  }

  /**
   * The objects of a PG whose copies on `ostIds` missed writes: a repair of them queued or running
   * (replicated object ids). A fill copies such a copy as it is (fillInherits).
   */
  missedObjectsOf(ostIds: readonly number[], poolId: number, pg: number): Set<string> {
    const out = new Set<string>();
    for (const pending of [...this.queue.values(), ...this.repairing.values()])
      if (
        pending.announce &&
        pending.poolId === poolId &&
        pending.pg === pg &&
        ostIds.includes(pending.ostId)
      )
        out.add(pending.objectId);
    return out;
  }

  /**
   * A replicated fill's target once the fill is done: each object a source's copy of which missed
   * writes (missedObjectsOf, at the fill's start and at its end) is queued for the target too, refused
   * to its readers until repaired from a copy that took every write. Why: the fill copies an object
   * from the first source that serves it, at that source's version, and a source that missed a write
   * but took a later one is at a version no older than a copy that took both; its old bytes then
   * became the target's, with no mark, and the target served them once its fill was recorded done,
   * and was taken as the source of later repairs (chaos --seed 6 --minutes 3: a fill of ost 5 from
   * ost 0 alone, whose copy of 3.0 awaited a missed write's repair, the other holders down). Returns
   * the records to commit with the fill's completion and what to queue once they are committed.
   */
  fillInherits(
    target: number,
    poolId: number,
    pg: number,
    objectIds: Iterable<string>,
  ): { ops: BatchOp[]; queue: () => void } {
    const ops: BatchOp[] = [];
    const inherited: PendingRepair[] = [];
    for (const objectId of objectIds) {
      if (this.queue.get(`${target}/${objectId}`)?.announce) continue;
      const pending: PendingRepair = {
        poolId,
        pg,
        ostId: target,
        objectId,
        position: undefined,
        mode: 'all',
        announce: true,
        notBeforeMs: 0,
        attempts: 0,
      };
      const record: RepairRecord = { poolId, pg, position: null, mode: 'all', announce: true };
      ops.push({ type: 'put', key: KEYS.repair(target, objectId), value: record });
      inherited.push(pending);
    }
    return {
      ops,
      queue: () => {
        for (const pending of inherited) this.put(`${target}/${pending.objectId}`, pending);
        this.missedWritesInherited += inherited.length;
      },
    };
  }

  /** Removes a repair's record (done, dropped or given up); a record left by a failed write only repeats the repair. */
  private forget(pending: PendingRepair): void {
    // A record a failed write leaves behind repeats the repair after a restart: a versioned copy never goes back.
    this.persist([{ type: 'del', key: KEYS.repair(pending.ostId, pending.objectId) }]).catch(() => undefined);
  }

  /**
   * Tells every up OST which of its copies missed writes and await their repair, so its reads refuse them
   * (OBJ_STALE) and readers take another copy; again whenever the OST comes back up, since an
   * OSS keeps the list in memory. A repair starts only once its OST was told (startDue), so a
   * late MarkStale cannot mark a copy the repair already rewrote. `state`: the state about to be
   * committed, when a map change brings an OST back (told before clients hear of the new map).
   */
  async announceDue(state: ClusterState = this.cluster.state): Promise<void> {
    if (this.announcing) return;
    const up = new Map(state.map.osts.map((o) => [o.id, o.state.up]));
    const addressOf = new Map(
      state.oss.flatMap((oss) => oss.osts.map((o) => [o.id, oss.grpcAddress] as const)),
    );
    for (const [ostId, isUp] of up) {
      const seen = isUp ? `up ${addressOf.get(ostId) ?? ''}` : 'down';
      if (isUp && this.seenBefore.get(ostId) !== seen)
        for (const key of this.announced) if (key.startsWith(`${ostId}/`)) this.announced.delete(key);
      this.seenBefore.set(ostId, seen);
    }
    for (const key of this.announced) if (!this.queue.has(key)) this.announced.delete(key);
    const byOst = new Map<number, string[]>();
    for (const [key, pending] of this.queue) {
      if (!pending.announce || this.announced.has(key) || !up.get(pending.ostId)) continue;
      byOst.set(pending.ostId, [...(byOst.get(pending.ostId) ?? []), pending.objectId]);
    }
    if (byOst.size === 0) return;
    this.announcing = true;
    try {
      await Promise.all(
        [...byOst]
          .map(async ([ostId, ids]) => {
            for (let at = 0; at < ids.length; at += MARK_STALE_IDS) {
              const part = ids.slice(at, at + MARK_STALE_IDS);
              await this.markStale(addressOf.get(ostId) ?? '', ostId, part);
              for (const id of part) this.announced.add(`${ostId}/${id}`);
            }
          })
          // Each repair records its own failure and backoff; the tick only waits for all of them.
          .map((p) => p.catch(() => undefined)),
      );
    } finally {
      this.announcing = false;
    }
  }

  /**
   * Whether `ostId` may hold the PG's object again: placed now, or an old holder of the PG while it
   * moves (marked out, it may come back in before recovery moves anything and be placed as before).
   */
  private mayHold(
    pool: PoolRecord,
    pg: number,
    placement: readonly number[],
    ostId: number,
    position: number | undefined,
  ): boolean {
    if (position === undefined ? placement.includes(ostId) : placement[position] === ostId) return true;
    const holders = this.holdersOf(pool.id, pg);
    return (
      holders !== undefined &&
      (position === undefined ? holders.includes(ostId) : holders[position] === ostId)
    );
  }

  /**
   * The copies of `ostIds` that missed writes and await repair, for the OSS's registration and
   * heartbeat answers: an OSS hears them there, where MarkStale may not reach it or arrive late.
   * Those whose repair is running are listed too: the OSS forgets a mark the list leaves out, and
   * the copy lacks the write until the repair has rewritten it (which clears the mark there). Left
   * out, a copy was served to readers and fills for as long as each attempt at its repair ran, and
   * a repair that failed (a write newer than its source's, a source down) left it served until the
   * next answer (chaos --seed 6 --minutes 3: a fill copied 3.0 from ost 0 during the repair of its
   * missed write, and the filled copy served the bytes from before it).
   */
  staleCopiesOf(ostIds: readonly number[]): { ostId: number; objectIds: string[] }[] {
    const byOst = new Map<number, string[]>(ostIds.map((id) => [id, []]));
    for (const [key, pending] of [...this.queue, ...this.repairing])
      if (pending.announce && (this.queue.get(key) === pending || !this.queue.has(key)))
        byOst.get(pending.ostId)?.push(pending.objectId);
    return [...byOst].filter(([, ids]) => ids.length > 0).map(([ostId, objectIds]) => ({ ostId, objectIds }));
  }

  get queued(): number {
    return this.queue.size;
  }

  /** Whether the copy's OST must refuse reads of it and has not yet been told so (MarkStale). */
  unannounced(ostId: number, objectId: string): boolean {
    const key = `${ostId}/${objectId}`;
    return this.queue.get(key)?.announce === true && !this.announced.has(key);
  }

  /** The copy's OST was told to refuse reads of it (a MarkStale sent outside announceDue). */
  noteAnnounced(ostId: number, objectId: string): void {
    const key = `${ostId}/${objectId}`;
    if (this.queue.has(key)) this.announced.add(key);
  }

  /** Queued repairs whose OST has been told to refuse reads of the copy. */
  get announcedCount(): number {
    return [...this.announced].filter((key) => this.queue.has(key)).length;
  }

  /** The first `max` queued repairs, for /api/recovery. */
  list(max: number): { pool: number; pg: number; ostId: number; objectId: string; attempts: number }[] {
    return [...this.queue.values()].slice(0, max).map((p) => ({
      pool: p.poolId,
      pg: p.pg,
      ostId: p.ostId,
      objectId: p.objectId,
      attempts: p.attempts,
    }));
  }

  /** PG keys with a repair queued and with one running (`active`: the recovery service's tasks). */
  pgs(active: ReadonlyMap<string, { task: RecoveryTask }>): { queued: Set<string>; active: Set<string> } {
    return {
      queued: new Set([...this.queue.values()].map((p) => pgKey(p.poolId, p.pg))),
      active: new Set(
        [...active.values()]
          .filter((a) => a.task.objectIds.length > 0)
          .map((a) => pgKey(a.task.poolId, a.task.pg)),
      ),
    };
  }

  /**
   * Queues the repair of a reported object, durably: resolves once its record is written; false
   * when no pool holds it or the queue is full.
   */
  async report(bad: BadChunkReport): Promise<boolean> {
    if (bad.reason === 'WRITE_SKIPPED') this.refuseUnplaced(bad);
    const pending = this.pendingOf(bad);
    const key = `${bad.ostId}/${bad.objectId}`;
    if (pending?.announce) {
      const { ostId, poolId, pg } = pending;
      // Already to be backfilled whole: the backfill brings this write too (run again if it is running).
      if (this.isStale(ostId, poolId, pg)) {
        this.hooks.skippedDuringBackfill(ostId, poolId, pg);
        return true;
      }
      // Checked again when the copy already awaits a repair: the current copy its first skip left may
      // have stopped being one since (its PG moved off it), and this write is on none other then.
      this.refuseLastCurrent(pending);
      const full = this.queue.size >= REPAIRS_QUEUED_MAX;
      if (
        !this.queue.has(key) &&
        (full || this.missedWritesOf(ostId, poolId, pg) >= this.hooks.missedWritesPerPgMax)
      ) {
        await this.backfillWhole(ostId, poolId, pg);
        return true;
      }
    } else if (this.queue.size >= REPAIRS_QUEUED_MAX && !this.queue.has(key)) {
      this.reportsIgnored++;
      return false;
    }
    if (!pending) {
      this.reportsIgnored++;
      return false;
    }
    const record: RepairRecord = {
      poolId: pending.poolId,
      pg: pending.pg,
      position: pending.position ?? null,
      mode: pending.mode,
      announce: pending.announce,
    };
    await this.persist([{ type: 'put', key: KEYS.repair(bad.ostId, bad.objectId), value: record }]);
    if (pending.announce && !this.queue.has(key)) this.missedWritesLogged++;
    this.put(key, pending);
    return true;
  }

  /**
   * Where a repair of a copy reads from: the other members up that hold the PG (a member still
   * being filled may lack the object, or hold a part of it), then, ec only, the PG's old holders of
   * other chunk positions while it moves. Never a copy of the same object that missed a write itself
   * (it refuses reads of it, and a listing of it may lack the object: the repair found nothing to
   * copy and was done), and never an old holder of the copy's own position (replicated: any old
   * holder): an old holder took no write since its PG moved, and the copy being repaired missed one
   * of those. Old chunks of other positions are decoded only with a placed chunk of the same write
   * (block stamps).
   */
  private repairSources(
    pool: PoolRecord,
    placement: readonly number[],
    record: readonly number[] | undefined,
    repair: { ostId: number; objectId: string; at: number },
  ): RecoveryTask['sources'] {
    const map = this.cluster.state.map;
    const erasure = pool.rule.kind === 'erasure';
    const group = erasure ? repair.objectId.replace(/\.c\d+$/, '') : repair.objectId;
    const holds = (h: { ostId: number; position: number }): boolean =>
      !record || (erasure ? record[h.position] === h.ostId : record.includes(h.ostId));
    const missed = (h: { ostId: number; position: number }): boolean => {
      const key = `${h.ostId}/${erasure ? `${group}.c${h.position}` : repair.objectId}`;
      return this.queue.get(key)?.announce === true || this.repairing.has(key);
    };
    const usable = (h: { ostId: number; position: number }): boolean =>
      h.ostId !== repair.ostId && !missed(h);
    const members = upHolders(map, placement)
      .filter((h) => usable(h) && holds(h))
      .map((h) => ({ ...h, inPlacement: true }));
    const old = erasure
      ? upHolders(map, record ?? [])
          .filter((h) => usable(h) && h.position !== repair.at && !members.some((m) => m.ostId === h.ostId))
          .map((h) => ({ ...h, inPlacement: false }))
      : [];
    return [...members, ...old];
  }

  /**
   * Refuses (IO_COPIES_STALE, so the write is not acknowledged) a skip that would leave no current
   * copy of the object besides the skipped one (ec: fewer than k current chunks of the stripe). A
   * copy is current when its OST holds the PG (not a member still being filled: its fill needs
   * current copies too), no repair of it for a missed write is queued or running, and its copy of
   * the PG awaits no full backfill. Why: copies that each missed a different write (their OSSs stopped one after
   * another while their repairs waited) can be repaired from none of them, and they refuse reads
   * until repaired: the object could no longer be read or repaired, and its PG stayed degraded for
   * good (chaos seed 2: a replicated:3 object with a missed-write repair queued on all three copies;
   * seed 3: an ec:2+2 stripe with two chunks awaiting repair, a third on the old holder of a position
   * whose new member was being filled).
   */
  private refuseLastCurrent(skip: PendingRepair): void {
    const state = this.cluster.state;
    const pool = state.pools.find((p) => p.id === skip.poolId);
    if (!pool) return;
    const erasure = pool.rule.kind === 'erasure';
    const group = erasure ? skip.objectId.replace(/\.c\d+$/, '') : skip.objectId;
    const record = this.holdersOf(pool.id, skip.pg);
    const current = (ostId: number, position: number): boolean => {
      if (ostId < 0 || ostId === skip.ostId) return false;
      if (record && !(erasure ? record[position] === ostId : record.includes(ostId))) return false;
      const objectId = erasure ? `${group}.c${position}` : skip.objectId;
      const key = `${ostId}/${objectId}`;
      const missed = this.queue.get(key)?.announce === true || this.repairing.has(key);
      return !missed && !this.isStale(ostId, pool.id, skip.pg);
    };
    const left = placePg(state.map, pool, skip.pg).osts.filter(current).length;
    const needed = pool.rule.kind === 'erasure' ? pool.rule.k : 1;
    if (left >= needed) return;
    throw new StripeError(
      'IO_COPIES_STALE',
      `the write skipped ${skip.objectId} on OST ${skip.ostId}, which would leave ${left} current copies (${needed} needed; the others missed writes or are being filled): not acknowledged`,
      { objects: [skip.objectId], osts: [skip.ostId] },
    );
  }

  /**
   * Refuses (MAP_STALE, so the writer refreshes its map and writes again) a skip of a copy its PG is
   * no longer placed on (ec: at its chunk position): the write was made with an older map, so the
   * PG's members now, those that replaced the skipped one, may lack it. Why: a writer whose map
   * still placed the PG on an OST that had left it (reweighted away, its OSS stopped meanwhile)
   * skipped that OST as down and wrote the other copies; the skip was recorded against the old
   * holder, the write acknowledged, and the member placed instead never had it (chaos suite seed 7).
   */
  private refuseUnplaced(bad: BadChunkReport): void {
    const state = this.cluster.state;
    const pool = state.pools.find((p) => p.id === bad.poolId);
    if (!pool || bad.pg >= pool.pgCount) return;
    const { key, position } = placementKeyOf(pool, bad.objectId);
    if (objectToPg(pool, key) !== bad.pg) return;
    const placement = placePg(state.map, pool, bad.pg).osts;
    if (position === undefined ? placement.includes(bad.ostId) : placement[position] === bad.ostId) return;
    throw new StripeError(
      'MAP_STALE',
      `the write skipped ${bad.objectId} on OST ${bad.ostId}, which its PG is no longer placed on under map epoch ${state.map.epoch}: write it again with the newer map`,
      { epoch: state.map.epoch, objects: [bad.objectId], osts: [bad.ostId] },
    );
  }

  /**
   * Turns an OST's missed writes in a PG into a full backfill: the stale-copy record first (durable,
   * its OST told), then the one-by-one records it replaces are dropped.
   */
  private async backfillWhole(ostId: number, poolId: number, pg: number): Promise<void> {
    if (await this.hooks.backfillWhole(ostId, poolId, pg)) this.missedWriteBackfills++;
    const ops: BatchOp[] = [];
    for (const [key, pending] of [...this.queue])
      if (pending.ostId === ostId && pending.poolId === poolId && pending.pg === pg) {
        this.take(key);
        ops.push({ type: 'del', key: KEYS.repair(ostId, pending.objectId) });
      }
    await this.persist(ops);
  }

  private pendingOf(bad: BadChunkReport): PendingRepair | undefined {
    const state = this.cluster.state;
    const pools = bad.poolId > 0 ? state.pools.filter((p) => p.id === bad.poolId) : state.pools;
    for (const pool of pools) {
      const { key, position } = placementKeyOf(pool, bad.objectId);
      const pg = bad.poolId > 0 && bad.pg < pool.pgCount ? bad.pg : objectToPg(pool, key);
      if (objectToPg(pool, key) !== pg) continue;
      if (!this.mayHold(pool, pg, placePg(state.map, pool, pg).osts, bad.ostId, position)) continue;
      return {
        poolId: pool.id,
        pg,
        ostId: bad.ostId,
        objectId: bad.objectId,
        position,
        mode: bad.reason === 'OBJ_NOT_FOUND' ? 'absent' : 'all',
        announce: bad.reason === 'WRITE_SKIPPED',
        notBeforeMs: 0,
        attempts: 0,
      };
    }
    return undefined;
  }

  startDue(active: ReadonlyMap<string, { task: RecoveryTask }>): void {
    let running = [...active.values()].filter((a) => a.task.objectIds.length > 0).length;
    const state = this.cluster.state;
    const now = this.nowMs();
    for (const [key, pending] of this.queue) {
      if (running >= REPAIRS_ACTIVE_MAX) return;
      const pool = state.pools.find((p) => p.id === pending.poolId);
      const placement = pool ? placePg(state.map, pool, pending.pg).osts : [];
      if (
        !pool ||
        this.isStale(pending.ostId, pending.poolId, pending.pg) ||
        !this.mayHold(pool, pending.pg, placement, pending.ostId, pending.position)
      ) {
        this.take(key);
        this.forget(pending);
        continue;
      }
      if (pending.notBeforeMs > now || (pending.announce && !this.announced.has(key))) continue;
      // Waits while its OST is down or not placed to hold the object (out, or moved away for now).
      if (!state.map.osts.find((o) => o.id === pending.ostId)?.state.up) continue;
      const at = pending.position ?? placement.indexOf(pending.ostId);
      if (at < 0 || placement[at] !== pending.ostId) continue;
      const record = this.holdersOf(pool.id, pending.pg);
      const sources = this.repairSources(pool, placement, record, { ...pending, at });
      if (sources.length < (pool.rule.kind === 'erasure' ? pool.rule.k : 1)) {
        // A single-copy object (raid0) of a settled PG has nothing to be rebuilt from.
        if (!record && pool.rule.kind === 'replicated' && placement.length <= 1) {
          this.take(key);
          this.forget(pending);
        }
        continue;
      }
      this.take(key);
      if (pending.announce) this.repairing.set(key, pending);
      running++;
      const task: RecoveryTask = {
        poolId: pool.id,
        pg: pending.pg,
        target: { ostId: pending.ostId, position: at },
        sources,
        mode: pending.mode,
        lost: false,
        objectIds: [pending.objectId],
      };
      void this.start(task).then((done) => {
        this.repairing.delete(key);
        const attempts = pending.attempts + 1;
        // Reported again while it ran: the new report's record stays.
        if (this.queue.has(key)) return;
        if (done || this.queue.size >= REPAIRS_QUEUED_MAX) {
          this.forget(pending);
          return;
        }
        if (attempts >= REPAIR_ATTEMPTS_MAX && !pending.announce) {
          this.repairsAbandoned++;
          this.forget(pending);
          return;
        }
        const waitMs = Math.min(REPAIR_RETRY_MS_MAX, REPAIR_RETRY_MS_BASE * 2 ** Math.min(attempts - 1, 16));
        this.put(key, { ...pending, attempts, notBeforeMs: this.nowMs() + waitMs });
      });
    }
  }
}
