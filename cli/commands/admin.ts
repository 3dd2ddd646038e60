// Cluster administration: df, health, scrub, ost out|in|reweight, fault set|clear.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { StripeError } from '../../common/errors.js';
import type { MapOst__Output } from '../../proto/index.js';
import { adminRequest, adminUrlOf, type ConnectFlags, fetchMap } from '../connect.js';
import { formatBytes, table } from '../format.js';
import { CliError, printJson } from '../output.js';
import { type ScrubFlags, type ScrubTaskAnswer, scrub, scrubLine } from './scrub.js';

interface JsonFlags extends ConnectFlags {
  json?: boolean;
}

function stateOf(ost: MapOst__Output): string {
  return `${ost.state?.up ? 'up' : 'down'}/${ost.state?.in ? 'in' : 'out'}`;
}

export async function df(flags: JsonFlags): Promise<void> {
  const map = await fetchMap(flags);
  const rows = map.osts.map((ost) => ({
    id: ost.id,
    name: ost.name,
    host: ost.host,
    rack: ost.rack,
    state: stateOf(ost),
    usedBytes: ost.usedBytes,
    totalBytes: ost.totalBytes,
    weight: ost.weight,
  }));
  if (flags.json) return printJson(rows);
  const percent = (used: number, total: number) => (total > 0 ? `${Math.round((100 * used) / total)}%` : '-');
  const body = rows.map((r) => [
    `ost${r.id}`,
    r.host,
    r.rack,
    r.state,
    formatBytes(r.usedBytes),
    formatBytes(Math.max(0, r.totalBytes - r.usedBytes)),
    formatBytes(r.totalBytes),
    percent(r.usedBytes, r.totalBytes),
    r.weight.toFixed(3),
  ]);
  const used = rows.reduce((s, r) => s + r.usedBytes, 0);
  const total = rows.reduce((s, r) => s + r.totalBytes, 0);
  body.push([
    'total',
    '',
    '',
    '',
    formatBytes(used),
    formatBytes(total - used),
    formatBytes(total),
    percent(used, total),
    '',
  ]);
  process.stdout.write(
    `${table(['OST', 'HOST', 'RACK', 'STATE', 'USED', 'AVAIL', 'SIZE', 'USE%', 'WEIGHT'], body)}\n`,
  );
  process.stdout.write(`map epoch ${map.epoch}\n`);
}

interface WeightPhaseAnswer {
  ostId: number;
  fromWeight: number;
  targetWeight: number;
  currentWeight: number;
  stepsDone: number;
  stepsTotal: number;
  trigger: string;
  waitingForClean: boolean;
}

interface PgSummary {
  epoch: number;
  total: number;
  byState: Record<string, number>;
  nonClean: { pool: string; pg: number; state: string; osts: number[] }[];
  recovery?: { bytesLeft: number; rateBytesPerSec: number; etaSeconds: number | null; activePgs: number };
  scrub?: { activePgs: number; running: ScrubTaskAnswer[]; last: ScrubTaskAnswer | null };
  phases?: WeightPhaseAnswer[];
}

/** PG states in which every copy is where it is placed. */
const SETTLED_STATES = new Set(['clean', 'scrubbing']);

interface MdsHealth {
  slowOsts: { ostId: number; reason: string }[];
}

export interface HealthReport {
  ok: boolean;
  epoch: number;
  osts: { total: number; up: number; in: number; down: string[]; out: string[] };
  pgs: { total: number; byState: Record<string, number>; recovery?: PgSummary['recovery'] };
  scrub?: PgSummary['scrub'];
  phases?: PgSummary['phases'];
  slowOsts: MdsHealth['slowOsts'];
  problems: string[];
}

