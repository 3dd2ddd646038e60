// The cluster map's IO shell: holds the state, persists every change (one
// synced batch: the current state plus the epoch's history entry) before it
// is published, tracks heartbeats and usage in memory (usage is not a map
// change), runs the failure detector on a timer and pushes every new epoch
// to watchers.
import { type Clock, LIMITS, type Logger, Semaphore, StripeError } from '../../common/index.js';
import { ostsLeavingPgs, type RuleSpec } from '../../placement/index.js';
import type { HeartbeatRequest__Output, RegisterOssRequest__Output } from '../../proto/index.js';
import type { GroupCommitter } from '../commit.js';
import type { BatchOp, MdsDb } from '../db.js';
import { KEYS } from '../keys.js';
import { type DetectorTimers, detectFailures, detectorStallMs, type OstLiveness } from './detector.js';
import { type FenceStatus, MapFences } from './fences.js';
import {
  addPool,
  adminReweight,
  adminSetIn,
  type ClusterState,
  findPool,
  initialState,
  registerOss,
  removeOsts,
  setStates,
} from './state.js';
import type { OstUsage } from './wire.js';

/** How often the failure detector runs; well under the 500 ms slack the down mark has. */
export const DETECTOR_TICK_MS = 100;

export type MapListener = (state: ClusterState) => void;

export class ClusterService {
  private current: ClusterState = initialState();
  private readonly mutex = new Semaphore(1);
  private readonly lastSeenMs = new Map<string, number>();
  private readonly downSinceMs = new Map<number, number>();
  readonly usage = new Map<number, OstUsage>();
  private readonly listeners = new Map<MapListener, () => void>();
  /** Called when the writable epoch moves on without a map change (a fence lifted). */
  private readonly writableListeners = new Set<(writableEpoch: number) => void>();
  /** Which epochs writes may use yet (fences.ts). */
  private readonly fences = new MapFences();
  private timer: NodeJS.Timeout | undefined;
  private lastTickMs: number | undefined;
  /** Time the detector did not run (MDS stalls), credited to the OSSs; see detectorStallMs. */
  stalledMs = 0;
  /** Extra writes that must commit in the same batch as a map change (recovery's holder records). */
  beforeCommit: ((prev: ClusterState, next: ClusterState) => BatchOp[]) | undefined;
  /** May amend a change before it commits (phased weights cap a new OST's first weight). */
  adjust: ((prev: ClusterState, next: ClusterState) => ClusterState) | undefined;
  /**
   * Why OSTs cannot leave the map yet: PGs that still hold data only they have, repairs that
   * wait for them (recovery sets it; one line per reason, empty when they may go).
   */
  removalBlockers: ((state: ClusterState, ostIds: ReadonlySet<number>) => string[]) | undefined;
  /** Sees every heartbeat's per-OST health (slow-disk detection). */
  onHeartbeat: ((req: HeartbeatRequest__Output) => void) | undefined;

  constructor(
    private readonly db: MdsDb,
    private readonly committer: GroupCommitter,
    private readonly clock: Clock,
    private readonly timers: DetectorTimers & { pgCount: number; heartbeatIntervalMs: number },
    private readonly logger: Logger,
  ) {}

  get heartbeatIntervalMs(): number {
    return this.timers.heartbeatIntervalMs;
  }

  /**
   * How long an OSS serves reads after it sent a registration or heartbeat that was answered: the
   * time without heartbeats after which an OST is marked down, so its lease lapses before a write
   * can skip it.
   */
  get readLeaseMs(): number {
    return this.timers.heartbeatTimeoutMs;
  }

  /**
   * When the read lease of the last call this MDS answered from `ossId` lapses (monotonic ms): until
   * then the OSS may serve reads on what that answer told it. Unheard since this MDS started (or
   * unknown): a whole lease from now, since it may hold one from the MDS before.
   */
  readLeaseLapsesMs(ossId: string): number {
    return (this.lastSeenMs.get(ossId) ?? this.clock.monotonicMs()) + this.readLeaseMs;
  }

  get state(): ClusterState {
    return this.current;
  }

