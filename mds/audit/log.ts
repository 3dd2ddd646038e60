// The audit log: one JSON line per namespace change, open, listing, identity
// or cluster administration, and every refused call (time, identity, client
// session, address, operation, paths, result code), written by the MDS that
// decided. Lines are appended in groups and fsynced before the group's
// promise resolves; the file is rotated by size (audit.log -> audit.log.1 ...,
// mds.auditFiles kept). Refusals are rate-limited per address, so a client
// hammering with a wrong key cannot fill the disk: what is dropped is counted
// in the next line that gets through (`suppressed`).
import {
  closeSync,
  fdatasyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

export interface AuditRecord {
  time: string;
  identity: string;
  client: string;
  address: string;
  op: string;
  paths: string[];
  result: string;
  /** Refusals not written (over the rate limit, or dropped by a reporter) since the last one that was. */
  suppressed?: number;
  /** Where a refusal another process reported came through (s3, oss-grpc, oss-bulk, oss-http, mds-http). */
  door?: string;
  /** The identity that reported it (ReportAudit). */
  by?: string;
}

export interface AuditOptions {
  dir: string;
  fileBytesMax: number;
  files: number;
  /** Refusals logged per address per second at most (a burst of 10 times that). */
  deniedPerSec: number;
  nowMs?: () => number;
}

/** Addresses whose refusal budget is kept (the oldest is forgotten first). */
const DENIAL_BUCKETS_MAX = 10_000;

export const AUDIT_FILE = 'audit.log';

export class AuditLog {
  private fd: number;
  private sizeBytes: number;
  private pending: string[] = [];
  private flushing: Promise<void> | undefined;
  private readonly buckets = new Map<string, { tokens: number; atMs: number; dropped: number }>();
  private readonly nowMs: () => number;
  /** Lines written and refusals dropped, for metrics and tests. */
  written = 0;
  dropped = 0;

  constructor(private readonly options: AuditOptions) {
    mkdirSync(options.dir, { recursive: true });
    this.nowMs = options.nowMs ?? Date.now;
    this.fd = openSync(this.path(0), 'a', 0o600);
    this.sizeBytes = statSync(this.path(0)).size;
  }

  path(index: number): string {
    return join(this.options.dir, index === 0 ? AUDIT_FILE : `${AUDIT_FILE}.${index}`);
  }

  /** Appends a record; resolves once it is on disk. A refusal over its address's budget is counted instead. */
  append(record: Omit<AuditRecord, 'time'>): Promise<void> {
    const denied = record.result !== 'OK';
    let suppressed = record.suppressed ?? 0;
    if (denied) {
      const bucket = this.bucketOf(record.address);
      if (bucket.tokens < 1) {
        bucket.dropped += 1 + suppressed;
        this.dropped += 1;
        return Promise.resolve();
      }
      bucket.tokens -= 1;
      suppressed += bucket.dropped;
      bucket.dropped = 0;
    }
    const line = {
      time: new Date(this.nowMs()).toISOString(),
      ...record,
      ...(suppressed ? { suppressed } : {}),
    };
    this.pending.push(`${JSON.stringify(line)}\n`);
    return this.flushSoon();
  }

  private bucketOf(address: string) {
    const nowMs = this.nowMs();
    const rate = this.options.deniedPerSec;
    let bucket = this.buckets.get(address);
    if (!bucket) {
      if (this.buckets.size >= DENIAL_BUCKETS_MAX)
        this.buckets.delete(this.buckets.keys().next().value as string);
      bucket = { tokens: rate * 10, atMs: nowMs, dropped: 0 };
      this.buckets.set(address, bucket);
    }
    bucket.tokens = Math.min(rate * 10, bucket.tokens + ((nowMs - bucket.atMs) / 1000) * rate);
    bucket.atMs = nowMs;
    return bucket;
  }

  /**
   * The lines appended in one turn of the event loop are written and fsynced together at its end
   * (the write is synchronous, so a line appended before it runs is in it).
   */
  private flushSoon(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = new Promise<void>((resolve) => {
      setImmediate(() => {
        this.writePending();
        this.flushing = undefined;
        resolve();
      });
    });
    return this.flushing;
  }

  private writePending(): void {
    if (this.pending.length === 0) return;
    const text = Buffer.from(this.pending.join(''));
    const lines = this.pending.length;
    this.pending = [];
    if (this.sizeBytes > 0 && this.sizeBytes + text.length > this.options.fileBytesMax) this.rotate();
    writeSync(this.fd, text);
    fdatasyncSync(this.fd);
    this.sizeBytes += text.length;
    this.written += lines;
  }

  private rotate(): void {
    closeSync(this.fd);
    rmSync(this.path(this.options.files), { force: true });
    for (let i = this.options.files - 1; i >= 0; i--) {
      try {
        renameSync(this.path(i), this.path(i + 1));
      } catch (err) {
        // A file that was never written (fewer rotations so far) has nothing to move.
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    this.fd = openSync(this.path(0), 'a', 0o600);
    this.sizeBytes = 0;
  }

  /** Resolves once every line appended so far is written. */
  flushed(): Promise<void> {
    return this.flushing ?? Promise.resolve();
  }

  async close(): Promise<void> {
    await this.flushing;
    this.writePending();
    closeSync(this.fd);
  }
}