export async function healthReport(flags: ConnectFlags): Promise<HealthReport> {
  const map = await fetchMap(flags);
  const pgs = await adminRequest<PgSummary>(`${adminUrlOf(flags)}/api/pgs`);
  const slowOsts = (
    await adminRequest<MdsHealth>(`${adminUrlOf(flags)}/api/health`).catch(() => ({ slowOsts: [] }))
  ).slowOsts;
  const repairsQueued = (
    await adminRequest<{ repairsQueued: number }>(`${adminUrlOf(flags)}/api/recovery`).catch(() => ({
      repairsQueued: 0,
    }))
  ).repairsQueued;
  const down = map.osts.filter((o) => !o.state?.up).map((o) => `ost${o.id} (${o.host})`);
  const out = map.osts.filter((o) => !o.state?.in).map((o) => `ost${o.id} (${o.host})`);
  const problems: string[] = [];
  if (map.osts.length === 0) problems.push('no OSTs registered yet');
  if (down.length > 0) problems.push(`${down.length} OSTs down: ${down.join(', ')}`);
  if (out.length > 0) problems.push(`${out.length} OSTs out: ${out.join(', ')}`);
  for (const [state, count] of Object.entries(pgs.byState)) {
    if (!SETTLED_STATES.has(state) && count > 0) problems.push(`${count} PGs ${state}`);
  }
  const last = pgs.scrub?.last;
  if (last && last.errorsFound > last.errorsFixed)
    problems.push(`scrub #${last.id} left ${last.errorsFound - last.errorsFixed} errors unfixed`);
  for (const slow of slowOsts) problems.push(`ost${slow.ostId} slow: ${slow.reason}`);
  if (repairsQueued > 0)
    problems.push(
      `${repairsQueued} copies await repair (they missed writes or read bad; the MDS rewrites each once its OST is up, see GET /api/recovery)`,
    );
  return {
    ok: problems.length === 0,
    epoch: map.epoch,
    osts: {
      total: map.osts.length,
      up: map.osts.length - down.length,
      in: map.osts.length - out.length,
      down,
      out,
    },
    pgs: { total: pgs.total, byState: pgs.byState, ...(pgs.recovery ? { recovery: pgs.recovery } : {}) },
    ...(pgs.scrub ? { scrub: pgs.scrub } : {}),
    ...(pgs.phases ? { phases: pgs.phases } : {}),
    slowOsts,
    problems,
  };
}

const HEALTH_POLL_MS = 500;

async function health(flags: JsonFlags & { wait?: string }): Promise<void> {
  const waitMs = flags.wait === undefined ? 0 : Number(flags.wait) * 1000;
  if (!Number.isFinite(waitMs) || waitMs < 0)
    throw new CliError('REQ_INVALID', `--wait expects seconds, got ${flags.wait}`);
  const deadline = Date.now() + waitMs;
  let report = await healthReport(flags);
  while (!report.ok && Date.now() < deadline) {
    await sleep(HEALTH_POLL_MS);
    report = await healthReport(flags).catch(() => report);
  }
  if (flags.json) printJson(report);
  else {
    process.stdout.write(`${report.ok ? 'HEALTH_OK' : 'HEALTH_WARN'}  map epoch ${report.epoch}\n`);
    process.stdout.write(`  OSTs: ${report.osts.total} total, ${report.osts.up} up, ${report.osts.in} in\n`);
    const states = Object.entries(report.pgs.byState)
      .filter(([, n]) => n > 0)
      .map(([s, n]) => `${n} ${s}`);
    process.stdout.write(
      `  PGs:  ${report.pgs.total} total${states.length ? `: ${states.join(', ')}` : ''}\n`,
    );
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
  if (!report.ok) process.exitCode = 1;
}

function ostId(raw: string): number {
  const match = /^(?:ost)?(\d+)$/.exec(raw);
  if (!match) throw new CliError('REQ_INVALID', `an OST is named by its id, like 3 or ost3; got ${raw}`);
  return Number(match[1]);
}

async function ostAction(
  action: 'out' | 'in' | 'reweight',
  id: string,
  weight: string | undefined,
  flags: JsonFlags & { step?: string },
) {
  const body = action === 'reweight' ? { weight: Number(weight) } : undefined;
  if (action === 'reweight' && (!Number.isFinite(body?.weight) || (body?.weight ?? -1) < 0)) {
    throw new CliError('REQ_INVALID', `reweight expects a weight >= 0, got ${weight}`);
  }
  if (action === 'reweight' && flags.step !== undefined) {
    const step = Number(flags.step);
    if (!Number.isFinite(step) || step <= 0)
      throw new CliError('REQ_INVALID', `--step expects a weight > 0, got ${flags.step}`);
    const phase = await adminRequest<WeightPhaseAnswer>(`${adminUrlOf(flags)}/api/phases`, 'POST', {
      ostId: ostId(id),
      weight: body?.weight,
      step,
    });
    if (flags.json) return printJson(phase);
    process.stdout.write(
      `ost${ostId(id)} reweight ${phase.fromWeight} -> ${phase.targetWeight} in steps of ${step}, each once the cluster is clean (see stripefs health)\n`,
    );
    return;
  }
  const result = await adminRequest<{ mapEpoch: number }>(
    `${adminUrlOf(flags)}/api/osts/${ostId(id)}/${action}`,
    'POST',
    body,
  );
  if (flags.json) return printJson(result);
  process.stdout.write(
    `ost${ostId(id)} ${action}${body ? ` ${body.weight}` : ''}: map epoch ${result.mapEpoch}\n`,
  );
}

async function ossAdminOf(flags: ConnectFlags, id: number): Promise<string> {
  const map = await fetchMap(flags);
  const ost = map.osts.find((o) => o.id === id);
  if (!ost)
    throw new StripeError('MAP_UNKNOWN_OST', `no ost${id} in the map (epoch ${map.epoch}); see stripefs df`);
  if (!ost.adminAddress)
    throw new StripeError('REQ_UNAVAILABLE', `ost${id}'s OSS has not announced an admin address`);
  return `http://${ost.adminAddress}`;
}

interface FaultFlags extends JsonFlags {
  latencyMs?: string;
  jitterMs?: string;
  bandwidth?: string;
  readFailRate?: string;
  writeFailRate?: string;
  corruptReadRate?: string;
  hang?: boolean;
  seed?: string;
}

export function faultBody(flags: FaultFlags): Record<string, number | boolean> {
  const body: Record<string, number | boolean> = {};
  const numeric: [keyof FaultFlags, string][] = [
    ['latencyMs', 'latencyMs'],
    ['jitterMs', 'jitterMs'],
    ['bandwidth', 'bandwidthBytesPerSec'],
    ['readFailRate', 'readFailRate'],
    ['writeFailRate', 'writeFailRate'],
    ['corruptReadRate', 'corruptReadRate'],
    ['seed', 'seed'],
  ];
  for (const [flag, field] of numeric) {
    const raw = flags[flag];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0)
      throw new CliError('REQ_INVALID', `--${flag} expects a number >= 0, got ${raw}`);
    body[field] = value;
  }
  if (flags.hang) body.hang = true;
  if (Object.keys(body).length === 0)
    throw new CliError('REQ_INVALID', 'name at least one knob, e.g. --latency-ms 50');
  return body;
}