  /** The newest map epoch writes may use (fences.ts): OSSs hold writes made with a newer one. */
  get writableEpoch(): number {
    return this.fences.writableEpoch(this.current.map.epoch);
  }

  fenceStatus(): FenceStatus {
    return this.fences.status(this.current.map.epoch);
  }

  /** Calls `listener` with the writable epoch each time it moves on; returns the unsubscribe. */
  onWritable(listener: (writableEpoch: number) => void): () => void {
    this.writableListeners.add(listener);
    return () => this.writableListeners.delete(listener);
  }

  /** Runs `change` on the fences and tells the listeners when the writable epoch moved on. */
  private fenced(change: (fences: MapFences) => void): void {
    const before = this.writableEpoch;
    change(this.fences);
    const after = this.writableEpoch;
    if (after > before) for (const listener of this.writableListeners) listener(after);
  }

  async init(): Promise<void> {
    const stored = (await this.db.get(KEYS.clusterCurrent)) as ClusterState | undefined;
    if (stored) this.current = stored;
    else await this.persist(this.current);
    // After a restart every OSS gets a full timeout to heartbeat again, and
    // OSTs already down start a new grace period.
    const now = this.clock.monotonicMs();
    for (const oss of this.current.oss) this.lastSeenMs.set(oss.ossId, now);
    for (const ost of this.current.map.osts) if (!ost.state.up) this.downSinceMs.set(ost.id, now);
    // The MDS before may have published this epoch without its fence lifted: any OSS may still
    // hold a lease it gave, with an older map.
    this.fences.open(
      this.current.map.epoch,
      this.current.oss.map((o) => o.ossId),
      now,
      this.readLeaseMs,
    );
  }

  start(): void {
    this.lastTickMs = this.clock.monotonicMs();
    this.timer = setInterval(
      () => void this.tick().catch((err) => this.logger.error({ err }, 'failure detector')),
      DETECTOR_TICK_MS,
    );
    this.timer.unref();
  }

  /** Stops the detector and ends every watch (their onStop runs). */
  stop(): void {
    clearInterval(this.timer);
    for (const onStop of this.listeners.values()) onStop();
    this.listeners.clear();
  }

  subscribe(listener: MapListener, onStop: () => void = () => {}): () => void {
    this.listeners.set(listener, onStop);
    return () => this.listeners.delete(listener);
  }

  private persist(state: ClusterState, extra: BatchOp[] = []): Promise<void> {
    const epoch = state.map.epoch;
    const ops: BatchOp[] = [
      ...extra,
      { type: 'put', key: KEYS.clusterCurrent, value: state },
      { type: 'put', key: KEYS.mapEpoch(epoch), value: state },
    ];
    if (epoch > LIMITS.mapHistoryEpochsMax)
      ops.push({ type: 'del', key: KEYS.mapEpoch(epoch - LIMITS.mapHistoryEpochsMax) });
    return this.committer.submit(ops);
  }

  /** One map change: computed, persisted, then published. Returns the state after it. */
  async change(edit: (state: ClusterState) => ClusterState | null, reason: string): Promise<ClusterState> {
    return this.mutex.run(async () => {
      const edited = edit(this.current);
      if (!edited || edited === this.current) return this.current;
      const next = this.adjust ? this.adjust(this.current, edited) : edited;
      if (next.map.epoch !== this.current.map.epoch + 1)
        throw new Error(`map change ${reason} skipped an epoch`);
      await this.persist(next, this.beforeCommit?.(this.current, next));
      const now = this.clock.monotonicMs();
      for (const ost of next.map.osts) {
        const before = this.current.map.osts.find((o) => o.id === ost.id);
        if (!ost.state.up && before?.state.up !== false) this.downSinceMs.set(ost.id, now);
      }
      this.fences.open(next.map.epoch, this.ossLeaving(this.current, next), now, this.readLeaseMs);
      this.current = next;
      this.logger.info({ epoch: next.map.epoch, reason }, 'map epoch');
      for (const listener of this.listeners.keys()) listener(next);
      return next;
    });
  }

