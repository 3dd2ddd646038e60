// Deep scrub, coordinated by the MDS: a task (every PG, or one) queues its
// PGs; at most maxActivePgs run at once, cluster-wide, each sent to the OSS
// of the PG's primary member (OssService.ScrubPg) with its share of
// maxBytesPerSec, so scrub is throttled the way recovery is. A PG that is not
// settled (moving, degraded) is skipped with its reason. Tasks and each PG's
// last deep scrub are durable (scrub-store.ts): a restarted MDS shows the
// last SCRUB_TASKS_KEPT tasks with what they found and resumes a running one
// with the PGs it had not finished. A background task scrubs the PGs whose
// last deep scrub is older than intervalMs (0: off), checked every
// SCRUB_DUE_CHECK_MS_MAX at most.

import type { Config } from '../../common/config.js';
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
import type { BatchOp, MdsDb } from '../db.js';
import { KEYS } from '../keys.js';
import { type HoldersTable, pgKey } from './holders.js';
import { pgsOfScope, planPgScrub, type ScrubMemberPlan, type ScrubScope } from './scrub-plan.js';
import {
  addResult,
  forgetTaskOps,
  loadScrubState,
  type ScrubPgResult,
  type ScrubStamp,
  type ScrubTaskHeader,
  taskOf,
} from './scrub-store.js';

/** Tasks kept for `GET /api/scrub` (finished ones drop off the oldest first). */
export const SCRUB_TASKS_KEPT = 16;
/** Findings and skipped PGs one task lists (its counters count them all). */
export const SCRUB_TASK_FINDINGS_MAX = 1_000;
export const SCRUB_TASK_SKIPPED_MAX = 1_000;
/** Deadline of one ScrubPg call. */
export const SCRUB_PG_CALL_TIMEOUT_MS = 3_600_000;
/** How often at most the background schedule looks for due PGs (a quarter of the interval when shorter). */
export const SCRUB_DUE_CHECK_MS_MAX = 60_000;
const LIST_LIMITS = { findingsMax: SCRUB_TASK_FINDINGS_MAX, skippedMax: SCRUB_TASK_SKIPPED_MAX };

export interface ScrubSettings {
  maxBytesPerSec: number;
  maxActivePgs: number;
  intervalMs: number;
}

