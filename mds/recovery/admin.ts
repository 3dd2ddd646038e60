// Admin routes of recovery on the MDS:
//   GET  /api/recovery        settings, progress, running tasks, totals
//   PUT  /api/recovery        { maxBytesPerSec?, maxActivePgs?, paused? } at run time (persisted)
//   GET  /api/health          PG states with progress, scrub, weight phases and slow OSTs
//   GET  /api/pgs/:pool/:pg   placement and holders of one PG, its last deep scrub
//   POST /api/scrub           { pool?, pg?, repair? }: start a deep scrub (every PG, or one)
//   GET  /api/scrub[/:id]     scrub settings and tasks, or one task with its findings
//   POST /api/phases          { ostId, weight, step }: move a weight in steps
//   GET  /api/phases, DELETE /api/phases/:ost
// and the Prometheus gauges of recovery, scrub and slow OSTs.
import type { FastifyInstance } from 'fastify';
import { Gauge, type Registry, StripeError } from '../../common/index.js';
import type { ClusterService } from '../cluster/service.js';
import type { WeightPhases } from './phases.js';
import { SUMMARY_PG_STATES, settled, summarizeRecoveryPgs } from './progress.js';
import type { RecoverySettings } from './repairs.js';
import { registerScrubAdmin, scrubSummary } from './scrub-admin.js';
import type { ScrubService } from './scrub-service.js';
import type { RecoveryService } from './service.js';
import type { OstHealthTracker } from './slow-osts.js';
import { pgHolders } from './wire.js';

/** The self-healing services the admin API and metrics read. */
export interface HealingParts {
  recovery: RecoveryService;
  cluster: ClusterService;
  health: OstHealthTracker;
  scrub: ScrubService;
  phases: WeightPhases;
  /** The verify pass over data on the MDS (mds/dom-verify.ts), served as GET /api/dom/verify. */
  verifyDom?: () => Promise<unknown>;
}

function parseSettings(body: unknown, current: RecoverySettings): RecoverySettings {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new StripeError('REQ_INVALID', 'recovery settings must be a JSON object');
  const next = { ...current };
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (key === 'paused') {
      if (typeof value !== 'boolean') throw new StripeError('REQ_INVALID', 'paused: expected true or false');
      next.paused = value;
    } else if (key === 'maxBytesPerSec') {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
        throw new StripeError('REQ_INVALID', 'maxBytesPerSec: expected an integer >= 0 (0: unthrottled)');
      next.maxBytesPerSec = value;
    } else if (key === 'maxActivePgs') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 4096)
        throw new StripeError('REQ_INVALID', 'maxActivePgs: expected an integer from 1 to 4096');
      next.maxActivePgs = value;
    } else throw new StripeError('REQ_INVALID', `unknown recovery setting ${key}`);
  }
  return next;
}

function number(raw: string, what: string): number {
  if (!/^\d{1,9}$/.test(raw))
    throw new StripeError('REQ_INVALID', `${what} ${JSON.stringify(raw)}: expected a number`);
  return Number(raw);
}

function summaryOf(parts: HealingParts) {
  const { recovery, cluster, scrub } = parts;
  return summarizeRecoveryPgs(
    cluster.state,
    recovery.holders,
    recovery.activePgs(),
    recovery.progress(),
    scrub.scrubbingPgs(),
    recovery.repairs.pgs(recovery.active),
  );
}

export function recoveryView(parts: HealingParts) {
  return {
    pgs: () => ({ ...summaryOf(parts), scrub: scrubSummary(parts.scrub), phases: parts.phases.view() }),
    slow: () => parts.health.slow(),
  };
}

/** Queued repairs /api/recovery lists at most. */
const REPAIRS_LISTED_MAX = 100;

/** GET /api/recovery's answer: settings, progress, totals and the repair queue. */
export function recoveryStatus({ recovery }: HealingParts) {
  return {
    ...recovery.settings,
    progress: recovery.progress(),
    totals: recovery.totals,
    repairsQueued: recovery.repairs.queued,
    repairsAbandoned: recovery.repairs.repairsAbandoned,
    /** Queued repairs whose OST refuses reads of the copy meanwhile (MarkStale). */
    repairsAnnounced: recovery.repairs.announcedCount,
    /** The first queued repairs (each waits for its OST to be up and placed to hold the object). */
    repairs: recovery.repairs.list(REPAIRS_LISTED_MAX),
    staleCopies: recovery.staleCopies.size,
    /** Skipped copies recorded one by one, and PGs past mds.missedWritesPerPgMax backfilled whole. */
    missedWrites: recovery.missedWrites(),
    active: [...recovery.active.values()].map((a) => ({
      pool: a.task.poolId,
      pg: a.task.pg,
      targetOst: a.task.target.ostId,
      position: a.task.target.position,
      mode: a.task.mode,
      kind: a.task.objectIds.length > 0 ? 'repair' : a.task.lost ? 'recovery' : 'backfill',
    })),
  };
}

export type RecoveryStatus = ReturnType<typeof recoveryStatus>;

