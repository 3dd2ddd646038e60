// ReadAudit: the newest records that match, read back from the current file
// and then the rotated ones, newest first, until enough are found.
import { existsSync, readFileSync } from 'node:fs';
import { StripeError } from '../../common/index.js';
import type { ReadAuditRequest__Output } from '../../proto/index.js';
import type { AuditLog, AuditRecord } from './log.js';

export const AUDIT_READ_LIMIT_DEFAULT = 20;
export const AUDIT_READ_LIMIT_MAX = 10_000;

function matches(line: string, request: ReadAuditRequest__Output): boolean {
  if (request.contains && !line.includes(request.contains)) return false;
  if (!request.identity && !request.op && !request.result) return true;
  const record = JSON.parse(line) as AuditRecord;
  return (
    (!request.identity || record.identity === request.identity) &&
    (!request.op || record.op.toLowerCase() === request.op.toLowerCase()) &&
    (!request.result || record.result === request.result)
  );
}

export async function readAudit(
  log: AuditLog,
  files: number,
  request: ReadAuditRequest__Output,
): Promise<string[]> {
  const limit = request.limit || AUDIT_READ_LIMIT_DEFAULT;
  if (limit > AUDIT_READ_LIMIT_MAX)
    throw new StripeError('REQ_INVALID', `limit above ${AUDIT_READ_LIMIT_MAX}`);
  // What was appended until now is in the files.
  await log.flushed();
  const found: string[] = [];
  for (let index = 0; index <= files && found.length < limit; index++) {
    const path = log.path(index);
    if (!existsSync(path)) break;
    const lines = readFileSync(path, 'utf8').split('\n');
    for (let i = lines.length - 1; i >= 0 && found.length < limit; i--) {
      const line = lines[i] as string;
      if (line !== '' && matches(line, request)) found.push(line);
    }
  }
  return found.reverse();
}
