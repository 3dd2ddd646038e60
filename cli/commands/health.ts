// stripefs health and stripefs pg wait-clean: what the cluster's state is, and waiting for it.
// Both wait for an MDS that is still starting (a connection refused is retried until the
// deadline), so "start the cluster, then wait" works in one script (docker compose, CI).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { StripeError } from '../../common/errors.js';
import {
  type PgSummaryAnswer,
  SETTLED_STATES,
  type HealthReport as SharedHealthReport,
  healthReport as sharedHealthReport,
} from '../../mds/health-report.js';
import { adminRequest, adminUrlOf, type ConnectFlags, fetchMap, mdsAddressOf } from '../connect.js';
import { formatBytes } from '../format.js';
import { CliError, intOption, printJson } from '../output.js';
import { type ScrubTaskAnswer, scrubLine } from './scrub.js';

interface JsonFlags extends ConnectFlags {
  json?: boolean;
}

export type { WeightPhaseAnswer } from '../../mds/health-report.js';

export type PgSummary = PgSummaryAnswer<ScrubTaskAnswer>;
export type HealthReport = SharedHealthReport<ScrubTaskAnswer>;

interface MdsHealth {
  slowOsts: { ostId: number; reason: string }[];
}

/** The health report of the MDS at `flags` (mds/health-report.ts, from what its admin API answers). */
export async function healthReport(flags: ConnectFlags & { expectOsts?: number }): Promise<HealthReport> {
  const map = await fetchMap(flags);
  const pgs = await adminRequest<PgSummary>(`${adminUrlOf(flags)}/api/pgs`);
  const slowOsts = (
    await adminRequest<MdsHealth>(`${adminUrlOf(flags)}/api/health`).catch(() => ({ slowOsts: [] }))
  ).slowOsts;
  const { repairsQueued, missedWrites } = await adminRequest<{
    repairsQueued: number;
    missedWrites?: { awaitingBackfill: number; perPgMax: number };
  }>(`${adminUrlOf(flags)}/api/recovery`).catch(() => ({ repairsQueued: 0, missedWrites: undefined }));
  return sharedHealthReport({
    epoch: map.epoch,
    osts: map.osts,
    pgs,
    slowOsts,
    repairsQueued,
    ...(missedWrites ? { missedWrites } : {}),
    ...(flags.expectOsts === undefined ? {} : { expectOsts: flags.expectOsts }),
  });
}

/** How often `health --wait` and `pg wait-clean` ask again. */
const HEALTH_POLL_MS = 500;
/** Progress lines written to a log or a pipe at most this often (on a terminal: redrawn). */
const PROGRESS_LINE_MS = 5_000;

function secondsOption(name: string, raw: string | undefined, fallback: number): number {
  const seconds = raw === undefined ? fallback : Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0)
    throw new CliError('REQ_INVALID', `${name} expects seconds, got ${raw}`);
  return seconds * 1000;
}

/** An MDS that does not answer yet: worth asking again while it starts. */
function notAnswering(err: unknown): boolean {
  return err instanceof StripeError && (err.code === 'REQ_UNAVAILABLE' || err.code === 'REQ_TIMEOUT');
}

/**
 * Asks `ask` until `done` says so or the deadline passes; an MDS that does not answer yet
 * (still starting) is asked again, once said on stderr. Returns the last answer.
 */
async function pollUntil<T>(
  flags: ConnectFlags,
  waitMs: number,
  ask: () => Promise<T>,
  done: (answer: T) => boolean,
  onAnswer: (answer: T) => void = () => {},
): Promise<T> {
  const deadline = Date.now() + waitMs;
  let said = false;
  for (;;) {
    try {
      const answer = await ask();
      onAnswer(answer);
      if (done(answer) || Date.now() >= deadline) return answer;
    } catch (err) {
      if (!notAnswering(err) || Date.now() >= deadline) throw err;
      if (!said) process.stderr.write(`waiting for the MDS at ${mdsAddressOf(flags)} to answer...\n`);
      said = true;
    }
    await sleep(Math.min(HEALTH_POLL_MS, Math.max(0, deadline - Date.now())));
  }
}

