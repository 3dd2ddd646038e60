// Phased weight changes, the driver: `POST /api/phases` (stripefs ost
// reweight ID W --step S) records a phase (R/w/<ost>) and moves the OST's
// weight by one step whenever the cluster is clean: no PG moving, every PG
// clean (or scrubbing), no recovery task running. With mds.newOstWeightSteps
// > 1 an OST that joins starts at 1/steps of its capacity weight (applied in
// the registering map change itself, so no data moves towards the full weight
// first) and is phased in the same way (not while no pool exists: an empty
// cluster has nothing to move). Every step is one map epoch.
import { type Clock, type Logger, StripeError } from '../../common/index.js';
import { setOstWeight } from '../../placement/index.js';
import type { ClusterService } from '../cluster/service.js';
import type { ClusterState } from '../cluster/state.js';
import type { GroupCommitter } from '../commit.js';
import type { BatchOp, MdsDb } from '../db.js';
import { KEYS, numbersOfRecoveryKey } from '../keys.js';
import { settled, summarizeRecoveryPgs } from './progress.js';
import type { RecoveryService } from './service.js';
import { firstWeightOfNewOst, nextWeight, stepsTotal, type WeightPhase } from './weight-steps.js';

export const PHASE_TICK_MS = 500;
/** Weight steps below this would take too many epochs (weights are TiB). */
export const PHASE_STEP_WEIGHT_MIN = 1 / 65536;
/** Highest weight an OST may have (as adminReweight checks). */
const WEIGHT_MAX = 65535;

