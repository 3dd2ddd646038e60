// Deep scrub, coordinated by the MDS: a task (every PG, or one) queues its
// PGs; at most maxActivePgs run at once, cluster-wide, each sent to the OSS
// of the PG's primary member (OssService.ScrubPg) with its share of
// maxBytesPerSec, so scrub is throttled the way recovery is. A PG that is not
// settled (moving, degraded) is skipped with its reason. Tasks and their
// progress live in memory (the last SCRUB_TASKS_KEPT); a background task of
// every PG starts every intervalMs (0: off).
import {
  type ChannelCache,
  type Clock,
  call,
  deadlineIn,
  type Logger,
  StripeError,
} from '../../common/index.js';
import type { OssServiceClient } from '../../proto/gen/stripefs/v1/OssService.js';
import type { RecoverSource, ScrubFinding__Output } from '../../proto/index.js';
import { ruleToWire } from '../../wire/index.js';
import type { ClusterService } from '../cluster/service.js';
import type { ClusterState } from '../cluster/state.js';
import { type HoldersTable, pgKey } from './holders.js';
import { pgsOfScope, planPgScrub, type ScrubMemberPlan, type ScrubScope } from './scrub-plan.js';

/** Tasks kept for `GET /api/scrub` (finished ones drop off the oldest first). */
export const SCRUB_TASKS_KEPT = 16;
/** Findings and skipped PGs one task lists (its counters count them all). */
export const SCRUB_TASK_FINDINGS_MAX = 1_000;
export const SCRUB_TASK_SKIPPED_MAX = 1_000;
/** Deadline of one ScrubPg call. */
export const SCRUB_PG_CALL_TIMEOUT_MS = 3_600_000;

export interface ScrubSettings {
  maxBytesPerSec: number;
  maxActivePgs: number;
  intervalMs: number;
}

export interface ScrubTaskFinding {
  pool: number;
  pg: number;
  objectId: string;
  ostId: number;
  position: number;
  problem: string;
  detail: string;
  fixed: boolean;
}

export interface ScrubTask {
  id: number;
  scope: string;
  trigger: 'admin' | 'background';
  repair: boolean;
  state: 'running' | 'done';
  startedAtMs: number;
  finishedAtMs: number | null;
  pgsTotal: number;
  pgsDone: number;
  pgsSkipped: number;
  pgsFailed: number;
  objectsScanned: number;
  bytesScanned: number;
  errorsFound: number;
  errorsFixed: number;
  objectsBusy: number;
  findings: ScrubTaskFinding[];
  skipped: { pool: number; pg: number; reason: string }[];
}

interface Queued {
  task: ScrubTask;
  poolId: number;
  pg: number;
}