export function registerAdminCommands(program: Command): void {
  const withConnect = (command: Command) =>
    command
      .option('--mds <host:port>', 'MDS address (default: $STRIPEFS_MDS or 127.0.0.1:7070)')
      .option('--admin <url>', 'MDS admin URL (default: http://MDS-host:MDS-port+1)')
      .option('--json', 'print JSON');
  withConnect(program.command('df').description('per-OST usage and state, like lfs df')).action(df);
  withConnect(program.command('health').description('PG states, down and out OSTs; exit 0 when all is clean'))
    .option('--wait <seconds>', 'wait up to this long for the cluster to be clean')
    .action(health);
  withConnect(
    program.command('scrub').description('deep scrub: compare the copies of every PG (or one) and repair'),
  )
    .option('--pg <pool/pg>', 'scrub one PG (pool id or name, then PG number)')
    .option('--no-repair', 'report only')
    .option('--no-wait', 'return once the scrub is queued')
    .action((flags: ScrubFlags) => scrub(flags));
  const ost = program.command('ost').alias('osd').description('mark OSTs out or in, or change their weight');
  withConnect(ost.command('out <ost>').description('take an OST out of placement')).action(
    (id: string, f: JsonFlags) => ostAction('out', id, undefined, f),
  );
  withConnect(ost.command('in <ost>').description('put an OST back into placement')).action(
    (id: string, f: JsonFlags) => ostAction('in', id, undefined, f),
  );
  withConnect(ost.command('reweight <ost> <weight>').description('set an OST placement weight'))
    .option(
      '--step <weight>',
      'move towards the weight in steps of this size, each once the cluster is clean',
    )
    .action((id: string, weight: string, f: JsonFlags & { step?: string }) =>
      ostAction('reweight', id, weight, f),
    );
  const fault = program
    .command('fault')
    .description('simulation knobs of one OST: latency, bandwidth, failures, hang');
  withConnect(fault.command('set <ost>').description('set fault knobs on an OST'))
    .option('--latency-ms <ms>', 'added latency per request')
    .option('--jitter-ms <ms>', 'random extra latency up to this')
    .option('--bandwidth <bytes/s>', 'bandwidth cap')
    .option('--read-fail-rate <0..1>', 'fraction of reads that fail')
    .option('--write-fail-rate <0..1>', 'fraction of writes that fail')
    .option('--corrupt-read-rate <0..1>', 'fraction of reads returned corrupt')
    .option('--hang', 'accept requests but never answer')
    .option('--seed <n>', 'seed of the knob generator')
    .action(async (id: string, flags: FaultFlags) => {
      const ostNumber = ostId(id);
      const url = `${await ossAdminOf(flags, ostNumber)}/api/osts/${ostNumber}/faults`;
      const result = await adminRequest<unknown>(url, 'PUT', faultBody(flags));
      if (flags.json) return printJson(result);
      process.stdout.write(`ost${ostNumber} faults set: ${JSON.stringify(faultBody(flags))}\n`);
    });
  withConnect(fault.command('clear <ost>').description('clear every fault knob of an OST')).action(
    async (id: string, flags: JsonFlags) => {
      const ostNumber = ostId(id);
      const result = await adminRequest<unknown>(
        `${await ossAdminOf(flags, ostNumber)}/api/osts/${ostNumber}/faults`,
        'DELETE',
      );
      if (flags.json) return printJson(result);
      process.stdout.write(`ost${ostNumber} faults cleared\n`);
    },
  );
}
