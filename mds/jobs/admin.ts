// Job statistics on the MDS's admin server:
//   GET /api/jobs?limit=&sort=     busiest jobs (sort: rate, bytes, ops, recent)
//   GET /api/clients?limit=&sort=  the table of clients
// and their Prometheus series (one set per job, at most mds.jobsMax jobs).
import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from '../../common/metrics.js';
import type { JobStats } from './job-stats.js';
import { clientsAnswer, jobsAnswer, type ListQuery, parseListQuery } from './views.js';

export function registerJobAdmin(app: FastifyInstance, stats: JobStats): void {
  app.get<{ Querystring: ListQuery }>('/api/jobs', async (request) => {
    const { limit, sort } = parseListQuery(request.query);
    return jobsAnswer(stats, limit, sort);
  });
  app.get<{ Querystring: ListQuery }>('/api/clients', async (request) => {
    const { limit, sort } = parseListQuery(request.query);
    return clientsAnswer(stats, limit, sort);
  });
}

/** Per-job counters from the MDS's totals (it owns them: they never go down while it runs). */
const JOB_COUNTERS = [
  ['stripefs_job_read_bytes_total', 'Bytes read by the job (OSS reports)', (j) => j.data.readBytes],
  ['stripefs_job_write_bytes_total', 'Bytes written by the job (OSS reports)', (j) => j.data.writeBytes],
  ['stripefs_job_read_ops_total', 'Read requests of the job at the OSSs', (j) => j.data.readOps],
  ['stripefs_job_write_ops_total', 'Write requests of the job at the OSSs', (j) => j.data.writeOps],
  ['stripefs_job_mds_ops_total', 'Metadata operations of the job at the MDS', (j) => j.mds.ops],
  [
    'stripefs_job_read_seconds_total',
    "Summed time of the job's read requests at the OSSs",
    (j) => j.data.readMs / 1000,
  ],
  [
    'stripefs_job_write_seconds_total',
    "Summed time of the job's write requests at the OSSs",
    (j) => j.data.writeMs / 1000,
  ],
  [
    'stripefs_job_mds_seconds_total',
    "Summed time of the job's metadata calls at the MDS",
    (j) => j.mds.ms / 1000,
  ],
] as const satisfies readonly [string, string, (a: import('./activity.js').Activity) => number][];

export function registerJobMetrics(registry: Registry, stats: JobStats): void {
  for (const [name, help, pick] of JOB_COUNTERS) {
    new Counter({
      name,
      help,
      // Not `job`: Prometheus gives every scraped series its own `job` (the scrape job's name).
      labelNames: ['job_id'],
      registers: [registry],
      collect() {
        this.reset();
        for (const job of stats.jobs.values()) this.inc({ job_id: job.jobId }, pick(job.activity));
      },
    });
  }
  new Gauge({
    name: 'stripefs_mds_jobs',
    help: 'Jobs the MDS keeps statistics of (at most mds.jobsMax)',
    registers: [registry],
    collect() {
      this.set(stats.jobs.size);
    },
  });
  new Gauge({
    name: 'stripefs_mds_clients',
    help: 'Client sessions in the MDS table: connected (holding a map watch) or idle',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      let connected = 0;
      for (const c of stats.clients.values()) if (c.watches > 0) connected++;
      this.set({ state: 'connected' }, connected);
      this.set({ state: 'idle' }, stats.clients.size - connected);
    },
  });
  const dropped = (name: string, help: string, value: () => number) =>
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  dropped(
    'stripefs_mds_jobs_dropped_total',
    'Jobs dropped to make room (the idlest first)',
    () => stats.jobs.dropped,
  );
  dropped(
    'stripefs_mds_clients_dropped_total',
    'Client sessions dropped to make room (the idlest first)',
    () => stats.clients.dropped,
  );
  new Gauge({
    name: 'stripefs_mds_oss_job_pairs_dropped',
    help: 'Session and job pairs the OSSs dropped to stay within oss.jobsMax, as they last reported',
    registers: [registry],
    collect() {
      this.set(stats.ossDropped);
    },
  });
}
