// The destroy queue's worker. Records (one per removed file) are written in
// the same batch as the namespace change; this worker deletes the objects on
// the OSSs and removes a record only when every delete succeeded or found
// nothing. Failures back off per record; the queue survives restarts because
// it is only ever read from the database.
import * as grpc from '@grpc/grpc-js';
import { CLIENT_OPTIONS, type Clock, call, type Logger, Semaphore, StripeError } from '../../common/index.js';
import type { OssServiceClient } from '../../proto/gen/stripefs/v1/OssService.js';
import { contract } from '../../proto/index.js';
import type { ClusterService } from '../cluster/service.js';
import type { GroupCommitter } from '../commit.js';
import type { MdsDb } from '../db.js';
import { KEYS } from '../keys.js';
import type { DestroyRecord } from '../records.js';
import { objectsOf } from './objects.js';

/** Records looked at per pass; deletes in flight at once; per-call deadline; retry backoff. */
export const DESTROY_RECORDS_PER_PASS_MAX = 256;
export const DESTROY_DELETES_IN_FLIGHT_MAX = 16;
export const DESTROY_CALL_TIMEOUT_MS = 5_000;
export const DESTROY_BACKOFF_MS_BASE = 200;
export const DESTROY_BACKOFF_MS_MAX = 30_000;
export const DESTROY_POLL_MS = 1_000;
/** A wake-up waits this long so a burst of unlinks is handled in one pass. */
export const DESTROY_WAKE_DELAY_MS = 50;
/** Queue records read per pass at most (the scan resumes where it stopped). */
export const DESTROY_SCAN_RECORDS_MAX = 1_024;

export class DestroyWorker {
  private readonly clients = new Map<string, OssServiceClient>();
  private readonly retry = new Map<number, { attempts: number; notBeforeMs: number }>();
  private readonly inFlight = new Semaphore(DESTROY_DELETES_IN_FLIGHT_MAX);
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private again = false;
  private stopped = false;
  private pass: Promise<void> = Promise.resolve();
  private wakeTimer: NodeJS.Timeout | undefined;
  /** The last queue key the previous pass read; '' starts from the front. */
  private cursor = '';
  /** Records completed since start, and records seen waiting in the last pass (metrics). */
  completed = 0;
  waiting = 0;

  constructor(
    private readonly db: MdsDb,
    private readonly committer: GroupCommitter,
    private readonly cluster: ClusterService,
    private readonly clock: Clock,
    private readonly logger: Logger,
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
    await this.pass;
    for (const client of this.clients.values()) client.close();
  }

  /** Schedules a pass soon; many wake-ups within the delay make one pass. */
  wake(): void {
    if (this.stopped || this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.runSoon();
    }, DESTROY_WAKE_DELAY_MS);
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
        await this.runPass().catch((err: unknown) => this.logger.error({ err }, 'destroy pass failed'));
      } while (this.again && !this.stopped);
      this.running = false;
    })();
  }

  async queueLength(): Promise<number> {
    return (await this.db.keys(KEYS.destroyRange).all()).length;
  }

  private async runPass(): Promise<void> {
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
      if (due.length >= DESTROY_RECORDS_PER_PASS_MAX) {
        this.cursor = KEYS.destroy(r.ino);
        break;
      }
    }
    this.waiting = due.length;
    if (due.length === 0) return;
    const states = await this.cluster.keptStates();
    await Promise.all(due.map((record) => this.destroyOne(record, states)));
  }

  private async destroyOne(
    record: DestroyRecord,
    states: Awaited<ReturnType<ClusterService['keptStates']>>,
  ): Promise<void> {
    const targets = objectsOf(record, states);
    const results = await Promise.all(targets.map((t) => this.inFlight.run(() => this.deleteObject(t))));
    if (results.every(Boolean)) {
      await this.committer.submit([{ type: 'del', key: KEYS.destroy(record.ino) }]);
      this.retry.delete(record.ino);
      this.completed++;
      return;
    }
    const attempts = (this.retry.get(record.ino)?.attempts ?? 0) + 1;
    const backoffMs = Math.min(
      DESTROY_BACKOFF_MS_MAX,
      DESTROY_BACKOFF_MS_BASE * 2 ** Math.min(attempts - 1, 16),
    );
    this.retry.set(record.ino, { attempts, notBeforeMs: this.clock.monotonicMs() + backoffMs });
  }

  /** true when the object is gone (deleted now, or never there). */
  private async deleteObject(target: ReturnType<typeof objectsOf>[number]): Promise<boolean> {
    const state = this.cluster.state;
    const oss = state.oss.find((o) => o.osts.some((ost) => ost.id === target.ostId));
    if (!oss?.grpcAddress) return false;
    const ref = { ...target, mapEpoch: state.map.epoch };
    try {
      const client = this.clientFor(oss.grpcAddress);
      const deadline = Date.now() + DESTROY_CALL_TIMEOUT_MS;
      await call(client, 'DeleteObject', { ref }, { deadline });
      return true;
    } catch (err) {
      if (err instanceof StripeError && err.code === 'OBJ_NOT_FOUND') return true;
      this.logger.debug({ err, ostId: target.ostId, objectId: target.objectId }, 'delete failed; will retry');
      return false;
    }
  }

  private clientFor(address: string): OssServiceClient {
    let client = this.clients.get(address);
    if (!client) {
      client = new (contract().OssService)(address, grpc.credentials.createInsecure(), CLIENT_OPTIONS);
      this.clients.set(address, client);
    }
    return client;
  }
}
