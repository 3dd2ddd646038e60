// One dashboard sample, built from what the admin API answers (taken
// in-process by the sampler, so the dashboard shows exactly what /api/* and
// `stripefs health` show) plus the rates the sampler measured. Pure: no IO.
import { type HealthReport, healthReport, type PgSummaryAnswer, SETTLED_STATES } from '../health-report.js';
import type { ClientView, JobView } from '../jobs/index.js';
import { NO_TRAFFIC, type OstRates } from './traffic.js';

/** Jobs and clients a sample lists (the busiest); /api/jobs and /api/clients list more. */
export const SAMPLE_TOP_MAX = 10;
/** Recovery tasks a sample lists. */
const ACTIVE_TASKS_LISTED_MAX = 20;

/** GET /api/cluster, in the parts the dashboard shows. */
export interface ClusterAnswer {
  epoch: number;
  map: {
    osts: {
      id: number;
      name: string;
      host: string;
      rack: string;
      datacenter: string;
      weight: number;
      state?: { up?: boolean; in?: boolean };
      usedBytes: number;
      totalBytes: number;
      slow?: boolean;
      slowReason?: string;
    }[];
  };
}

/** GET /api/recovery, in the parts the dashboard shows. */
export interface RecoveryStatusAnswer {
  maxBytesPerSec: number;
  maxActivePgs: number;
  paused: boolean;
  progress: {
    activePgs: number;
    pendingPgs: number;
    bytesLeft: number;
    rateBytesPerSec: number;
    etaSeconds: number | null;
    unestimatedTargets: number;
  };
  totals: {
    bytesCopied: number;
    objectsCopied: number;
    objectsRepaired: number;
    tasksDone: number;
    tasksFailed: number;
  };
  repairsQueued: number;
  active: { pool: number; pg: number; targetOst: number; kind: string; mode: string }[];
}

export interface Answers {
  cluster: ClusterAnswer;
  pgs: PgSummaryAnswer<{ id: number; errorsFound: number; errorsFixed: number }>;
  health: { slowOsts: { ostId: number; reason: string }[] };
  recovery: RecoveryStatusAnswer;
  jobs: { tracked: number; dropped: number; jobs: JobView[] };
  clients: { tracked: number; connected: number; dropped: number; clients: ClientView[] };
}

export interface OstView {
  id: number;
  name: string;
  /** up/in as the map says; `slow` as the MDS's detector says. */
  up: boolean;
  in: boolean;
  slow: boolean;
  slowReason: string;
  usedBytes: number;
  totalBytes: number;
  weight: number;
  rates: OstRates;
}

export interface HostView {
  name: string;
  /** up: every OST up; down: none; partial: some. */
  state: 'up' | 'partial' | 'down';
  osts: OstView[];
}

export interface RackView {
  name: string;
  datacenter: string;
  hosts: HostView[];
}

/** Bytes recovery copied since it last began (the sampler remembers where it began). */
export interface RecoveryEpisode {
  startedAtMs: number;
  copiedAtStart: number;
}

export interface Snapshot {
  atMs: number;
  epoch: number;
  health: HealthReport;
  racks: RackView[];
  throughput: OstRates;
  pgs: { total: number; byState: Record<string, number> };
  recovery: RecoveryStatusAnswer['progress'] & {
    busy: boolean;
    /** Bytes copied since recovery began this time, and its share of copied + left (0..1). */
    copiedBytes: number;
    fractionDone: number | null;
    startedAtMs: number | null;
    throttle: { maxBytesPerSec: number; maxActivePgs: number; paused: boolean };
    totals: RecoveryStatusAnswer['totals'];
    repairsQueued: number;
    active: RecoveryStatusAnswer['active'];
  };
  slowOsts: { ostId: number; reason: string }[];
  scrub: PgSummaryAnswer['scrub'] | null;
  clients: { tracked: number; connected: number; dropped: number; top: ClientView[] };
  jobs: { tracked: number; dropped: number; top: JobView[] };
}

