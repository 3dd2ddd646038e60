// Refusals decided outside the MDS (the S3 gateway, an OSS's doors, the admin
// HTTP APIs) go to the MDS's audit log, so one log holds every denial. They
// are queued and sent in batches (ReportAudit): one batch at a time, at most
// REPORT_BATCH_MAX each, at least every REPORT_INTERVAL_MS while any wait.
// The queue is bounded: past REPORTS_QUEUED_MAX a refusal is only counted,
// and the count travels with the next batch (the MDS writes it as
// `suppressed`), as the MDS's own rate limit does. A batch that cannot be sent
// is counted as dropped too, and the failure is logged once per streak.

export interface RefusalReport {
  /** The identity the refused request claimed ('' for none). */
  identity: string;
  address: string;
  op: string;
  paths: string[];
  /** The registry code it was refused with. */
  result: string;
  /** Where: s3, oss-grpc, oss-bulk, oss-http, mds-http. */
  door: string;
}

export const REPORT_INTERVAL_MS = 200;
export const REPORT_BATCH_MAX = 100;
export const REPORTS_QUEUED_MAX = 1_000;

export class AuditReporter {
  private queue: RefusalReport[] = [];
  private dropped = 0;
  private sending: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private failing = false;
  /** Reports the MDS accepted, for tests and metrics. */
  sent = 0;

  constructor(
    private readonly send: (reports: RefusalReport[], dropped: number) => Promise<void>,
    private readonly onFailure: (err: unknown) => void,
  ) {}

  report(report: RefusalReport): void {
    if (this.queue.length >= REPORTS_QUEUED_MAX) {
      this.dropped += 1;
      return;
    }
    this.queue.push(report);
    if (this.queue.length >= REPORT_BATCH_MAX) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), REPORT_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /** Sends what is queued (after the batch in flight); resolves when it was sent or given up. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.sending) await this.sending;
    if (this.queue.length === 0 && this.dropped === 0) return;
    const batch = this.queue.splice(0, REPORT_BATCH_MAX);
    const dropped = this.dropped;
    this.dropped = 0;
    this.sending = this.send(batch, dropped).then(
      () => {
        this.sent += batch.length;
        this.failing = false;
      },
      (err: unknown) => {
        this.dropped += dropped + batch.length;
        if (!this.failing) this.onFailure(err);
        this.failing = true;
      },
    );
    try {
      await this.sending;
    } finally {
      this.sending = undefined;
    }
    if (this.queue.length > 0) await this.flush();
  }

  /** Sends what is queued, then stops the timer. */
  async close(): Promise<void> {
    await this.flush();
    clearTimeout(this.timer);
  }
}