export class WeightPhases {
  readonly phases = new Map<number, WeightPhase>();
  private pendingOps: BatchOp[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stepping = false;
  /**
   * The map epoch that adds each OST phased in on joining. Its phase is kept in memory as that
   * map is made (adjust), before the map is persisted and current: a tick meanwhile must not take
   * the OST's absence from the current map for a removed OST and drop its phase (which left a
   * new OST at its first step for good).
   */
  private readonly joinEpoch = new Map<number, number>();

  constructor(
    private readonly db: MdsDb,
    private readonly committer: GroupCommitter,
    private readonly cluster: ClusterService,
    private readonly recovery: RecoveryService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly newOstSteps: number,
  ) {}

  async init(): Promise<void> {
    for (const [key, value] of await this.db.iterator(KEYS.weightPhaseRange).all()) {
      const [ostId] = numbersOfRecoveryKey(key);
      this.phases.set(ostId!, value as WeightPhase);
    }
    const before = this.cluster.beforeCommit;
    this.cluster.beforeCommit = (prev, next) => {
      const ops = [...(before?.(prev, next) ?? []), ...this.pendingOps];
      this.pendingOps = [];
      return ops;
    };
    if (this.newOstSteps > 1) this.cluster.adjust = (prev, next) => this.phaseInNewOsts(prev, next);
  }

  start(): void {
    this.timer = setInterval(() => void this.tick(), PHASE_TICK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Starts (or replaces) a phase; the first step is taken at the next clean tick. */
  async begin(ostId: number, targetWeight: number, stepWeight: number): Promise<WeightPhase> {
    const ost = this.cluster.state.map.osts.find((o) => o.id === ostId);
    if (!ost) throw new StripeError('MAP_UNKNOWN_OST', `no OST ${ostId}`, { ostId });
    if (!Number.isFinite(targetWeight) || targetWeight < 0 || targetWeight > WEIGHT_MAX)
      throw new StripeError(
        'REQ_INVALID',
        `weight ${targetWeight}: expected a number from 0 to ${WEIGHT_MAX}`,
      );
    if (!Number.isFinite(stepWeight) || stepWeight < PHASE_STEP_WEIGHT_MIN)
      throw new StripeError(
        'REQ_INVALID',
        `step ${stepWeight}: expected a weight of at least ${PHASE_STEP_WEIGHT_MIN}`,
      );
    const phase: WeightPhase = {
      ostId,
      fromWeight: ost.weight,
      targetWeight,
      stepWeight,
      stepsDone: 0,
      trigger: 'admin',
      startedAtMs: this.clock.nowMs(),
    };
    await this.committer.submit([{ type: 'put', key: KEYS.weightPhase(ostId), value: phase }]);
    this.phases.set(ostId, phase);
    void this.tick();
    return phase;
  }

  async cancel(ostId: number): Promise<boolean> {
    if (!this.phases.has(ostId)) return false;
    await this.committer.submit([{ type: 'del', key: KEYS.weightPhase(ostId) }]);
    this.phases.delete(ostId);
    this.joinEpoch.delete(ostId);
    return true;
  }

  /** Phases with their progress, for /api/phases, /api/health and `stripefs health`. */
  view(): (WeightPhase & { currentWeight: number; stepsTotal: number; waitingForClean: boolean })[] {
    const clean = this.clusterClean();
    return [...this.phases.values()].map((p) => ({
      ...p,
      currentWeight: this.cluster.state.map.osts.find((o) => o.id === p.ostId)?.weight ?? 0,
      stepsTotal: stepsTotal(p),
      waitingForClean: !clean,
    }));
  }

  clusterClean(): boolean {
    const r = this.recovery;
    if (r.holders.size > 0 || r.active.size > 0) return false;
    return settled(
      summarizeRecoveryPgs(
        this.cluster.state,
        r.holders,
        r.activePgs(),
        r.progress(),
        new Set(),
        r.repairs.pgs(r.active),
      ),
    );
  }

  /** Takes the next step of every phase when the cluster is clean; drops finished phases. */
  async tick(): Promise<void> {
    if (this.stepping || this.phases.size === 0 || !this.clusterClean()) return;
    this.stepping = true;
    try {
      for (const phase of [...this.phases.values()]) {
        const current = this.cluster.state.map.osts.find((o) => o.id === phase.ostId)?.weight;
        if (current === undefined && this.cluster.state.map.epoch < (this.joinEpoch.get(phase.ostId) ?? 0))
          continue; // its map is being committed
        const next = current === undefined ? null : nextWeight(phase, current);
        if (next === null) {
          await this.cancel(phase.ostId);
          this.logger.info({ ost: phase.ostId, weight: current }, 'weight phase done');
          continue;
        }
        const updated = { ...phase, stepsDone: phase.stepsDone + 1 };
        this.pendingOps.push({ type: 'put', key: KEYS.weightPhase(phase.ostId), value: updated });
        const epoch = await this.cluster.admin(phase.ostId, 'reweight', next);
        this.phases.set(phase.ostId, updated);
        this.logger.info({ ost: phase.ostId, weight: next, epoch, step: updated.stepsDone }, 'weight step');
      }
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'weight step failed; will retry');
    } finally {
      this.pendingOps = [];
      this.stepping = false;
    }
  }

  /** In a map change: OSTs that are new start at their first step, with a phase to the rest. */
  private phaseInNewOsts(prev: ClusterState, next: ClusterState): ClusterState {
    if (next.pools.length === 0) return next; // no data yet: nothing to move gradually
    const known = new Set(prev.map.osts.map((o) => o.id));
    const added = next.map.osts.filter((o) => !known.has(o.id) && o.weight > 0);
    if (added.length === 0) return next;
    let map = next.map;
    for (const ost of added) {
      const first = firstWeightOfNewOst(ost.weight, this.newOstSteps);
      map = { ...setOstWeight(map, ost.id, first), epoch: next.map.epoch };
      const phase: WeightPhase = {
        ostId: ost.id,
        fromWeight: 0,
        targetWeight: ost.weight,
        stepWeight: ost.weight / this.newOstSteps,
        stepsDone: 1,
        trigger: 'new-ost',
        startedAtMs: this.clock.nowMs(),
      };
      this.phases.set(ost.id, phase);
      this.joinEpoch.set(ost.id, next.map.epoch);
      this.pendingOps.push({ type: 'put', key: KEYS.weightPhase(ost.id), value: phase });
    }
    const manualWeight = [...new Set([...next.manualWeight, ...added.map((o) => o.id)])];
    return { ...next, map, manualWeight };
  }
}
