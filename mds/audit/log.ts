// The audit log: one JSON line per namespace change, open, listing, identity
// or cluster administration, and every refused call (time, identity, client
// session, address, operation, paths, result code), written by the MDS that
// decided. Lines are appended in groups and fsynced before the group's
// promise resolves, off the event loop (write and fdatasync on the thread
// pool, one group at a time; lines appended meanwhile form the next group),
// so the MDS serves other calls while the disk syncs; the file is rotated by size (audit.log -> audit.log.1 ...,
// mds.auditFiles kept). Refusals are rate-limited per address, so a client
// hammering with a wrong key cannot fill the disk: what is dropped is counted
// in the next line that gets through (`suppressed`).
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  write,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

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

const writeAsync = promisify(write);
const fdatasyncAsync = promisify(fdatasync);

export class AuditLog {
  private fd: number;
  private sizeBytes: number;
  private pending: string[] = [];
  /** The group being written and synced now, and the one that takes the lines appended meanwhile. */
  private writing: Promise<void> | undefined;
  private next: Promise<void> | undefined;
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
   * The lines appended in one turn of the event loop are written and fsynced together after it, or
   * after the group being written now (one group at a time: the file's order is the appends').
   */
  private flushSoon(): Promise<void> {
    if (this.next) return this.next;
    const after = this.writing ?? new Promise<void>((resolve) => setImmediate(resolve));
    const group = after.then(() => {
      this.next = undefined;
      this.writing = group;
      return this.writePending();
    });
    this.next = group;
    void group.finally(() => {
      if (this.writing === group) this.writing = undefined;
    });
    return group;
  }

  /**
   * Writes and syncs what is pending. A failure stops the MDS as a failed group commit does: the
   * change it records is already applied, and an MDS that cannot keep its audit log must not go on.
   */
  private async writePending(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = Buffer.from(this.pending.join(''));
    const lines = this.pending.length;
    this.pending = [];
    try {
      if (this.sizeBytes > 0 && this.sizeBytes + text.length > this.options.fileBytesMax) this.rotate();
      for (let at = 0; at < text.length; )
        at += (await writeAsync(this.fd, text, at, text.length - at)).bytesWritten;
      await fdatasyncAsync(this.fd);
    } catch (err) {
      process.nextTick(() => {
        throw err;
      });
      throw err;
    }
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
    return this.next ?? this.writing ?? Promise.resolve();
  }

  async close(): Promise<void> {
    await this.flushed();
    if (this.pending.length > 0) {
      writeSync(this.fd, this.pending.join(''));
      fdatasyncSync(this.fd);
      this.pending = [];
    }
    closeSync(this.fd);
  }
}
