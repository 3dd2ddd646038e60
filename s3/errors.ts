// S3 error codes on the wire and the stripefs registry codes behind them.
// Every failure the gateway answers is a StripeError with a registry code
// (common/errors.ts, docs/errors.md); the S3 code a client switches on (and
// the exact HTTP status S3 gives it) travels in details.s3Code. Errors from
// the client library are mapped by the operation that met them (an
// NS_NOT_FOUND is NoSuchKey on an object, NoSuchBucket on a bucket).
import { ERROR_CODES, type ErrorCode, StripeError } from '../common/errors.js';

interface WireSpec {
  readonly code: ErrorCode;
  readonly http: number;
}

/** Each S3 error code the gateway sends, with its HTTP status and registry code. */
export const S3_WIRE_ERRORS = {
  AccessDenied: { code: 'S3_ACCESS_DENIED', http: 403 },
  InvalidAccessKeyId: { code: 'S3_ACCESS_DENIED', http: 403 },
  RequestTimeTooSkewed: { code: 'S3_ACCESS_DENIED', http: 403 },
  SignatureDoesNotMatch: { code: 'S3_SIGNATURE_MISMATCH', http: 403 },
  AuthorizationHeaderMalformed: { code: 'S3_REQUEST_INVALID', http: 400 },
  AuthorizationQueryParametersError: { code: 'S3_REQUEST_INVALID', http: 400 },
  MissingSecurityHeader: { code: 'S3_REQUEST_INVALID', http: 400 },
  XAmzContentSHA256Mismatch: { code: 'S3_BAD_DIGEST', http: 400 },
  BadDigest: { code: 'S3_BAD_DIGEST', http: 400 },
  InvalidDigest: { code: 'S3_REQUEST_INVALID', http: 400 },
  IncompleteBody: { code: 'S3_REQUEST_INVALID', http: 400 },
  MalformedXML: { code: 'S3_REQUEST_INVALID', http: 400 },
  InvalidArgument: { code: 'S3_REQUEST_INVALID', http: 400 },
  InvalidRequest: { code: 'S3_REQUEST_INVALID', http: 400 },
  MissingContentLength: { code: 'S3_REQUEST_INVALID', http: 411 },
  MetadataTooLarge: { code: 'S3_REQUEST_INVALID', http: 400 },
  NoSuchBucket: { code: 'S3_NO_SUCH_BUCKET', http: 404 },
  BucketAlreadyOwnedByYou: { code: 'S3_BUCKET_EXISTS', http: 409 },
  BucketNotEmpty: { code: 'S3_BUCKET_NOT_EMPTY', http: 409 },
  InvalidBucketName: { code: 'S3_INVALID_NAME', http: 400 },
  KeyTooLongError: { code: 'S3_INVALID_NAME', http: 400 },
  InvalidObjectName: { code: 'S3_INVALID_NAME', http: 400 },
  NoSuchKey: { code: 'S3_NO_SUCH_KEY', http: 404 },
  KeyConflict: { code: 'S3_KEY_CONFLICT', http: 409 },
  InvalidRange: { code: 'S3_INVALID_RANGE', http: 416 },
  PreconditionFailed: { code: 'S3_PRECONDITION_FAILED', http: 412 },
  NoSuchUpload: { code: 'S3_NO_SUCH_UPLOAD', http: 404 },
  EntityTooSmall: { code: 'S3_ENTITY_SIZE', http: 400 },
  EntityTooLarge: { code: 'S3_ENTITY_SIZE', http: 400 },
  InvalidPart: { code: 'S3_INVALID_PART', http: 400 },
  InvalidPartOrder: { code: 'S3_INVALID_PART', http: 400 },
  NotImplemented: { code: 'S3_NOT_IMPLEMENTED', http: 501 },
  MethodNotAllowed: { code: 'S3_REQUEST_INVALID', http: 405 },
  SlowDown: { code: 'REQ_UNAVAILABLE', http: 503 },
  ServiceUnavailable: { code: 'REQ_UNAVAILABLE', http: 503 },
  InternalError: { code: 'REQ_INTERNAL', http: 500 },
} as const satisfies Record<string, WireSpec>;

export type S3WireCode = keyof typeof S3_WIRE_ERRORS;

/** A coded failure with its S3 wire code. */
export function s3Error(
  s3Code: S3WireCode,
  message: string,
  details: Record<string, unknown> = {},
): StripeError {
  return new StripeError(S3_WIRE_ERRORS[s3Code].code, message, { ...details, s3Code });
}

/** What a failed operation meets: the bucket (NoSuchBucket) or an object (NoSuchKey). */
export type ErrorSubject = 'bucket' | 'object' | 'upload';

const NOT_FOUND_BY_SUBJECT: Record<ErrorSubject, S3WireCode> = {
  bucket: 'NoSuchBucket',
  object: 'NoSuchKey',
  upload: 'NoSuchUpload',
};

/** The S3 code and HTTP status for any error the gateway meets. */
export function wireOf(
  err: unknown,
  subject: ErrorSubject,
): { s3Code: string; http: number; code: ErrorCode } {
  if (!(err instanceof StripeError)) return { s3Code: 'InternalError', http: 500, code: 'REQ_INTERNAL' };
  const given = err.details.s3Code as S3WireCode | undefined;
  if (given) return { s3Code: given, http: S3_WIRE_ERRORS[given].http, code: err.code };
  const named = (s3Code: S3WireCode) => ({ s3Code, http: S3_WIRE_ERRORS[s3Code].http, code: err.code });
  switch (err.code) {
    case 'NS_NOT_FOUND':
    case 'NS_NOT_DIR':
      return named(NOT_FOUND_BY_SUBJECT[subject]);
    case 'NS_NAME_TOO_LONG':
      return named('KeyTooLongError');
    case 'NS_INVALID_NAME':
      return named('InvalidObjectName');
    case 'REQ_INVALID':
    case 'LAYOUT_INVALID':
      return named('InvalidArgument');
    case 'REQ_UNAVAILABLE':
    case 'REQ_TIMEOUT':
    case 'IO_DEGRADED':
    case 'IO_FAILED':
    case 'MAP_NOT_ENOUGH_DOMAINS':
    case 'FAULT_INJECTED':
      return named('ServiceUnavailable');
    case 'REQ_INTERNAL':
      return named('InternalError');
    // The MDS no longer takes the identity's key (rotated or removed since the gateway read it).
    case 'AUTH_INVALID':
      return named('InvalidAccessKeyId');
    default:
      // Refused by the MDS (caps, an allow-list, an eviction) or an OSS (a ticket): keeps its code.
      if (err.code.startsWith('AUTH_') || err.code.startsWith('TICKET_')) return named('AccessDenied');
      // No S3 code says it better (a full OST, a conflict in the namespace): the registry's own.
      return { s3Code: err.code, http: ERROR_CODES[err.code].http, code: err.code };
  }
}