export class ScrubService {
  readonly tasks: ScrubTask[] = [];
  private readonly queue: Queued[] = [];
  private readonly active = new Map<string, ScrubTask>();
  private nextId = 1;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly cluster: ClusterService,
    private readonly holders: HoldersTable,
    private readonly clock: Clock,
    private readonly logger: Logger,
    readonly settings: ScrubSettings,
    /** The MDS's one channel to each OSS (closed by its builder). */
    private readonly clients: ChannelCache<OssServiceClient>,
  ) {}

  start(): void {
    if (this.settings.intervalMs <= 0) return;
    this.timer = setInterval(() => {
      if (!this.tasks.some((t) => t.state === 'running' && t.trigger === 'background'))
        this.startTask(undefined, { trigger: 'background', repair: true });
    }, this.settings.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** PGs being scrubbed now (their state shows `scrubbing`). */
  scrubbingPgs(): ReadonlySet<string> {
    return new Set(this.active.keys());
  }

  task(id: number): ScrubTask {
    const found = this.tasks.find((t) => t.id === id);
    if (!found)
      throw new StripeError('REQ_INVALID', `no scrub task ${id} (the last ${SCRUB_TASKS_KEPT} are kept)`);
    return found;
  }

  /** Queues a task of every PG (or one) and returns it; PGs start as slots free up. */
  startTask(
    scope: ScrubScope | undefined,
    opts: { trigger: ScrubTask['trigger']; repair: boolean },
  ): ScrubTask {
    const state = this.cluster.state;
    if (scope) {
      const pool = state.pools.find((p) => p.id === scope.poolId);
      if (!pool) throw new StripeError('REQ_INVALID', `no pool ${scope.poolId}`, { poolId: scope.poolId });
      if (!Number.isInteger(scope.pg) || scope.pg < 0 || scope.pg >= pool.pgCount)
        throw new StripeError('REQ_INVALID', `pg ${scope.pg} outside pool ${pool.name} [0, ${pool.pgCount})`);
    }
    const pgs = pgsOfScope(state, scope);
    const task: ScrubTask = {
      id: this.nextId++,
      scope: scope ? `${scope.poolId}/${scope.pg}` : 'all',
      trigger: opts.trigger,
      repair: opts.repair,
      state: 'running',
      startedAtMs: this.clock.nowMs(),
      finishedAtMs: null,
      pgsTotal: pgs.length,
      pgsDone: 0,
      pgsSkipped: 0,
      pgsFailed: 0,
      objectsScanned: 0,
      bytesScanned: 0,
      errorsFound: 0,
      errorsFixed: 0,
      objectsBusy: 0,
      findings: [],
      skipped: [],
    };
    this.tasks.push(task);
    while (this.tasks.length > SCRUB_TASKS_KEPT) {
      const oldDone = this.tasks.findIndex((t) => t.state === 'done');
      if (oldDone < 0) break;
      this.tasks.splice(oldDone, 1);
    }
    for (const { poolId, pg } of pgs) this.queue.push({ task, poolId, pg });
    this.logger.info({ task: task.id, scope: task.scope, pgs: pgs.length }, 'deep scrub started');
    this.finishIfDone(task);
    this.pump();
    return task;
  }

  private pump(): void {
    while (!this.stopped && this.active.size < this.settings.maxActivePgs) {
      const index = this.queue.findIndex((q) => !this.active.has(pgKey(q.poolId, q.pg)));
      if (index < 0) return;
      const [item] = this.queue.splice(index, 1);
      const key = pgKey(item!.poolId, item!.pg);
      this.active.set(key, item!.task);
      void this.runPg(item!).finally(() => {
        this.active.delete(key);
        this.finishIfDone(item!.task);
        this.pump();
      });
    }
  }

  private finishIfDone(task: ScrubTask): void {
    if (task.state === 'done') return;
    if (task.pgsDone + task.pgsSkipped + task.pgsFailed < task.pgsTotal) return;
    task.state = 'done';
    task.finishedAtMs = this.clock.nowMs();
    const { id, errorsFound, errorsFixed, objectsScanned } = task;
    this.logger.info({ task: id, objectsScanned, errorsFound, errorsFixed }, 'deep scrub finished');
  }

  private async runPg(item: Queued): Promise<void> {
    const { task, poolId, pg } = item;
    const state = this.cluster.state;
    const plan = planPgScrub(state, this.holders, poolId, pg);
    if (!plan.ok) {
      task.pgsSkipped++;
      if (task.skipped.length < SCRUB_TASK_SKIPPED_MAX)
        task.skipped.push({ pool: poolId, pg, reason: plan.reason });
      return;
    }
    try {
      const members = this.membersOf(state, plan.members);
      const primary = members[0]!;
      const res = await call(
        this.clients.get(primary.grpcAddress),
        'ScrubPg',
        {
          poolId,
          pg,
          rule: ruleToWire(plan.pool.rule),
          members,
          mapEpoch: state.map.epoch,
          bytesPerSec: this.shareBytesPerSec(),
          repair: task.repair,
        },
        deadlineIn(SCRUB_PG_CALL_TIMEOUT_MS),
      );
      task.pgsDone++;
      task.objectsScanned += Number(res.objectsScanned);
      task.bytesScanned += Number(res.bytesScanned);
      task.errorsFound += Number(res.errorsFound);
      task.errorsFixed += Number(res.errorsFixed);
      task.objectsBusy += Number(res.objectsBusy);
      for (const f of res.findings) this.note(task, poolId, pg, f);
    } catch (err) {
      task.pgsFailed++;
      if (task.skipped.length < SCRUB_TASK_SKIPPED_MAX)
        task.skipped.push({ pool: poolId, pg, reason: `failed: ${(err as Error).message}` });
      this.logger.warn({ err: (err as Error).message, pg: pgKey(poolId, pg) }, 'deep scrub of a PG failed');
    }
  }

  private note(task: ScrubTask, pool: number, pg: number, f: ScrubFinding__Output): void {
    if (task.findings.length >= SCRUB_TASK_FINDINGS_MAX) return;
    const { objectId, ostId, position, problem, detail, fixed } = f;
    task.findings.push({ pool, pg, objectId, ostId, position, problem, detail, fixed });
  }

  private shareBytesPerSec(): number {
    const max = this.settings.maxBytesPerSec;
    return max <= 0 ? 0 : Math.max(1, Math.floor(max / this.settings.maxActivePgs));
  }

  private membersOf(
    state: ClusterState,
    members: ScrubMemberPlan[],
  ): (RecoverSource & { grpcAddress: string })[] {
    return members.map((m) => {
      const oss = state.oss.find((o) => o.osts.some((x) => x.id === m.ostId));
      if (!oss) throw new StripeError('MAP_UNKNOWN_OST', `no OSS serves ost${m.ostId}`, { ostId: m.ostId });
      return {
        ostId: m.ostId,
        grpcAddress: oss.grpcAddress,
        bulkAddress: oss.bulkAddress,
        position: m.position,
        inPlacement: true,
      };
    });
  }
}