  /** The OSSs whose OSTs some PG leaves from `prev` to `next`: the new epoch's fence waits for them. */
  private ossLeaving(prev: ClusterState, next: ClusterState): string[] {
    const leaving = ostsLeavingPgs(prev.map, prev.pools, next.map, next.pools);
    if (leaving.size === 0) return [];
    return [...prev.oss, ...next.oss]
      .filter((oss) => oss.osts.some((o) => leaving.has(o.id)))
      .map((oss) => oss.ossId);
  }

  /** Runs `work` with no map change in between (recovery updates holders this way). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.mutex.run(work);
  }

  /** A kept epoch, or MAP_UNKNOWN_EPOCH. */
  async atEpoch(epoch: number): Promise<ClusterState> {
    if (epoch === 0 || epoch === this.current.map.epoch) return this.current;
    const kept =
      epoch < this.current.map.epoch
        ? ((await this.db.get(KEYS.mapEpoch(epoch))) as ClusterState | undefined)
        : undefined;
    if (!kept)
      throw new StripeError(
        'MAP_UNKNOWN_EPOCH',
        `map epoch ${epoch} is not kept (current ${this.current.map.epoch})`,
        { epoch },
      );
    return kept;
  }

  /** Every kept state, oldest first (the destroy worker looks for objects under each). */
  async keptStates(): Promise<ClusterState[]> {
    const values = (await this.db.values(KEYS.mapEpochRange).all()) as ClusterState[];
    return values.length > 0 ? values : [this.current];
  }

  async register(req: RegisterOssRequest__Output): Promise<{ ids: Map<string, number>; epoch: number }> {
    let ids = new Map<string, number>();
    // Seen before the change, so the detector cannot mark it down again in between.
    this.lastSeenMs.set(req.ossId, this.clock.monotonicMs());
    this.fenced((f) => f.heard(req.ossId, this.clock.monotonicMs()));
    const state = await this.change((s) => {
      const result = registerOss(s, req);
      ids = result.ids;
      return result.state;
    }, `register ${req.ossId}`);
    for (const ost of req.osts) {
      const id = ids.get(ost.name);
      if (id !== undefined) this.usage.set(id, { usedBytes: ost.usedBytes, totalBytes: ost.totalBytes });
    }
    return { ids, epoch: state.map.epoch };
  }

  async heartbeat(req: HeartbeatRequest__Output): Promise<number> {
    const oss = this.current.oss.find((o) => o.ossId === req.ossId);
    if (!oss)
      throw new StripeError('MAP_UNKNOWN_OST', `OSS ${req.ossId} is not registered: register first`, {
        ossId: req.ossId,
      });
    this.lastSeenMs.set(req.ossId, this.clock.monotonicMs());
    this.fenced((f) => f.heard(req.ossId, this.clock.monotonicMs(), req.mapEpoch));
    this.onHeartbeat?.(req);
    for (const h of req.osts) {
      if (oss.osts.some((o) => o.id === h.ostId))
        this.usage.set(h.ostId, { usedBytes: h.usedBytes, totalBytes: h.totalBytes });
    }
    const revive = oss.osts.filter(
      (o) => this.current.map.osts.find((m) => m.id === o.id)?.state.up === false,
    );
    if (revive.length === 0) return this.current.map.epoch;
    const state = await this.change(
      (s) =>
        setStates(
          s,
          revive.map((o) => ({
            ostId: o.id,
            to: s.adminOut.includes(o.id) ? { up: true } : { up: true, in: true },
          })),
        ),
      `heartbeat ${req.ossId}`,
    );
    return state.map.epoch;
  }

  async admin(ostId: number, action: 'out' | 'in' | 'reweight', weight = 0): Promise<number> {
    const state = await this.change((s) => {
      if (action === 'reweight') return adminReweight(s, ostId, weight);
      return adminSetIn(s, ostId, action === 'in');
    }, `admin ${action} ${ostId}`);
    if (action === 'in') this.downSinceMs.set(ostId, this.clock.monotonicMs());
    return state.map.epoch;
  }

