// Job statistics and the table of clients at the MDS. Jobs (by job id) and
// clients (by session: one per connected StripeClient) count the metadata
// operations the MDS served them (observe.ts) and the data requests the OSSs
// reported in their heartbeats (reports.ts); tick() turns the counts into
// rates once per dashboard sample. Both tables are bounded (mds.jobsMax,
// mds.clientsMax): a new key at a full table drops the entry idle longest.
// A client is connected while it holds a map watch (every StripeClient does).
// Identities and eviction (issue 28) go on top of ClientEntry.
import { BoundedTable } from '../../common/jobs/bounded-table.js';
import type { RequestTag } from '../../common/jobs/job-id.js';
import type { Clock } from '../../common/random.js';
import type { HeartbeatRequest__Output } from '../../proto/index.js';
import { type Activity, countData, countMds, newActivity, tickRates } from './activity.js';
import { ReportLedger } from './reports.js';

/** Distinct sessions counted per job (a job of thousands of ranks shows "256+"). */
export const SESSIONS_PER_JOB_MAX = 256;
/** Job ids remembered per client, the latest first. */
export const JOBS_PER_CLIENT_MAX = 8;

export interface JobEntry {
  jobId: string;
  firstSeenMs: number;
  lastSeenMs: number;
  sessions: Set<string>;
  /** Metadata operations by RPC name (a bounded set: the contract's methods). */
  byOp: Map<string, number>;
  activity: Activity;
}

export interface ClientEntry {
  session: string;
  /** host:pid as the client said; '' until it called the MDS. */
  name: string;
  /** Where its last MDS call came from (ip:port). */
  address: string;
  jobIds: string[];
  firstSeenMs: number;
  lastSeenMs: number;
  /** Map watches open now. */
  watches: number;
  activity: Activity;
}

export class JobStats {
  readonly jobs: BoundedTable<JobEntry>;
  readonly clients: BoundedTable<ClientEntry>;
  private readonly ledger = new ReportLedger();
  private lastTickMs: number;
  /** How long the last tick's rates were measured over. */
  intervalMs = 0;
  sampledAtMs = 0;

  constructor(
    limits: { jobsMax: number; clientsMax: number },
    private readonly clock: Clock,
  ) {
    this.jobs = new BoundedTable(limits.jobsMax);
    this.clients = new BoundedTable(limits.clientsMax);
    this.lastTickMs = clock.monotonicMs();
  }

  /** Pairs the OSSs dropped to stay within oss.jobsMax. */
  get ossDropped(): number {
    return this.ledger.ossDropped;
  }

  private job(jobId: string, nowMs: number): JobEntry {
    return this.jobs.touch(jobId, nowMs, () => ({
      jobId,
      firstSeenMs: nowMs,
      lastSeenMs: nowMs,
      sessions: new Set(),
      byOp: new Map(),
      activity: newActivity(),
    }));
  }

  private client(session: string, nowMs: number): ClientEntry {
    return this.clients.touch(session, nowMs, () => ({
      session,
      name: '',
      address: '',
      jobIds: [],
      firstSeenMs: nowMs,
      lastSeenMs: nowMs,
      watches: 0,
      activity: newActivity(),
    }));
  }

  /** Both entries of a tagged request, each noting the other. */
  private entries(tag: RequestTag, nowMs: number): { job: JobEntry; client: ClientEntry } {
    const job = this.job(tag.jobId, nowMs);
    if (job.sessions.size < SESSIONS_PER_JOB_MAX) job.sessions.add(tag.session);
    const client = this.client(tag.session, nowMs);
    if (client.jobIds[0] !== tag.jobId) {
      client.jobIds = [tag.jobId, ...client.jobIds.filter((id) => id !== tag.jobId)].slice(
        0,
        JOBS_PER_CLIENT_MAX,
      );
    }
    return { job, client };
  }

  /** One metadata call the MDS served (`items` operations: a batch counts each). */
  recordMds(tag: RequestTag, address: string, op: string, items: number, ms: number, ok: boolean): void {
    const { job, client } = this.entries(tag, this.clock.nowMs());
    countMds(job.activity, items, ms, ok);
    if (ok) job.byOp.set(op, (job.byOp.get(op) ?? 0) + items);
    countMds(client.activity, items, ms, ok);
    client.address = address;
    if (tag.clientName) client.name = tag.clientName;
  }

  /** A map watch opened by a client; the returned function closes it. */
  watch(tag: RequestTag, address: string): () => void {
    const { client } = this.entries(tag, this.clock.nowMs());
    client.address = address;
    if (tag.clientName) client.name = tag.clientName;
    client.watches++;
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      client.watches = Math.max(0, client.watches - 1);
      client.lastSeenMs = this.clock.nowMs();
    };
  }

  /** The job report of an OSS heartbeat, applied once (reports.ts). */
  mergeReport(req: HeartbeatRequest__Output): void {
    const nowMs = this.clock.nowMs();
    if (!this.ledger.fresh(req, nowMs)) return;
    for (const usage of req.jobs) {
      const { job, client } = this.entries({ jobId: usage.jobId, session: usage.session }, nowMs);
      countData(job.activity, usage);
      countData(client.activity, usage);
    }
  }

  /** Rates of every job and client since the last tick (the dashboard sampler calls it). */
  tick(): void {
    const nowMs = this.clock.monotonicMs();
    this.intervalMs = nowMs - this.lastTickMs;
    this.lastTickMs = nowMs;
    this.sampledAtMs = this.clock.nowMs();
    for (const job of this.jobs.values()) tickRates(job.activity, this.intervalMs);
    for (const client of this.clients.values()) tickRates(client.activity, this.intervalMs);
  }
}
