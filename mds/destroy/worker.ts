// The destroy queue's worker. Records (one per removed file) are written in
// the same batch as the namespace change; this worker deletes the objects on
// the OSSs and removes a record only when every delete succeeded or found
// nothing. Failures back off per record; the queue survives restarts because
// it is only ever read from the database.
//
// The worker runs behind the namespace (pace.ts): while mutations are
// arriving it takes few records per pass and leaves a gap between passes, so
// deletes (each an outgoing RPC that costs the MDS CPU) never crowd out
// creates and unlinks; once the namespace is quiet it drains the queue at
// full speed, pass after pass. It sends
// nothing to an OST that is down in the current map, nor, for a while, to an
// OSS that just failed to answer.
import {
  type ChannelCache,
  type Clock,
  call,
  deadlineIn,
  type Logger,
  Semaphore,
  StripeError,
} from '../../common/index.js';
import type { OssServiceClient } from '../../proto/gen/stripefs/v1/OssService.js';
import type { DestroyQueueView } from '../admin.js';
import type { ClusterService } from '../cluster/service.js';
import type { ClusterState } from '../cluster/state.js';
import type { GroupCommitter } from '../commit.js';
import type { BatchOp, MdsDb } from '../db.js';
import { KEYS } from '../keys.js';
import type { DestroyRecord } from '../records.js';
import { type ObjectTarget, objectsOf } from './objects.js';
import { type PassPlan, planPass } from './pace.js';

/** Deletes in flight at once; per-call deadline; retry backoff. */
export const DESTROY_DELETES_IN_FLIGHT_MAX = 16;
export const DESTROY_CALL_TIMEOUT_MS = 5_000;
export const DESTROY_BACKOFF_MS_BASE = 200;
export const DESTROY_BACKOFF_MS_MAX = 30_000;
export const DESTROY_POLL_MS = 1_000;
/** A wake-up waits this long so a burst of unlinks is handled in one pass. */
export const DESTROY_WAKE_DELAY_MS = 50;
/** Queue records read per pass at most (the scan resumes where it stopped). */
export const DESTROY_SCAN_RECORDS_MAX = 1_024;
/** An OSS that did not answer is skipped for this long, doubling per failure up to the cap. */
export const DESTROY_OSS_BACKOFF_MS_BASE = 500;
export const DESTROY_OSS_BACKOFF_MS_MAX = 10_000;

type Backoff = { attempts: number; notBeforeMs: number };

function nextBackoff(prev: Backoff | undefined, nowMs: number, baseMs: number, maxMs: number): Backoff {
  const attempts = (prev?.attempts ?? 0) + 1;
  return { attempts, notBeforeMs: nowMs + Math.min(maxMs, baseMs * 2 ** Math.min(attempts - 1, 16)) };
}

export class DestroyWorker {
  private readonly retry = new Map<number, Backoff>();
  private readonly ossBackoff = new Map<string, Backoff>();
  private readonly inFlight = new Semaphore(DESTROY_DELETES_IN_FLIGHT_MAX);
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = false;
  private pass: Promise<void> = Promise.resolve();
  private wakeTimer: NodeJS.Timeout | undefined;
  private gap: { timer: NodeJS.Timeout; done: () => void } | undefined;
  private lastPassMs = Number.NEGATIVE_INFINITY;
  /** The last queue key the previous pass read; '' starts from the front. */
  private cursor = '';
  /** Kept map states (immutable per epoch), reused until the map changes. */
  private kept: { epoch: number; states: ClusterState[] } | undefined;
  /** Records completed since start, and records seen waiting in the last pass (metrics). */
  completed = 0;
  waiting = 0;
  /** Deletes not sent because the OST was down or its OSS backing off (tests, metrics). */
  skipped = 0;
  /** Passes run since start: a test waits for passes, not for time, to see what a pass does. */
  passes = 0;