function printHealth(report: HealthReport): void {
  process.stdout.write(`${report.ok ? 'HEALTH_OK' : 'HEALTH_WARN'}  map epoch ${report.epoch}\n`);
  process.stdout.write(`  OSTs: ${report.osts.total} total, ${report.osts.up} up, ${report.osts.in} in\n`);
  const states = Object.entries(report.pgs.byState)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${n} ${s}`);
  process.stdout.write(`  PGs:  ${report.pgs.total} total${states.length ? `: ${states.join(', ')}` : ''}\n`);
  const r = report.pgs.recovery;
  if (r && (r.bytesLeft > 0 || r.activePgs > 0)) {
    const eta = r.etaSeconds === null ? 'unknown' : `${Math.ceil(r.etaSeconds)} s`;
    process.stdout.write(
      `  recovery: ${formatBytes(r.bytesLeft)} left at ${formatBytes(r.rateBytesPerSec)}/s, ${r.activePgs} PGs active, ETA ${eta}\n`,
    );
  }
  for (const t of report.scrub?.running ?? []) process.stdout.write(`  ${scrubLine(t)}\n`);
  for (const p of report.phases ?? []) {
    const waiting = p.waitingForClean ? ', waiting for clean' : '';
    process.stdout.write(
      `  reweight ost${p.ostId}: ${p.currentWeight.toFixed(4)} -> ${p.targetWeight.toFixed(4)}, step ${p.stepsDone}/${p.stepsTotal}${waiting}\n`,
    );
  }
  for (const problem of report.problems) process.stdout.write(`  - ${problem}\n`);
}

async function health(flags: JsonFlags & { wait?: string; expectOsts?: string }): Promise<void> {
  const waitMs = secondsOption('--wait', flags.wait, 0);
  const expectOsts =
    flags.expectOsts === undefined ? undefined : intOption('--expect-osts', flags.expectOsts);
  const report = await pollUntil(
    flags,
    waitMs,
    () => healthReport({ ...flags, expectOsts }),
    (r) => r.ok,
  );
  if (flags.json) printJson(report);
  else printHealth(report);
  if (!report.ok) process.exitCode = 1;
}

/** PGs not yet clean, by state ("4 backfilling, 2 degraded"). */
function unsettled(pgs: PgSummary): [string, number][] {
  return Object.entries(pgs.byState).filter(([state, n]) => n > 0 && !SETTLED_STATES.has(state));
}

function waitLine(pgs: PgSummary): string {
  const left = unsettled(pgs);
  const notClean = left.reduce((sum, [, n]) => sum + n, 0);
  const states = left.map(([state, n]) => `${n} ${state}`).join(', ');
  const r = pgs.recovery;
  const eta =
    r?.etaSeconds === null || r?.etaSeconds === undefined ? 'unknown' : `${Math.ceil(r.etaSeconds)} s`;
  const moving =
    r && (r.bytesLeft > 0 || r.activePgs > 0)
      ? `; ${formatBytes(r.bytesLeft)} left at ${formatBytes(r.rateBytesPerSec)}/s, ETA ${eta}`
      : '';
  return `PGs: ${pgs.total - notClean}/${pgs.total} clean${states ? ` (${states})` : ''}${moving}`;
}

/**
 * `stripefs pg wait-clean`: waits until every PG is clean (every copy where it is placed), also
 * while OSTs that are down and out are still in the map (health stays HEALTH_WARN for them).
 * Prints progress with an ETA on stderr: redrawn on a terminal, a line at most every 5 s elsewhere.
 */
async function waitClean(flags: JsonFlags & { timeout?: string }): Promise<void> {
  const waitMs = secondsOption('--timeout', flags.timeout, 600);
  const tty = Boolean(process.stderr.isTTY);
  let lastLine = '';
  let lastWrittenMs = 0;
  const show = (pgs: PgSummary) => {
    const line = waitLine(pgs);
    const now = Date.now();
    if (tty) process.stderr.write(`\r${line}\x1b[K`);
    else if (line !== lastLine && now - lastWrittenMs >= PROGRESS_LINE_MS) {
      process.stderr.write(`${line}\n`);
      lastWrittenMs = now;
    }
    lastLine = line;
  };
  const startedMs = Date.now();
  const pgs = await pollUntil(
    flags,
    waitMs,
    () => adminRequest<PgSummary>(`${adminUrlOf(flags)}/api/pgs`),
    (answer) => answer.total > 0 && unsettled(answer).length === 0,
    show,
  );
  const clean = pgs.total > 0 && unsettled(pgs).length === 0;
  const seconds = (Date.now() - startedMs) / 1000;
  if (tty) process.stderr.write('\n');
  if (flags.json) printJson({ clean, seconds, epoch: pgs.epoch, total: pgs.total, byState: pgs.byState });
  else
    process.stdout.write(
      `${clean ? 'clean' : 'not clean'} after ${seconds.toFixed(1)} s: ${waitLine(pgs)}\n`,
    );
  if (!clean) {
    process.exitCode = 1;
    if (!flags.json)
      process.stderr.write(
        `stripefs: ${pgs.total === 0 ? 'no pool has PGs yet (nothing was written)' : 'PGs still not clean'} after ${flags.timeout ?? 600} s; see stripefs health and GET /api/recovery\n`,
      );
  }
}

export function registerHealthCommands(program: Command, withConnect: (command: Command) => Command): void {
  withConnect(program.command('health').description('PG states, down and out OSTs; exit 0 when all is clean'))
    .option('--wait <seconds>', 'wait up to this long for HEALTH_OK (also for an MDS still starting)')
    .option(
      '--expect-osts <n>',
      'not OK until at least this many OSTs are up and in (a cluster still registering)',
    )
    .action(health);
  const pg = program.command('pg').description('placement groups: wait for them to be clean');
  withConnect(
    pg
      .command('wait-clean')
      .description(
        'wait until every PG is clean, also with dead OSTs still in the map; progress and ETA on stderr; exit 1 on timeout',
      ),
  )
    .option('--timeout <seconds>', 'give up after this long (default 600)')
    .action(waitClean);
}