export function scrubSettingsOf(config: Config): ScrubSettings {
  return {
    maxBytesPerSec: config['mds.scrubMaxBytesPerSec'],
    maxActivePgs: config['mds.scrubMaxActivePgs'],
    intervalMs: config['mds.scrubIntervalMs'],
  };
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
  /** Times an MDS restart found the task running and resumed it (its finished PGs are kept). */
  resumes: number;
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
  private readonly headers = new Map<number, ScrubTaskHeader>();
  private readonly stamps = new Map<string, ScrubStamp>();
  private readonly queue: Queued[] = [];
  private readonly active = new Map<string, ScrubTask>();
  private nextId = 1;
  /** When background scheduling began: a PG never scrubbed is due intervalMs after it. */
  private originMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private backgroundStarting = false;
  private stopped = false;

  constructor(
    private readonly cluster: ClusterService,
    private readonly holders: HoldersTable,
    private readonly clock: Clock,
    private readonly logger: Logger,
    readonly settings: ScrubSettings,
    /** The MDS's one channel to each OSS (closed by its builder). */
    private readonly clients: ChannelCache<OssServiceClient>,
    private readonly db: MdsDb,
    /** Writes records durably (the MDS's group commit). */
    private readonly persist: (ops: BatchOp[]) => Promise<void>,
  ) {}

  /** Loads the stamps and tasks; a task that was running is queued again with the PGs it had not finished. */
  async init(): Promise<void> {
    const loaded = await loadScrubState(this.db);
    for (const [key, stamp] of loaded.stamps) this.stamps.set(key, stamp);
    this.originMs = loaded.originMs ?? this.clock.nowMs();
    if (loaded.originMs === undefined)
      await this.persist([{ type: 'put', key: KEYS.scrubOrigin, value: this.originMs }]);
    for (const { header, results } of loaded.tasks) {
      const running = header.state === 'running';
      const resumed = running ? { ...header, resumes: header.resumes + 1 } : header;
      const task = taskOf(resumed, results, LIST_LIMITS);
      this.headers.set(task.id, resumed);
      this.tasks.push(task);
      this.nextId = Math.max(this.nextId, task.id + 1);
      if (!running) continue;
      await this.persist([{ type: 'put', key: KEYS.scrubTask(task.id), value: resumed }]);
      const left = header.pgs.filter(([poolId, pg]) => !results.has(pgKey(poolId, pg)));
      for (const [poolId, pg] of left) this.queue.push({ task, poolId, pg });
      this.logger.info({ task: task.id, pgsLeft: left.length }, 'deep scrub resumed after a restart');
    }
    await this.trim();
  }

  start(): void {
    for (const task of this.tasks) void this.finishIfDone(task);
    this.pump();
    if (this.settings.intervalMs <= 0) return;
    const checkMs = Math.max(1, Math.min(SCRUB_DUE_CHECK_MS_MAX, Math.floor(this.settings.intervalMs / 4)));
    this.timer = setInterval(() => void this.startBackground(), checkMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  /** A background task of the PGs due (last deep scrub older than intervalMs), unless one runs. */
  private async startBackground(): Promise<void> {
    if (this.stopped || this.backgroundStarting) return;
    if (this.tasks.some((t) => t.state === 'running' && t.trigger === 'background')) return;
    const due = this.duePgs();
    if (due.length === 0) return;
    this.backgroundStarting = true;
    try {
      await this.startTask(undefined, { trigger: 'background', repair: true }, due);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'background deep scrub did not start');
    } finally {
      this.backgroundStarting = false;
    }
  }

  /** PGs whose last deep scrub (or, never scrubbed, the schedule's start) is intervalMs old. */
  duePgs(): ScrubScope[] {
    const now = this.clock.nowMs();
    return pgsOfScope(this.cluster.state, undefined).filter(({ poolId, pg }) => {
      const last = this.stamps.get(pgKey(poolId, pg))?.lastDeepScrubMs ?? this.originMs;
      return last + this.settings.intervalMs <= now;
    });
  }

  /** A PG's last completed deep scrub, for the PG query. */
  stampOf(poolId: number, pg: number): ScrubStamp | undefined {
    return this.stamps.get(pgKey(poolId, pg));
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

  /**
   * Queues a task of every PG (or one, or the `pgs` given) and returns it once its header is
   * written; PGs start as slots free up.
   */
  async startTask(
    scope: ScrubScope | undefined,
    opts: { trigger: ScrubTask['trigger']; repair: boolean },
    pgs: ScrubScope[] = this.checkedPgs(scope),
  ): Promise<ScrubTask> {
    const header: ScrubTaskHeader = {
      id: this.nextId++,
      scope: scope ? `${scope.poolId}/${scope.pg}` : pgs.length < this.allPgsCount() ? 'due' : 'all',
      trigger: opts.trigger,
      repair: opts.repair,
      state: 'running',
      startedAtMs: this.clock.nowMs(),
      finishedAtMs: null,
      resumes: 0,
      pgs: pgs.map(({ poolId, pg }) => [poolId, pg]),
    };
    await this.persist([{ type: 'put', key: KEYS.scrubTask(header.id), value: header }]);
    const task = taskOf(header, new Map(), LIST_LIMITS);
    this.headers.set(task.id, header);
    this.tasks.push(task);
    await this.trim();
    for (const { poolId, pg } of pgs) this.queue.push({ task, poolId, pg });
    this.logger.info({ task: task.id, scope: task.scope, pgs: pgs.length }, 'deep scrub started');
    await this.finishIfDone(task);
    this.pump();
    return task;
  }

  private allPgsCount(): number {
    return this.cluster.state.pools.reduce((sum, p) => sum + p.pgCount, 0);
  }

  private checkedPgs(scope: ScrubScope | undefined): ScrubScope[] {
    const state = this.cluster.state;
    if (scope) {
      const pool = state.pools.find((p) => p.id === scope.poolId);
      if (!pool) throw new StripeError('REQ_INVALID', `no pool ${scope.poolId}`, { poolId: scope.poolId });
      if (!Number.isInteger(scope.pg) || scope.pg < 0 || scope.pg >= pool.pgCount)
        throw new StripeError('REQ_INVALID', `pg ${scope.pg} outside pool ${pool.name} [0, ${pool.pgCount})`);
    }
    return pgsOfScope(state, scope);
  }

  /** Drops finished tasks beyond SCRUB_TASKS_KEPT, oldest first, with their records. */
  private async trim(): Promise<void> {
    const ops: BatchOp[] = [];
    while (this.tasks.length > SCRUB_TASKS_KEPT) {
      const oldDone = this.tasks.findIndex((t) => t.state === 'done');
      if (oldDone < 0) break;
      const [dropped] = this.tasks.splice(oldDone, 1);
      const header = this.headers.get(dropped!.id);
      this.headers.delete(dropped!.id);
      if (header) ops.push(...forgetTaskOps(header));
    }
    await this.persist(ops);
  }

  private pump(): void {
    while (!this.stopped && this.active.size < this.settings.maxActivePgs) {
      const index = this.queue.findIndex((q) => !this.active.has(pgKey(q.poolId, q.pg)));
      if (index < 0) return;
      const [item] = this.queue.splice(index, 1);
      const key = pgKey(item!.poolId, item!.pg);
      this.active.set(key, item!.task);
      void this.runPg(item!)
        .then((result) => this.record(item!, result))
        .catch((err: Error) => this.logger.error({ err: err.message, pg: key }, 'deep scrub result not kept'))
        .finally(() => {
          this.active.delete(key);
          this.pump();
        });
    }
  }

  /** Keeps a finished PG's result (and, scrubbed, its stamp) durably, then counts it in its task. */
  private async record(item: Queued, result: ScrubPgResult): Promise<void> {
    const { task, poolId, pg } = item;
    if (this.stopped) return; // a closing MDS keeps the PG unfinished: the next start scrubs it again
    const ops: BatchOp[] = [{ type: 'put', key: KEYS.scrubTaskPg(task.id, poolId, pg), value: result }];
    const stamp: ScrubStamp = {
      lastDeepScrubMs: this.clock.nowMs(),
      taskId: task.id,
      errorsFound: result.errorsFound,
      errorsFixed: result.errorsFixed,
    };
    if (result.outcome === 'done') ops.push({ type: 'put', key: KEYS.scrubStamp(poolId, pg), value: stamp });
    await this.persist(ops);
    if (result.outcome === 'done') this.stamps.set(pgKey(poolId, pg), stamp);
    addResult(task, poolId, pg, result, LIST_LIMITS);
    await this.finishIfDone(task);
  }

  private async finishIfDone(task: ScrubTask): Promise<void> {
    if (task.state === 'done') return;
    if (task.pgsDone + task.pgsSkipped + task.pgsFailed < task.pgsTotal) return;
    const header = this.headers.get(task.id);
    const finishedAtMs = this.clock.nowMs();
    if (header) {
      const done: ScrubTaskHeader = { ...header, state: 'done', finishedAtMs };
      await this.persist([{ type: 'put', key: KEYS.scrubTask(task.id), value: done }]);
      this.headers.set(task.id, done);
    }
    task.state = 'done';
    task.finishedAtMs = finishedAtMs;
    const { id, errorsFound, errorsFixed, objectsScanned } = task;
    this.logger.info({ task: id, objectsScanned, errorsFound, errorsFixed }, 'deep scrub finished');
  }

  /** Scrubs one PG; never throws (a failed call is a `failed` result). */
  private async runPg(item: Queued): Promise<ScrubPgResult> {
    const { task, poolId, pg } = item;
    const result: ScrubPgResult = {
      outcome: 'done',
      objectsScanned: 0,
      bytesScanned: 0,
      errorsFound: 0,
      errorsFixed: 0,
      objectsBusy: 0,
      findings: [],
    };
    const state = this.cluster.state;
    const plan = planPgScrub(state, this.holders, poolId, pg);
    if (!plan.ok) return { ...result, outcome: 'skipped', reason: plan.reason };
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
      result.objectsScanned = Number(res.objectsScanned);
      result.bytesScanned = Number(res.bytesScanned);
      result.errorsFound = Number(res.errorsFound);
      result.errorsFixed = Number(res.errorsFixed);
      result.objectsBusy = Number(res.objectsBusy);
      result.findings = res.findings.slice(0, SCRUB_TASK_FINDINGS_MAX).map((f) => findingOf(poolId, pg, f));
      return result;
    } catch (err) {
      this.logger.warn({ err: (err as Error).message, pg: pgKey(poolId, pg) }, 'deep scrub of a PG failed');
      return { ...result, outcome: 'failed', reason: `failed: ${(err as Error).message}` };
    }
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

function findingOf(pool: number, pg: number, f: ScrubFinding__Output): ScrubTaskFinding {
  const { objectId, ostId, position, problem, detail, fixed } = f;
  return { pool, pg, objectId, ostId, position, problem, detail, fixed };
}