  constructor(
    private readonly db: MdsDb,
    private readonly committer: GroupCommitter,
    private readonly cluster: ClusterService,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The MDS's one channel to each OSS (closed by its builder). */
    private readonly clients: ChannelCache<OssServiceClient>,
    /** Monotonic time of the namespace's last mutation. */
    private readonly lastMutationMs: () => number = () => Number.NEGATIVE_INFINITY,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), DESTROY_POLL_MS);
    this.timer.unref();
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.wakeTimer);
    if (this.gap) {
      clearTimeout(this.gap.timer);
      this.gap.done();
    }
    await this.pass;
  }

  /** Schedules a pass soon; many wake-ups within the delay make one pass. */
  wake(): void {
    if (this.stopped || this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.runSoon();
    }, DESTROY_WAKE_DELAY_MS);
  }

  private plan(): PassPlan {
    return planPass(this.clock.monotonicMs(), this.lastMutationMs(), this.lastPassMs);
  }

  private runSoon(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    this.pass = (async () => {
      do {
        this.again = false;
        let plan = this.plan();
        if (plan.waitMs > 0) {
          await this.waitGap(plan.waitMs);
          plan = this.plan(); // the namespace may have gone quiet meanwhile
        }
        if (this.stopped) break;
        this.lastPassMs = this.clock.monotonicMs();
        const full = await this.runPass(plan.recordsMax).catch((err: unknown) => {
          this.logger.error({ err }, 'destroy pass failed');
          return false;
        });
        // A pass that used its whole budget left work behind: go on without waiting for a wake-up.
        if (full) this.again = true;
      } while (this.again && !this.stopped);
      this.running = false;
    })();
  }

  /** A wait stop() can cut short. */
  private waitGap(waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.gap = undefined;
        resolve();
      };
      this.gap = { timer: setTimeout(done, waitMs), done };
    });
  }

  async queueLength(): Promise<number> {
    return (await this.db.keys(KEYS.destroyRange).all()).length;
  }

  /** What /api/destroy-queue shows. */
  async view(): Promise<DestroyQueueView> {
    return {
      files: await this.queueLength(),
      completed: this.completed,
      skippedDeletes: this.skipped,
      passes: this.passes,
    };
  }

  /** Kept states change only with the epoch; reading them all per pass would cost more than the deletes. */
  private async keptStates(): Promise<ClusterState[]> {
    const epoch = this.cluster.state.map.epoch;
    if (this.kept?.epoch !== epoch) this.kept = { epoch, states: await this.cluster.keptStates() };
    return this.kept.states;
  }

  /** One pass over at most `budget` due records; true when the budget was used up. */
  private async runPass(budget: number): Promise<boolean> {
    this.passes++;
    const now = this.clock.monotonicMs();
    const due: DestroyRecord[] = [];
    const range = {
      gt: this.cursor || KEYS.destroyRange.gt,
      lt: KEYS.destroyRange.lt,
      limit: DESTROY_SCAN_RECORDS_MAX,
    };
    const rows = await this.db.iterator(range).all();
    this.cursor = rows.length < DESTROY_SCAN_RECORDS_MAX ? '' : rows[rows.length - 1]![0];
    for (const [, value] of rows) {
      const r = value as DestroyRecord;
      if ((this.retry.get(r.ino)?.notBeforeMs ?? 0) <= now) due.push(r);
      if (due.length >= budget) {
        this.cursor = KEYS.destroy(r.ino);
        break;
      }
    }
    this.waiting = due.length;
    if (due.length === 0) return false;
    const states = await this.keptStates();
    const done = await Promise.all(due.map((record) => this.destroyOne(record, states)));
    // Every finished record leaves the queue in one batch.
    const finished = due.filter((_, i) => done[i]);
    const ops: BatchOp[] = finished.map((r) => ({ type: 'del', key: KEYS.destroy(r.ino) }));
    await this.committer.submit(ops);
    for (const r of finished) this.retry.delete(r.ino);
    this.completed += finished.length;
    return due.length >= budget;
  }

  /** true when every object of the record is gone; otherwise the record backs off. */
  private async destroyOne(record: DestroyRecord, states: ClusterState[]): Promise<boolean> {
    const targets = objectsOf(record, states);
    const results = await Promise.all(targets.map((t) => this.inFlight.run(() => this.deleteObject(t))));
    if (results.every(Boolean)) return true;
    const now = this.clock.monotonicMs();
    this.retry.set(
      record.ino,
      nextBackoff(this.retry.get(record.ino), now, DESTROY_BACKOFF_MS_BASE, DESTROY_BACKOFF_MS_MAX),
    );
    return false;
  }

  /** true when the object is gone (deleted now, or never there). */
  private async deleteObject(target: ObjectTarget): Promise<boolean> {
    const state = this.cluster.state;
    const oss = state.oss.find((o) => o.osts.some((ost) => ost.id === target.ostId));
    if (!oss?.grpcAddress) return false;
    const ost = state.map.osts.find((o) => o.id === target.ostId);
    const ossWaitUntil = this.ossBackoff.get(oss.grpcAddress)?.notBeforeMs ?? 0;
    if (ost?.state.up === false || ossWaitUntil > this.clock.monotonicMs()) {
      this.skipped++;
      return false;
    }
    const ref = { ...target, mapEpoch: state.map.epoch };
    try {
      const client = this.clients.get(oss.grpcAddress);
      await call(client, 'DeleteObject', { ref }, deadlineIn(DESTROY_CALL_TIMEOUT_MS));
      this.ossBackoff.delete(oss.grpcAddress);
      return true;
    } catch (err) {
      if (err instanceof StripeError && err.code === 'OBJ_NOT_FOUND') return true;
      if (err instanceof StripeError && (err.code === 'REQ_UNAVAILABLE' || err.code === 'REQ_TIMEOUT')) {
        const prev = this.ossBackoff.get(oss.grpcAddress);
        // Deletes already in flight when the OSS failed do not push the backoff further.
        if (!prev || prev.notBeforeMs <= this.clock.monotonicMs()) {
          this.ossBackoff.set(
            oss.grpcAddress,
            nextBackoff(
              prev,
              this.clock.monotonicMs(),
              DESTROY_OSS_BACKOFF_MS_BASE,
              DESTROY_OSS_BACKOFF_MS_MAX,
            ),
          );
        }
      }
      this.logger.debug({ err, ostId: target.ostId, objectId: target.objectId }, 'delete failed; will retry');
      return false;
    }
  }
}
