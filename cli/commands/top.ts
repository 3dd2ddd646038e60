// stripefs top: the busiest jobs and clients, from the MDS's job statistics
// (GET /api/jobs and /api/clients; rates over the MDS's last sample). Live on
// a terminal, redrawn every --interval until Ctrl-C; once with --once (with
// --json for scripts); in a pipe, one frame per interval, --iterations times.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import type { ClientView, JobView } from '../../mds/jobs/index.js';
import { adminRequest, adminUrlOf, type ConnectFlags } from '../connect.js';
import { formatBytes, formatRate, table } from '../format.js';
import { CliError, intOption, printJson } from '../output.js';

interface TopFlags extends ConnectFlags {
  json?: boolean;
  once?: boolean;
  sort?: string;
  limit?: string;
  interval?: string;
  iterations?: string;
}

interface JobsAnswer {
  sampledAtMs: number;
  intervalMs: number;
  tracked: number;
  dropped: number;
  jobs: JobView[];
}

interface ClientsAnswer {
  tracked: number;
  connected: number;
  dropped: number;
  clients: ClientView[];
}

/** Shortest refresh --interval accepts. */
const INTERVAL_MS_MIN = 200;
const ROWS_DEFAULT = 10;

const per = (n: number) => (n >= 100 ? Math.round(n).toString() : n.toFixed(1));

async function fetchTop(
  flags: TopFlags,
  limit: number,
): Promise<{ jobs: JobsAnswer; clients: ClientsAnswer }> {
  const base = adminUrlOf(flags);
  const query = `limit=${limit}&sort=${encodeURIComponent(flags.sort ?? 'rate')}`;
  const [jobs, clients] = await Promise.all([
    adminRequest<JobsAnswer>(`${base}/api/jobs?${query}`),
    adminRequest<ClientsAnswer>(`${base}/api/clients?${query}`),
  ]);
  return { jobs, clients };
}

function frame(top: { jobs: JobsAnswer; clients: ClientsAnswer }): string {
  const { jobs, clients } = top;
  const jobRows = jobs.jobs.map((j) => [
    j.jobId,
    String(j.sessions),
    formatRate(j.rates.readBytesPerSec),
    formatRate(j.rates.writeBytesPerSec),
    per(j.rates.readOpsPerSec + j.rates.writeOpsPerSec),
    per(j.rates.mdsOpsPerSec),
    formatBytes(j.data.readBytes),
    formatBytes(j.data.writeBytes),
    String(j.mds.ops),
  ]);
  const clientRows = clients.clients.map((c) => [
    c.name || c.session,
    c.address,
    c.jobIds.join(','),
    c.connected ? 'connected' : 'gone',
    formatRate(c.rates.readBytesPerSec),
    formatRate(c.rates.writeBytesPerSec),
    per(c.rates.mdsOpsPerSec),
    formatBytes(c.data.readBytes + c.data.writeBytes),
  ]);
  const at = new Date(jobs.sampledAtMs).toLocaleTimeString();
  return [
    `stripefs top  ${at}  rates over ${(jobs.intervalMs / 1000).toFixed(1)} s  jobs ${jobs.tracked}${jobs.dropped ? ` (${jobs.dropped} dropped)` : ''}  clients ${clients.connected} connected, ${clients.tracked} known`,
    '',
    table(
      ['JOB', 'CLIENTS', 'READ', 'WRITE', 'IOPS', 'MDS OPS/S', 'READ TOTAL', 'WRITTEN', 'MDS OPS'],
      jobRows,
    ),
    '',
    table(['CLIENT', 'ADDRESS', 'JOBS', 'STATE', 'READ', 'WRITE', 'MDS OPS/S', 'BYTES'], clientRows),
  ].join('\n');
}

async function top(flags: TopFlags): Promise<void> {
  const limit = flags.limit === undefined ? ROWS_DEFAULT : intOption('--limit', flags.limit);
  const seconds = flags.interval === undefined ? 2 : Number(flags.interval);
  if (!Number.isFinite(seconds) || seconds * 1000 < INTERVAL_MS_MIN)
    throw new CliError(
      'REQ_INVALID',
      `--interval expects seconds >= ${INTERVAL_MS_MIN / 1000}, got ${flags.interval}`,
    );
  const iterations =
    flags.iterations === undefined ? Number.POSITIVE_INFINITY : intOption('--iterations', flags.iterations);
  if (flags.json && !flags.once && flags.iterations === undefined)
    throw new CliError(
      'REQ_INVALID',
      '--json prints one answer: add --once (or --iterations N for N of them)',
    );
  const tty = Boolean(process.stdout.isTTY) && !flags.once && !flags.json;
  const frames = flags.once ? 1 : iterations;
  for (let i = 0; i < frames; i++) {
    if (i > 0) await sleep(seconds * 1000);
    const answer = await fetchTop(flags, limit);
    if (flags.json) printJson(answer);
    else if (tty) process.stdout.write(`\x1b[H\x1b[2J${frame(answer)}\n(Ctrl-C quits)\n`);
    else process.stdout.write(`${frame(answer)}\n\n`);
  }
}

export function registerTopCommand(program: Command): void {
  program
    .command('top')
    .description('the busiest jobs and clients (job statistics), live; --once --json for scripts')
    .option('--mds <host:port>', 'MDS address (default: $STRIPEFS_MDS or 127.0.0.1:7070)')
    .option('--admin <url>', 'MDS admin URL (default: http(s)://MDS-host:MDS-port+1)')
    .option('--once', 'print one frame and exit')
    .option('--json', 'print JSON (with --once or --iterations)')
    .option('--sort <key>', 'rate (default: bytes/s now), bytes, ops or recent')
    .option('--limit <n>', `rows of jobs and of clients (default ${ROWS_DEFAULT})`)
    .option('--interval <seconds>', 'refresh every this many seconds (default 2)')
    .option('--iterations <n>', 'stop after this many frames (as top -n)')
    .action(top);
}
