// Job statistics on an OSS: data requests counted per (client session, job
// id), as Lustre's jobstats. The request layer (oss/ops.ts) records each
// tagged request once it has finished. Heartbeats carry job reports: what
// changed since the previous report, at most JOB_REPORT_ENTRIES_MAX pairs (the
// rest go in the next). A report is numbered and sent again, unchanged, until
// a heartbeat carrying it is answered; the MDS applies each number once, so a
// heartbeat lost either way neither loses nor doubles a count, and the MDS
// keeps one number per OSS instead of a copy of every OSS's table. At most
// oss.jobsMax pairs: a new pair at a full table drops the pair idle longest
// (counted; what it had not reported yet is lost with it).
import { BoundedTable } from '../common/jobs/bounded-table.js';
import type { RequestTag } from '../common/jobs/job-id.js';
import { type DataUsage, emptyUsage, usageSince } from '../common/jobs/usage.js';
import { Counter, Gauge, type Registry } from '../common/metrics.js';
import type { JobUsage } from '../proto/index.js';

/** Pairs one job report carries at most. */
export const JOB_REPORT_ENTRIES_MAX = 512;

export type JobOp = 'read' | 'write' | 'other';

interface Entry {
  jobId: string;
  session: string;
  /** Since the pair was first seen. */
  usage: DataUsage;
  /** `usage` as far as it went into a report. */
  reported: DataUsage;
  /** Records so far, and how many of them went into a report. */
  changes: number;
  reportedChanges: number;
  lastSeenMs: number;
}

/** A numbered report, held until the MDS has answered a heartbeat that carried it. */
export interface JobReport {
  number: number;
  entries: JobUsage[];
}

export class OssJobUsage {
  private readonly table: BoundedTable<Entry>;
  private outstanding: JobReport | undefined;
  private reportsMade = 0;

  constructor(
    entriesMax: number,
    private readonly nowMs: () => number = () => Date.now(),
  ) {
    this.table = new BoundedTable(entriesMax);
  }

  get size(): number {
    return this.table.size;
  }

  get dropped(): number {
    return this.table.dropped;
  }

  get entriesMax(): number {
    return this.table.entriesMax;
  }

  /** Counts one finished request of a tagged client; untagged ones (MDS, peers) are not counted. */
  record(tag: RequestTag | undefined, op: JobOp, bytes: number, ms: number, ok: boolean): void {
    if (!tag) return;
    const entry = this.table.touch(`${tag.session}\n${tag.jobId}`, this.nowMs(), () => ({
      jobId: tag.jobId,
      session: tag.session,
      usage: emptyUsage(),
      reported: emptyUsage(),
      changes: 0,
      reportedChanges: 0,
      lastSeenMs: 0,
    }));
    entry.changes++;
    const u = entry.usage;
    if (!ok) u.errors++;
    else if (op === 'read') {
      u.readOps++;
      u.readBytes += bytes;
      u.readMs += ms;
    } else if (op === 'write') {
      u.writeOps++;
      u.writeBytes += bytes;
      u.writeMs += ms;
    } else {
      u.otherOps++;
      u.otherMs += ms;
    }
  }

  /**
   * The report the next heartbeat carries: the one not yet answered, else a new one of what
   * changed since the last (undefined when nothing did).
   */
  report(max = JOB_REPORT_ENTRIES_MAX): JobReport | undefined {
    if (this.outstanding) return this.outstanding;
    const entries: JobUsage[] = [];
    for (const entry of this.table.values()) {
      if (entry.changes === entry.reportedChanges) continue;
      if (entries.length >= max) break;
      entries.push({
        jobId: entry.jobId,
        session: entry.session,
        ...usageSince(entry.usage, entry.reported),
      });
      entry.reported = { ...entry.usage };
      entry.reportedChanges = entry.changes;
    }
    if (entries.length === 0) return undefined;
    this.outstanding = { number: ++this.reportsMade, entries };
    return this.outstanding;
  }

  /** The MDS answered a heartbeat carrying `report`: the next report holds newer changes. */
  acknowledge(report: JobReport | undefined): void {
    if (report && this.outstanding === report) this.outstanding = undefined;
  }

  /** Every pair with its counts since first seen, busiest (most bytes) first, for GET /api/jobs of the OSS. */
  view(): { jobId: string; session: string; lastSeenMs: number; usage: DataUsage }[] {
    const bytes = (u: DataUsage) => u.readBytes + u.writeBytes;
    return [...this.table.values()]
      .map((e) => ({ jobId: e.jobId, session: e.session, lastSeenMs: e.lastSeenMs, usage: { ...e.usage } }))
      .sort((a, b) => bytes(b.usage) - bytes(a.usage));
  }
}

/** The OSS's own view of its job statistics: the table's size and drops (the MDS exports the counts per job). */
export function registerJobMetrics(registry: Registry, jobs: OssJobUsage): void {
  new Gauge({
    name: 'stripefs_oss_job_entries',
    help: 'Client session and job pairs this OSS counts data requests of (at most oss.jobsMax)',
    registers: [registry],
    collect() {
      this.set(jobs.size);
    },
  });
  new Counter({
    name: 'stripefs_oss_jobs_dropped_total',
    help: 'Session and job pairs dropped to make room for new ones (the idlest first)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(jobs.dropped);
    },
  });
}
