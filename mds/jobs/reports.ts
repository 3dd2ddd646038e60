// Which OSS job reports the MDS has applied: each OSS numbers its reports
// from 1 per process (oss/job-usage.ts) and sends one again until it is
// answered, so a report whose number was applied already is a repeat. One
// entry per OSS process, bounded like every table of outside keys.
import { BoundedTable } from '../../common/jobs/bounded-table.js';
import type { HeartbeatRequest__Output } from '../../proto/index.js';

/** OSSs whose last report number the MDS remembers. */
export const REPORTING_OSS_MAX = 4096;

interface Ledger {
  startedMs: number;
  applied: number;
  /** Pairs the OSS dropped since it started (its own count). */
  dropped: number;
  lastSeenMs: number;
}

export class ReportLedger {
  private readonly byOss = new BoundedTable<Ledger>(REPORTING_OSS_MAX);

  /** True when `req` carries a report not applied yet (and marks it applied). */
  fresh(req: HeartbeatRequest__Output, nowMs: number): boolean {
    const ledger = this.byOss.touch(req.ossId, nowMs, () => ({
      startedMs: req.startedMs,
      applied: 0,
      dropped: 0,
      lastSeenMs: nowMs,
    }));
    if (ledger.startedMs !== req.startedMs) {
      ledger.startedMs = req.startedMs;
      ledger.applied = 0;
    }
    ledger.dropped = req.jobsDropped;
    if (req.jobsReport === 0 || req.jobsReport <= ledger.applied) return false;
    ledger.applied = req.jobsReport;
    return true;
  }

  /** Pairs the OSSs dropped, as each last said (since its start). */
  get ossDropped(): number {
    let sum = 0;
    for (const ledger of this.byOss.values()) sum += ledger.dropped;
    return sum;
  }
}
