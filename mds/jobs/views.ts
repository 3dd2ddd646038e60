// The JSON shapes of GET /api/jobs and GET /api/clients (stripefs top, the
// dashboard): busiest first, at most `limit` entries.
import { StripeError } from '../../common/errors.js';
import { busiest, SORT_KEYS, type SortKey } from './activity.js';
import type { ClientEntry, JobEntry, JobStats } from './job-stats.js';

/** Entries one answer lists at most (and by default). */
export const LISTED_MAX = 1000;
export const LISTED_DEFAULT = 50;

export interface ListQuery {
  limit?: string;
  sort?: string;
}

export function parseListQuery(query: ListQuery): { limit: number; sort: SortKey } {
  const limit = query.limit === undefined ? LISTED_DEFAULT : Number(query.limit);
  if (!/^\d+$/.test(String(query.limit ?? LISTED_DEFAULT)) || limit < 1 || limit > LISTED_MAX)
    throw new StripeError('REQ_INVALID', `limit: expected a whole number from 1 to ${LISTED_MAX}`);
  const sort = (query.sort ?? 'rate') as SortKey;
  if (!SORT_KEYS.includes(sort))
    throw new StripeError('REQ_INVALID', `sort: expected one of ${SORT_KEYS.join(', ')}`);
  return { limit, sort };
}

function jobView(job: JobEntry) {
  const { mds, data, rates } = job.activity;
  return {
    jobId: job.jobId,
    firstSeenMs: job.firstSeenMs,
    lastSeenMs: job.lastSeenMs,
    sessions: job.sessions.size,
    mds: { ...mds, byOp: Object.fromEntries(job.byOp) },
    data: { ...data },
    rates: { ...rates },
  };
}

export type JobView = ReturnType<typeof jobView>;

function clientView(client: ClientEntry) {
  const { mds, data, rates } = client.activity;
  return {
    session: client.session,
    name: client.name,
    address: client.address,
    jobIds: [...client.jobIds],
    connected: client.watches > 0,
    firstSeenMs: client.firstSeenMs,
    lastSeenMs: client.lastSeenMs,
    mds: { ...mds },
    data: { ...data },
    rates: { ...rates },
  };
}

export type ClientView = ReturnType<typeof clientView>;

export function jobsAnswer(stats: JobStats, limit: number, sort: SortKey) {
  const jobs = [...stats.jobs.values()];
  return {
    sampledAtMs: stats.sampledAtMs,
    intervalMs: stats.intervalMs,
    jobsMax: stats.jobs.entriesMax,
    tracked: jobs.length,
    dropped: stats.jobs.dropped,
    ossDropped: stats.ossDropped,
    jobs: busiest(jobs, sort).slice(0, limit).map(jobView),
  };
}

export function clientsAnswer(stats: JobStats, limit: number, sort: SortKey) {
  const clients = [...stats.clients.values()];
  return {
    sampledAtMs: stats.sampledAtMs,
    intervalMs: stats.intervalMs,
    clientsMax: stats.clients.entriesMax,
    tracked: clients.length,
    connected: clients.filter((c) => c.watches > 0).length,
    dropped: stats.clients.dropped,
    clients: busiest(clients, sort).slice(0, limit).map(clientView),
  };
}
