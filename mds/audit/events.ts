// What the MDS audits, and how a call becomes an audit record: the calls that
// change the namespace, open or list it, or administer identities and the
// cluster, whatever their result; and every call refused by auth (AUTH_*),
// whichever method it named. Stats and map reads that succeed are not logged.
import type * as grpc from '@grpc/grpc-js';
import { addressOfPeer } from '../../common/auth/cidr.js';
import { AUTH_METADATA_KEY } from '../../common/auth/proof.js';
import { LIMITS, StripeError } from '../../common/index.js';
import type { ReportAuditRequest__Output } from '../../proto/index.js';
import type { Principal } from '../auth/guard.js';
import type { AuditLog, AuditRecord } from './log.js';

const AUDITED = new Set([
  'Mkdir',
  'Rmdir',
  'Create',
  'CreateMany',
  'Open',
  'OpenMany',
  'Readdir',
  'Rename',
  'Unlink',
  'UnlinkMany',
  'Commit',
  'CommitMany',
  'SetLayout',
  'SetAttr',
  'SetXattr',
  'RemoveXattr',
  'Symlink',
  'AdminOst',
  'AuthAdd',
  'AuthSetCaps',
  'AuthRotate',
  'AuthRemove',
  'ReadAudit',
  'EvictClient',
  // Data-path tickets handed out apart from an open (renewals, admins' service tickets).
  'GetTickets',
]);
/**
 * Audited calls that change nothing (opens and listings): answered without waiting for their line's
 * fsync (the line is written in order, in the next group, and synced with it). A call that changes
 * the namespace, identities or the cluster is answered only once its line is on disk. Why: the
 * audit fsync was the bound of small-file reads (64 KiB readFile 250 -> 503 files/s in one run).
 */
const CHANGES_NOTHING = new Set(['Open', 'OpenMany', 'Readdir']);

/** Paths named in one record at most (a batch's first ones). */
const RECORD_PATHS_MAX = 16;

type Req = Record<string, unknown>;
type Call = { metadata: grpc.Metadata; getPeer(): string };

/** The paths (or inode, or identity name) a request names. */
export function pathsOf(request: Req): string[] {
  const out: string[] = [];
  for (const key of ['path', 'fromPath', 'toPath'] as const)
    if (typeof request[key] === 'string') out.push(request[key] as string);
  if (Array.isArray(request.items))
    for (const item of request.items as { path?: unknown; inode?: unknown }[])
      if (typeof item.path === 'string') out.push(item.path);
      else if (typeof item.inode === 'number' && item.inode > 0) out.push(`inode:${item.inode}`);
  if (typeof request.inode === 'number' && request.inode > 0) out.push(`inode:${request.inode}`);
  if (typeof request.name === 'string' && out.length === 0) out.push(`identity:${request.name}`);
  if (typeof request.ostId === 'number' && out.length === 0) out.push(`ost:${request.ostId}`);
  if (typeof request.id === 'string' && out.length === 0) out.push(`client:${request.id}`);
  return out.slice(0, RECORD_PATHS_MAX);
}

/** The name a refused call claimed (unverified), from its signature's metadata. */
function claimedName(call: Call): string {
  const value = call.metadata.get(AUTH_METADATA_KEY)[0];
  return typeof value === 'string' ? (value.split(' ')[1] ?? '') : '';
}

export class Auditor {
  constructor(
    readonly log: AuditLog,
    /** Rotated files kept beside the current one (what ReadAudit searches). */
    readonly files: number,
  ) {}

  /**
   * Records a finished call of an audited method; resolves once the line is on disk, or at once for
   * a call that changes nothing (CHANGES_NOTHING: its line follows in the next synced group).
   */
  done(who: Principal | undefined, call: Call, method: string, request: Req, result: string): Promise<void> {
    if (!AUDITED.has(method)) return Promise.resolve();
    const written = this.log.append(this.recordOf(who, call, method, request, result));
    if (!CHANGES_NOTHING.has(method)) return written;
    // A failed write stops the MDS (AuditLog.writePending); nothing to answer here.
    written.catch(() => undefined);
    return Promise.resolve();
  }

  /** Whether a call of `method` that succeeds waits for its line (it changes something). */
  waitsFor(method: string): boolean {
    return AUDITED.has(method) && !CHANGES_NOTHING.has(method);
  }

  /** Records a refusal (rate-limited per address); never waits for the disk. */
  refused(
    who: Principal | undefined,
    call: Call | undefined,
    method: string,
    paths: string[],
    code: string,
  ): void {
    void this.log.append({ ...this.recordOf(who, call, method, {}, code), paths });
  }

  /**
   * Writes the refusals another process decided (ReportAudit: the S3 gateway, an OSS), each with
   * the door it came through and the reporting identity; resolves once they are on disk.
   */
  async reported(who: Principal | undefined, request: ReportAuditRequest__Output): Promise<void> {
    checkReports(request);
    const by = who?.identity.record.name ?? '';
    const writes = request.reports.map((report, index) =>
      this.log.append({
        identity: report.identity,
        client: '',
        address: report.address,
        op: report.op,
        paths: report.paths.slice(0, RECORD_PATHS_MAX),
        result: report.result,
        door: report.door,
        by,
        ...(index === 0 && request.dropped > 0 ? { suppressed: request.dropped } : {}),
      }),
    );
    await Promise.all(writes);
  }

  private recordOf(
    who: Principal | undefined,
    call: Call | undefined,
    method: string,
    request: Req,
    result: string,
  ): Omit<AuditRecord, 'time'> {
    const peer = call?.getPeer() ?? '';
    return {
      identity: who?.identity.record.name ?? (call ? claimedName(call) : ''),
      client: who?.session.clientId ?? '',
      address: who?.address ?? addressOfPeer(peer) ?? peer,
      op: method,
      paths: pathsOf(request),
      result,
    };
  }
}

const CODE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
const DOOR_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
/** Bytes of one reported field at most (an operation, an address, a claimed name). */
const REPORT_FIELD_BYTES_MAX = 256;

function checkReports(request: ReportAuditRequest__Output): void {
  if (request.reports.length > LIMITS.namespaceBatchItemsMax)
    throw new StripeError(
      'REQ_TOO_LARGE',
      `ReportAudit takes at most ${LIMITS.namespaceBatchItemsMax} reports`,
    );
  for (const report of request.reports) {
    const fields = [report.identity, report.address, report.op];
    const bad =
      !CODE_PATTERN.test(report.result) ||
      !DOOR_PATTERN.test(report.door) ||
      fields.some((field) => field.length > REPORT_FIELD_BYTES_MAX) ||
      report.paths.some((path) => path.length > LIMITS.pathBytesMax);
    if (bad)
      throw new StripeError(
        'REQ_INVALID',
        `a reported refusal needs a result code, a door of a-z 0-9 -, and fields of at most ${REPORT_FIELD_BYTES_MAX} bytes`,
      );
  }
}