  /**
   * Removes OSTs for good (`stripefs ost rm`, Ceph's `osd purge`): each must be down and out,
   * and no PG may still need it; else MAP_OST_UP, MAP_OST_IN or MAP_OST_NOT_DRAINED says why.
   * Checked and applied as one map change, so recovery cannot start needing them in between.
   */
  async remove(ostIds: number[]): Promise<number> {
    const gone = new Set(ostIds);
    const state = await this.change(
      (s) => {
        for (const id of ostIds) {
          const ost = s.map.osts.find((o) => o.id === id);
          if (!ost)
            throw new StripeError('MAP_UNKNOWN_OST', `no ost${id} in the map (epoch ${s.map.epoch})`, {
              ostId: id,
            });
          if (ost.state.up)
            throw new StripeError(
              'MAP_OST_UP',
              `ost${id} is up: stop its OSS for good first (an OST is removed once it is down)`,
              { ostId: id },
            );
          if (ost.state.in)
            throw new StripeError(
              'MAP_OST_IN',
              `ost${id} is in: mark it out (stripefs ost out ${id}), wait for every PG to be clean (stripefs pg wait-clean), then remove it`,
              { ostId: id },
            );
        }
        const blockers = this.removalBlockers?.(s, gone) ?? [];
        if (blockers.length > 0)
          throw new StripeError(
            'MAP_OST_NOT_DRAINED',
            `${blockers.length} PGs still need ${ostIds.map((id) => `ost${id}`).join(', ')} (${blockers.slice(0, 3).join('; ')}${blockers.length > 3 ? '; ...' : ''}): wait until every PG is clean without them (stripefs pg wait-clean) and retry`,
            { ostIds, pgs: blockers.length },
          );
        return removeOsts(s, ostIds);
      },
      `remove ${ostIds.map((id) => `ost${id}`).join(' ')}`,
    );
    for (const id of ostIds) {
      this.usage.delete(id);
      this.downSinceMs.delete(id);
    }
    for (const ossId of this.lastSeenMs.keys())
      if (!state.oss.some((o) => o.ossId === ossId)) {
        this.lastSeenMs.delete(ossId);
        this.fenced((f) => f.forget(ossId));
      }
    return state.map.epoch;
  }

  async ensurePool(rule: RuleSpec): Promise<number> {
    const existing = findPool(this.current, rule);
    if (existing) return existing.id;
    const state = await this.change(
      (s) => (findPool(s, rule) ? null : addPool(s, rule, this.timers.pgCount)),
      'new pool',
    );
    return findPool(state, rule)!.id;
  }

  async tick(): Promise<void> {
    const now = this.clock.monotonicMs();
    const stall = detectorStallMs(this.lastTickMs, now, DETECTOR_TICK_MS);
    this.lastTickMs = now;
    this.fenced((f) => f.expire(now));
    if (stall > 0) {
      // The MDS did not run for `stall` ms: heartbeats sent meanwhile are still unread.
      // Nobody is marked down for that time; this tick only moves the clocks on.
      for (const [oss, seen] of this.lastSeenMs) this.lastSeenMs.set(oss, Math.min(now, seen + stall));
      for (const [ost, since] of this.downSinceMs) this.downSinceMs.set(ost, Math.min(now, since + stall));
      this.stalledMs += stall;
      this.logger.warn(
        { stallMs: Math.round(stall) },
        'failure detector did not run: heartbeat clocks moved on',
      );
      return;
    }
    // Decided inside the change, on the state it applies to (a heartbeat may have revived an OST meanwhile).
    await this.change((s) => {
      const actions = detectFailures(this.livenessOf(s, now), now, this.timers);
      if (actions.markDown.length === 0 && actions.markOut.length === 0) return null;
      const down = actions.markDown.map((ostId) => ({ ostId, to: { up: false } }));
      const out = actions.markOut.map((ostId) => ({ ostId, to: { in: false } }));
      return setStates(s, [...down, ...out]);
    }, 'failure detector');
  }

  private livenessOf(state: ClusterState, now: number): OstLiveness[] {
    const ossOfOst = new Map<number, string>();
    for (const oss of state.oss) for (const o of oss.osts) ossOfOst.set(o.id, oss.ossId);
    return state.map.osts.map((o) => ({
      id: o.id,
      up: o.state.up,
      in: o.state.in,
      lastSeenMs: this.lastSeenMs.get(ossOfOst.get(o.id) ?? '') ?? now,
      downSinceMs: this.downSinceMs.get(o.id) ?? now,
    }));
  }
}
