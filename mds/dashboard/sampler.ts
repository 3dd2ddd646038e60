// The dashboard's sampler: on a timer (mds.dashboardSampleMs), and at once
// when the map changes, it asks the MDS's own admin API in-process (inject:
// the same answers /api/* give, computed once per sample however many people
// watch), measures rates (OST traffic, jobs, clients), and hands the sample to
// the dashboard's listeners. Nothing here runs on a request path: heartbeats
// and gRPC calls only store counts, and the history is a fixed ring.
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../common/random.js';
import { internalHeadersOf } from '../auth/http.js';
import type { JobStats } from '../jobs/index.js';
import {
  type Answers,
  buildSnapshot,
  type HistoryPoint,
  historyPoint,
  type RecoveryEpisode,
  recoveryBusy,
  SAMPLE_TOP_MAX,
  type Snapshot,
} from './snapshot.js';
import type { OstTraffic } from './traffic.js';

/** A map change is sampled at once, but not more often than this. */
export const MAP_CHANGE_SAMPLE_GAP_MS = 100;

export type SampleListener = (snapshot: Snapshot, point: HistoryPoint) => void;

class Ring<T> {
  private readonly items: T[] = [];
  constructor(private readonly max: number) {}
  push(item: T): void {
    this.items.push(item);
    if (this.items.length > this.max) this.items.shift();
  }
  list(): T[] {
    return [...this.items];
  }
}

export interface SamplerParts {
  app: FastifyInstance;
  traffic: OstTraffic;
  jobs: JobStats;
  clock: Clock;
  /** Subscribes to map changes; returns the unsubscribe function. */
  onMapChange: (listener: () => void) => () => void;
  log: (err: unknown) => void;
}

export class DashboardSampler {
  latest: Snapshot | undefined;
  private readonly history: Ring<HistoryPoint>;
  private readonly listeners = new Set<SampleListener>();
  private timer: NodeJS.Timeout | undefined;
  private soon: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private episode: RecoveryEpisode | undefined;
  private lastSampleMs = -Infinity;

  constructor(
    private readonly parts: SamplerParts,
    private readonly opts: { sampleMs: number; historySamples: number },
  ) {
    this.history = new Ring(opts.historySamples);
  }

  start(): void {
    this.timer = setInterval(() => void this.sample(), this.opts.sampleMs);
    this.unsubscribe = this.parts.onMapChange(() => this.sampleSoon());
    void this.sample();
  }

  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.soon);
    this.unsubscribe?.();
    this.listeners.clear();
  }

  historyPoints(): HistoryPoint[] {
    return this.history.list();
  }

  subscribe(listener: SampleListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscribers(): number {
    return this.listeners.size;
  }

  private sampleSoon(): void {
    if (this.soon) return;
    const waitMs = Math.max(0, this.lastSampleMs + MAP_CHANGE_SAMPLE_GAP_MS - this.parts.clock.monotonicMs());
    this.soon = setTimeout(() => {
      this.soon = undefined;
      void this.sample();
    }, waitMs);
  }

  /** Takes a sample now; one at a time (a call during one runs again right after it). */
  sample(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.take()
      .catch((err: unknown) => this.parts.log(err))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          void this.sample();
        }
      });
    return this.running;
  }

  private async get<T>(url: string): Promise<T> {
    const res = await this.parts.app.inject({
      method: 'GET',
      url,
      headers: internalHeadersOf(this.parts.app),
    });
    if (res.statusCode !== 200)
      throw new Error(`dashboard sample: GET ${url} answered ${res.statusCode}: ${res.body}`);
    return res.json() as T;
  }

  private async take(): Promise<void> {
    const { clock, traffic, jobs } = this.parts;
    this.lastSampleMs = clock.monotonicMs();
    jobs.tick();
    const [cluster, pgs, health, recovery, jobList, clientList] = await Promise.all([
      this.get<Answers['cluster']>('/api/cluster'),
      this.get<Answers['pgs']>('/api/pgs'),
      this.get<Answers['health']>('/api/health'),
      this.get<Answers['recovery']>('/api/recovery'),
      this.get<Answers['jobs']>(`/api/jobs?limit=${SAMPLE_TOP_MAX}`),
      this.get<Answers['clients']>(`/api/clients?limit=${SAMPLE_TOP_MAX}`),
    ]);
    const answers: Answers = { cluster, pgs, health, recovery, jobs: jobList, clients: clientList };
    const rates = traffic.sample(cluster.map.osts.map((o) => o.id));
    if (!recoveryBusy(answers)) this.episode = undefined;
    else this.episode ??= { startedAtMs: clock.nowMs(), copiedAtStart: recovery.totals.bytesCopied };
    const snapshot = buildSnapshot(answers, rates, this.episode, clock.nowMs());
    const point = historyPoint(snapshot);
    this.latest = snapshot;
    this.history.push(point);
    for (const listener of this.listeners) listener(snapshot, point);
  }
}
