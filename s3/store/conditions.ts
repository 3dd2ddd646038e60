// Conditional requests (RFC 9110 as S3 applies them) and byte ranges (pure).
import { s3Error } from '../errors.js';

export interface Validators {
  /** Quoted. */
  etag: string;
  mtimeMs: number;
}

export interface Conditions {
  ifMatch?: string | undefined;
  ifNoneMatch?: string | undefined;
  ifModifiedSince?: string | undefined;
  ifUnmodifiedSince?: string | undefined;
}

function etagList(header: string): string[] {
  return header.split(',').map((t) => t.trim().replace(/^W\//, ''));
}

function matches(header: string, etag: string): boolean {
  return etagList(header).some((t) => t === '*' || t === etag || `"${t}"` === etag);
}

/** HTTP dates have whole seconds; an object modified within the named second is not "since" it. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

function parseDate(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * 'ok', 'not-modified' (304 for GET and HEAD) or PreconditionFailed (412), in S3's order: If-Match
 * wins over If-Unmodified-Since, If-None-Match over If-Modified-Since.
 */
export function evaluate(conditions: Conditions, current: Validators): 'ok' | 'not-modified' {
  const { ifMatch, ifNoneMatch } = conditions;
  const unmodifiedSince = parseDate(conditions.ifUnmodifiedSince);
  const modifiedSince = parseDate(conditions.ifModifiedSince);
  if (ifMatch !== undefined) {
    if (!matches(ifMatch, current.etag))
      throw s3Error('PreconditionFailed', 'If-Match does not match the ETag');
  } else if (unmodifiedSince !== undefined && seconds(current.mtimeMs) > seconds(unmodifiedSince)) {
    throw s3Error('PreconditionFailed', 'the object was modified after If-Unmodified-Since');
  }
  if (ifNoneMatch !== undefined) {
    if (matches(ifNoneMatch, current.etag)) return 'not-modified';
  } else if (modifiedSince !== undefined && seconds(current.mtimeMs) <= seconds(modifiedSince)) {
    return 'not-modified';
  }
  return 'ok';
}

/** A satisfiable byte range [start, end] (inclusive), or undefined for the whole object. */
export function parseRange(
  header: string | undefined,
  sizeBytes: number,
): { start: number; end: number } | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Several ranges, or another unit: S3 answers with the whole object.
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) throw invalidRange(sizeBytes);
    start = Math.max(0, sizeBytes - suffix);
    end = sizeBytes - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? sizeBytes - 1 : Math.min(Number(m[2]), sizeBytes - 1);
    if (m[2] !== '' && Number(m[2]) < start) return undefined; // malformed: ignored, as RFC 9110 says
  }
  if (start >= sizeBytes) throw invalidRange(sizeBytes);
  return { start, end };
}

function invalidRange(sizeBytes: number) {
  return s3Error('InvalidRange', 'The requested range is not satisfiable', { sizeBytes });
}