export function registerRecoveryAdmin(app: FastifyInstance, parts: HealingParts): void {
  const { recovery, cluster, health } = parts;
  const status = () => recoveryStatus(parts);
  app.get('/api/recovery', async () => status());
  app.put('/api/recovery', async (request) => {
    await recovery.updateSettings(parseSettings(request.body, recovery.settings));
    return status();
  });
  app.get('/api/health', async () => {
    const pgs = summaryOf(parts);
    const slow = health.slow();
    return {
      ok: settled(pgs) && slow.length === 0,
      epoch: pgs.epoch,
      pgs: { total: pgs.total, byState: pgs.byState, recovery: pgs.recovery },
      scrub: scrubSummary(parts.scrub),
      phases: parts.phases.view(),
      slowOsts: slow,
      ostLatency: health.samples(),
    };
  });
  app.get<{ Params: { pool: string; pg: string } }>('/api/pgs/:pool/:pg', async (request) => {
    const poolId = number(request.params.pool, 'pool');
    const pg = number(request.params.pg, 'pg');
    const answer = pgHolders(cluster.state, recovery.holders, { poolId, pg });
    const osts = [...new Set([...(answer.placement ?? []), ...(answer.holders ?? [])])].filter(
      (id) => id >= 0,
    );
    return {
      ...answer,
      lastDeepScrub: parts.scrub.stampOf(poolId, pg) ?? null,
      /** Per OST: copies that missed writes recorded one by one, and whether it awaits a full backfill. */
      missedWrites: osts.flatMap((ostId) => {
        const logged = recovery.repairs.missedWritesOf(ostId, poolId, pg);
        const backfill = recovery.staleCopies.has(`${ostId}/${poolId}/${pg}`);
        return logged > 0 || backfill ? [{ ostId, logged, backfill }] : [];
      }),
    };
  });
  registerScrubAdmin(app, parts);
}

/** A gauge of one value, read when scraped. */
function gaugeIn(registry: Registry) {
  return (name: string, help: string, value: () => number): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value());
      },
    });
  };
}

/** Both ways of keeping missed writes, counted since start (README, What survives what). */
function registerMissedWriteMetrics(registry: Registry, recovery: RecoveryService): void {
  const gauge = gaugeIn(registry);
  gauge(
    'stripefs_mds_missed_writes_logged',
    'Copies a write skipped (OST down) recorded one by one for repair, since start',
    () => recovery.missedWrites().logged,
  );
  gauge(
    'stripefs_mds_missed_write_backfills',
    'PG copies whose missed writes passed mds.missedWritesPerPgMax and turned into a full backfill, since start',
    () => recovery.missedWrites().backfills,
  );
}

export function registerRecoveryMetrics(registry: Registry, parts: HealingParts): void {
  registerMissedWriteMetrics(registry, parts.recovery);
  const { recovery, cluster, health, scrub } = parts;
  new Gauge({
    name: 'stripefs_ost_slow',
    help: '1 when the OST is flagged slow or flaky (latency outlier or errors)',
    labelNames: ['ost'],
    registers: [registry],
    collect() {
      this.reset();
      const slow = new Set(health.slow().map((v) => v.ostId));
      for (const ost of cluster.state.map.osts) this.set({ ost: ost.name }, slow.has(ost.id) ? 1 : 0);
    },
  });
  new Gauge({
    name: 'stripefs_mds_pgs',
    help: 'PGs per state, recovery states included',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const pgs = summaryOf(parts);
      for (const state of SUMMARY_PG_STATES) this.set({ state }, pgs.byState[state]);
    },
  });
  const gauge = gaugeIn(registry);
  gauge(
    'stripefs_mds_recovery_bytes_left',
    'Bytes recovery and backfill still have to copy (estimate)',
    () => recovery.progress().bytesLeft,
  );
  gauge(
    'stripefs_mds_recovery_bytes_per_second',
    'Recovery rate over the last 10 s',
    () => recovery.progress().rateBytesPerSec,
  );
  gauge(
    'stripefs_mds_recovery_bytes',
    'Bytes copied by recovery, backfill and repair since start',
    () => recovery.totals.bytesCopied,
  );
  gauge(
    'stripefs_mds_repaired_objects',
    'Objects repaired after a bad-chunk report since start',
    () => recovery.totals.objectsRepaired,
  );
  const scrubTotal = (pick: (t: ScrubService['tasks'][number]) => number) => () =>
    scrub.tasks.reduce((sum, t) => sum + pick(t), 0);
  gauge(
    'stripefs_mds_scrub_errors_found',
    'Copies deep scrub found wrong (tasks kept in memory)',
    scrubTotal((t) => t.errorsFound),
  );
  gauge(
    'stripefs_mds_scrub_errors_fixed',
    'Copies deep scrub repaired (tasks kept in memory)',
    scrubTotal((t) => t.errorsFixed),
  );
  gauge('stripefs_mds_scrub_active_pgs', 'PGs being deep-scrubbed now', () => scrub.scrubbingPgs().size);
}