function tree(cluster: ClusterAnswer, rates: ReadonlyMap<number, OstRates>): RackView[] {
  const racks = new Map<string, RackView>();
  for (const o of [...cluster.map.osts].sort((a, b) => a.id - b.id)) {
    let rack = racks.get(o.rack);
    if (!rack) {
      rack = { name: o.rack, datacenter: o.datacenter, hosts: [] };
      racks.set(o.rack, rack);
    }
    let host = rack.hosts.find((h) => h.name === o.host);
    if (!host) {
      host = { name: o.host, state: 'up', osts: [] };
      rack.hosts.push(host);
    }
    host.osts.push({
      id: o.id,
      name: o.name,
      up: o.state?.up === true,
      in: o.state?.in === true,
      slow: o.slow === true,
      slowReason: o.slowReason ?? '',
      usedBytes: Number(o.usedBytes),
      totalBytes: Number(o.totalBytes),
      weight: o.weight,
      rates: rates.get(o.id) ?? NO_TRAFFIC,
    });
  }
  for (const rack of racks.values())
    for (const host of rack.hosts) {
      const up = host.osts.filter((o) => o.up).length;
      host.state = up === host.osts.length ? 'up' : up === 0 ? 'down' : 'partial';
    }
  return [...racks.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function sum(rates: Iterable<OstRates>): OstRates {
  const total = { ...NO_TRAFFIC };
  for (const r of rates) {
    total.readBytesPerSec += r.readBytesPerSec;
    total.writeBytesPerSec += r.writeBytesPerSec;
    total.readOpsPerSec += r.readOpsPerSec;
    total.writeOpsPerSec += r.writeOpsPerSec;
  }
  return total;
}

export function buildSnapshot(
  answers: Answers,
  rates: ReadonlyMap<number, OstRates>,
  episode: RecoveryEpisode | undefined,
  atMs: number,
): Snapshot {
  const { cluster, pgs, recovery } = answers;
  const health = healthReport({
    epoch: cluster.epoch,
    osts: cluster.map.osts,
    pgs,
    slowOsts: answers.health.slowOsts,
    repairsQueued: recovery.repairsQueued,
  });
  const progress = recovery.progress;
  const copiedBytes = episode ? Math.max(0, recovery.totals.bytesCopied - episode.copiedAtStart) : 0;
  const planned = copiedBytes + progress.bytesLeft;
  return {
    atMs,
    epoch: cluster.epoch,
    health,
    racks: tree(cluster, rates),
    throughput: sum(rates.values()),
    pgs: { total: pgs.total, byState: pgs.byState },
    recovery: {
      ...progress,
      busy: episode !== undefined,
      copiedBytes,
      fractionDone: episode && planned > 0 ? copiedBytes / planned : null,
      startedAtMs: episode?.startedAtMs ?? null,
      throttle: {
        maxBytesPerSec: recovery.maxBytesPerSec,
        maxActivePgs: recovery.maxActivePgs,
        paused: recovery.paused,
      },
      totals: recovery.totals,
      repairsQueued: recovery.repairsQueued,
      active: recovery.active.slice(0, ACTIVE_TASKS_LISTED_MAX),
    },
    slowOsts: answers.health.slowOsts,
    scrub: pgs.scrub ?? null,
    clients: {
      tracked: answers.clients.tracked,
      connected: answers.clients.connected,
      dropped: answers.clients.dropped,
      top: answers.clients.clients,
    },
    jobs: { tracked: answers.jobs.tracked, dropped: answers.jobs.dropped, top: answers.jobs.jobs },
  };
}

/** Recovery is busy while PGs are not settled or bytes are left to copy. */
export function recoveryBusy(answers: Pick<Answers, 'pgs' | 'recovery'>): boolean {
  const p = answers.recovery.progress;
  return (
    p.bytesLeft > 0 ||
    p.activePgs > 0 ||
    p.pendingPgs > 0 ||
    Object.entries(answers.pgs.byState).some(([state, n]) => n > 0 && !SETTLED_STATES.has(state))
  );
}

/** One point of the charts' history. */
export interface HistoryPoint {
  atMs: number;
  readBytesPerSec: number;
  writeBytesPerSec: number;
  readOpsPerSec: number;
  writeOpsPerSec: number;
  recoveryBytesPerSec: number;
  /** PG states with a count above zero. */
  pgs: Record<string, number>;
}

export function historyPoint(s: Snapshot): HistoryPoint {
  return {
    atMs: s.atMs,
    ...s.throughput,
    recoveryBytesPerSec: s.recovery.rateBytesPerSec,
    pgs: Object.fromEntries(Object.entries(s.pgs.byState).filter(([, n]) => n > 0)),
  };
}
