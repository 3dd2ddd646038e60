// The one error registry of stripefs. Every error that crosses a process
// boundary carries one of these stable codes; the transport status (gRPC,
// HTTP) and the POSIX errno a user expects are derived from it at the edges.
// docs/errors.md lists the same table and a test keeps the two equal.
import { status as GrpcStatus } from '@grpc/grpc-js';

interface ErrorSpec {
  readonly grpc: GrpcStatus;
  readonly http: number;
  readonly errno: string;
  readonly summary: string;
}

function spec(grpc: GrpcStatus, http: number, errno: string, summary: string): ErrorSpec {
  return { grpc, http, errno, summary };
}

const G = GrpcStatus;

/**
 * Codes grouped by subsystem: CONFIG_, NS_ (namespace), XATTR_ (extended attributes), LAYOUT_, MAP_, PLACEMENT_,
 * OBJ_ (object store), IO_, MOUNT_, AUTH_ (identities and caps), TICKET_ (data-path tickets), TLS_ (TLS on gRPC and the bulk path), FAULT_, REQ_, CKPT_ (checkpoints), DATASET_ (packed datasets), S3_ (the S3 gateway); OST_DOWN and WRITE_SKIPPED
 * are the client's verdicts on one copy (in `details.failures`, and the reason a skipped copy is reported for repair).
 */
export const ERROR_CODES = {
  CONFIG_INVALID: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'A configuration key is missing or has the wrong form',
  ),
  REQ_INVALID: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'A request field is missing, malformed or out of range',
  ),
  REQ_TOO_LARGE: spec(G.RESOURCE_EXHAUSTED, 413, 'E2BIG', 'A request or message exceeds its size limit'),
  REQ_TIMEOUT: spec(G.DEADLINE_EXCEEDED, 504, 'ETIMEDOUT', 'The request did not finish within its deadline'),
  REQ_UNAVAILABLE: spec(
    G.UNAVAILABLE,
    503,
    'EHOSTDOWN',
    'The server could not be reached or is shutting down',
  ),
  REQ_INTERNAL: spec(G.INTERNAL, 500, 'EIO', 'An unexpected server failure; see the server log'),
  NS_NOT_FOUND: spec(G.NOT_FOUND, 404, 'ENOENT', 'No such file or directory'),
  NS_EXISTS: spec(G.ALREADY_EXISTS, 409, 'EEXIST', 'The name already exists'),
  NS_NOT_DIR: spec(G.FAILED_PRECONDITION, 409, 'ENOTDIR', 'A path component is not a directory'),
  NS_IS_DIR: spec(G.FAILED_PRECONDITION, 409, 'EISDIR', 'The path is a directory'),
  NS_NOT_EMPTY: spec(G.FAILED_PRECONDITION, 409, 'ENOTEMPTY', 'The directory is not empty'),
  NS_INVALID_NAME: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'The path or name is empty, not absolute, or holds NUL, "." or ".."',
  ),
  NS_NAME_TOO_LONG: spec(G.INVALID_ARGUMENT, 400, 'ENAMETOOLONG', 'A name or path is longer than allowed'),
  NS_INVALID_RENAME: spec(G.INVALID_ARGUMENT, 400, 'EINVAL', 'A directory cannot be moved into itself'),
  NS_BUSY: spec(G.FAILED_PRECONDITION, 409, 'EBUSY', 'The root directory cannot be removed or renamed'),
  NS_IS_SYMLINK: spec(
    G.FAILED_PRECONDITION,
    409,
    'ELOOP',
    'The path is a symlink where a file is needed: stripefs paths never follow symlinks (a mount lets the kernel follow them)',
  ),
  NS_NOT_SYMLINK: spec(G.INVALID_ARGUMENT, 400, 'EINVAL', 'readlink of a path that is not a symlink'),
  NS_DOM_CORRUPT: spec(
    G.DATA_LOSS,
    500,
    'EBADMSG',
    "A file's bytes kept on the MDS (data on the MDS) fail their checksum or length: the MDS database holds one copy, so rewrite the file",
  ),
  XATTR_NOT_FOUND: spec(G.NOT_FOUND, 404, 'ENODATA', 'No extended attribute of that name'),
  XATTR_EXISTS: spec(G.ALREADY_EXISTS, 409, 'EEXIST', 'The extended attribute exists (create only)'),
  XATTR_NOT_SUPPORTED: spec(
    G.UNIMPLEMENTED,
    501,
    'EOPNOTSUPP',
    'Only user., trusted. and security. extended attributes are stored',
  ),
  XATTR_NAME_TOO_LONG: spec(G.INVALID_ARGUMENT, 400, 'ERANGE', 'The extended attribute name is too long'),
  XATTR_TOO_LARGE: spec(
    G.RESOURCE_EXHAUSTED,
    413,
    'E2BIG',
    'The extended attribute value, or all of one entry together, exceeds its size limit',
  ),
  XATTR_TOO_MANY: spec(
    G.RESOURCE_EXHAUSTED,
    507,
    'ENOSPC',
    'The entry has as many extended attributes as allowed',
  ),
  LAYOUT_INVALID: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'The layout is impossible (stripe size, count, k+m, replicas, failure domain)',
  ),
  LAYOUT_AMBIGUOUS: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'The layout text has a bare number where a size could be meant; the message says what to write',
  ),
  LAYOUT_READ_ONLY: spec(
    G.FAILED_PRECONDITION,
    409,
    'EROFS',
    'ec files take appends or whole stripes from a stripe boundary: a partial overwrite is not supported',
  ),
  LAYOUT_FIXED: spec(
    G.FAILED_PRECONDITION,
    409,
    'EPERM',
    "A file's layout is fixed when it is created: set its directory's default, or create it with a layout",
  ),
  MAP_STALE: spec(
    G.FAILED_PRECONDITION,
    409,
    'ESTALE',
    'The sender used an old cluster map: refresh it and retry',
  ),
  MAP_UNKNOWN_OST: spec(G.NOT_FOUND, 404, 'ENODEV', 'No OST with that id exists here'),
  MAP_UNKNOWN_EPOCH: spec(G.NOT_FOUND, 404, 'ENOENT', 'That map epoch is no longer kept'),
  MAP_NOT_ENOUGH_DOMAINS: spec(
    G.UNAVAILABLE,
    503,
    'EAGAIN',
    'Too few failure domains are up to place every copy',
  ),
  MAP_OST_ID_CONFLICT: spec(
    G.ALREADY_EXISTS,
    409,
    'EEXIST',
    'The OST id asked for (oss.ostIds) belongs to another OST, or this OST already has another id',
  ),
  MAP_OST_REMOVED: spec(
    G.FAILED_PRECONDITION,
    409,
    'ESTALE',
    'The OST was removed from the map and its folder still holds objects: start it with an empty folder',
  ),
  MAP_OST_UP: spec(
    G.FAILED_PRECONDITION,
    409,
    'EBUSY',
    'The OST is up: only an OST that is down (its OSS stopped for good) can be removed',
  ),
  MAP_OST_IN: spec(
    G.FAILED_PRECONDITION,
    409,
    'EBUSY',
    'The OST is in: mark it out (stripefs ost out) and let its PGs move before removing it',
  ),
  MAP_OST_NOT_DRAINED: spec(
    G.FAILED_PRECONDITION,
    409,
    'EBUSY',
    'Some PGs still place or hold data on the OST: wait until they are clean without it (stripefs pg wait-clean)',
  ),
  PLACEMENT_INVALID_MAP: spec(G.INVALID_ARGUMENT, 400, 'EINVAL', 'The cluster map is malformed'),
  PLACEMENT_INVALID_RULE: spec(G.INVALID_ARGUMENT, 400, 'EINVAL', 'The placement rule is malformed'),
  PLACEMENT_CEPH_PARSE: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'The Ceph CRUSH text map could not be parsed',
  ),
  PLACEMENT_UNSUPPORTED: spec(
    G.UNIMPLEMENTED,
    501,
    'ENOTSUP',
    'The Ceph CRUSH map uses a feature stripefs does not simulate',
  ),
  OBJ_NOT_FOUND: spec(G.NOT_FOUND, 404, 'ENOENT', 'No such object on this OST'),
  OBJ_INVALID_ID: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'The object id is malformed or would escape the OST folder',
  ),
  OBJ_RANGE: spec(G.OUT_OF_RANGE, 416, 'EINVAL', 'Offset or length is outside the allowed range'),
  OBJ_CHECKSUM: spec(G.DATA_LOSS, 500, 'EBADMSG', 'Stored data failed its checksum: the chunk is corrupt'),
  OBJ_SHORT: spec(
    G.DATA_LOSS,
    500,
    'EIO',
    'An ec chunk holds less than the range read: it is still being rebuilt or moved, or a write to it was lost',
  ),
  OBJ_STALE: spec(
    G.FAILED_PRECONDITION,
    409,
    'ESTALE',
    'This copy missed writes while its OST was down and awaits its repair: read another copy',
  ),
  OBJ_NEWER_COPY: spec(
    G.ABORTED,
    409,
    'ESTALE',
    'A recovery copy was refused: the target copy holds a newer write than its source (the copy is made again later)',
  ),
  OBJ_WRITE_CHECKSUM: spec(
    G.DATA_LOSS,
    400,
    'EBADMSG',
    'The data that arrived does not match its declared checksum',
  ),
  OBJ_NO_SPACE: spec(G.RESOURCE_EXHAUSTED, 507, 'ENOSPC', 'The OST is full'),
  OBJ_NOT_DURABLE: spec(
    G.DATA_LOSS,
    500,
    'EIO',
    'The OST could not make the object durable (its file would not open, or fsync failed): nothing was flushed; rewrite the data or read another copy',
  ),
  IO_DEGRADED: spec(G.UNAVAILABLE, 503, 'EIO', 'Too few copies or chunks could be read to serve the data'),
  IO_FAILED: spec(G.UNAVAILABLE, 503, 'EIO', 'Writing failed on too many OSTs'),
  IO_COPIES_STALE: spec(
    G.UNAVAILABLE,
    503,
    'EIO',
    'A write that skipped a copy would leave too few copies holding every acknowledged write (the others missed writes and await repair): not acknowledged; retry once they are repaired',
  ),
  OST_DOWN: spec(
    G.UNAVAILABLE,
    503,
    'EHOSTDOWN',
    'The cluster map marks the OST down: the request to it was not sent, or was given up in flight',
  ),
  WRITE_SKIPPED: spec(
    G.UNAVAILABLE,
    503,
    'EIO',
    'A copy missed a write or flush while its OST was down (min_size copies took it) and awaits its repair',
  ),
  MOUNT_UNAVAILABLE: spec(
    G.FAILED_PRECONDITION,
    503,
    'ENODEV',
    'FUSE cannot be used here: not root, no /dev/fuse, or no libfuse.so.2 (the message says which)',
  ),
  MOUNT_POINT_INVALID: spec(
    G.INVALID_ARGUMENT,
    400,
    'ENOTDIR',
    'The mount point is missing, not a directory, already mounted, or not a stripefs mount',
  ),
  AUTH_REQUIRED: spec(
    G.UNAUTHENTICATED,
    401,
    'EACCES',
    'The request carries no key: pass a keyring (--keyring, STRIPEFS_KEYRING, ./data/admin.keyring)',
  ),
  AUTH_INVALID: spec(
    G.UNAUTHENTICATED,
    401,
    'EACCES',
    'The request is signed with a key the MDS does not know (unknown identity, wrong or rotated key)',
  ),
  AUTH_EXPIRED: spec(
    G.UNAUTHENTICATED,
    401,
    'EACCES',
    "The request's signed time is outside the allowed window: check the clocks",
  ),
  AUTH_REPLAYED: spec(G.UNAUTHENTICATED, 401, 'EACCES', 'The signed request was seen before: a replay'),
  AUTH_DENIED: spec(
    G.PERMISSION_DENIED,
    403,
    'EACCES',
    "The identity's caps do not allow this operation on this path (or it needs --admin)",
  ),
  AUTH_ADDRESS_DENIED: spec(
    G.PERMISSION_DENIED,
    403,
    'EACCES',
    "The caller's address is outside the allow-list of the identity or the path",
  ),
  AUTH_EVICTED: spec(
    G.PERMISSION_DENIED,
    403,
    'EACCES',
    'This client session was evicted (stripefs client evict): start a new client, or ask an admin',
  ),
  AUTH_CLIENT_NOT_FOUND: spec(
    G.NOT_FOUND,
    404,
    'ENOENT',
    'No client session with that id (it may have been idle long enough to be forgotten)',
  ),
  AUTH_KEYRING_INVALID: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'A keyring file is missing, unreadable, readable by others, or not in the keyring format',
  ),
  AUTH_CAPS_INVALID: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    "Caps or an allow-list do not parse: expected 'rw /a, r /b' and CIDR ranges",
  ),
  AUTH_EXISTS: spec(G.ALREADY_EXISTS, 409, 'EEXIST', 'An identity of that name exists'),
  AUTH_NOT_FOUND: spec(G.NOT_FOUND, 404, 'ENOENT', 'No identity of that name'),
  TICKET_REQUIRED: spec(
    G.UNAUTHENTICATED,
    401,
    'EACCES',
    'An object request carries no data-path ticket (the MDS hands them out at open and create)',
  ),
  TICKET_INVALID: spec(
    G.UNAUTHENTICATED,
    401,
    'EACCES',
    'The ticket is malformed or its signature does not verify (forged, or its key has rotated away)',
  ),
  TICKET_EXPIRED: spec(
    G.UNAUTHENTICATED,
    401,
    'EACCES',
    'The ticket has expired: get a new one from the MDS',
  ),
  TICKET_REVOKED: spec(
    G.PERMISSION_DENIED,
    403,
    'EACCES',
    "The ticket's client session was evicted, or its identity's key rotated or removed: start a new client",
  ),
  TICKET_WRONG_OBJECT: spec(G.PERMISSION_DENIED, 403, 'EACCES', "The ticket is for another file's objects"),
  TICKET_READ_ONLY: spec(G.PERMISSION_DENIED, 403, 'EACCES', 'A read ticket was used to write or delete'),
  TLS_REQUIRED: spec(
    G.UNAVAILABLE,
    503,
    'EPROTO',
    "The server speaks TLS and this client does not: set tls.ca (STRIPEFS_TLS_CA) to the cluster's CA (stripefs cluster up --tls writes it to tls/ca.pem in its data folder)",
  ),
  TLS_UNTRUSTED: spec(
    G.UNAVAILABLE,
    503,
    'EPROTO',
    "The server's certificate does not verify against this client's CA (tls.ca) under tls.serverName: use the CA that signed the cluster's certificate",
  ),
  TLS_NOT_SERVED: spec(
    G.UNAVAILABLE,
    503,
    'EPROTO',
    'This client speaks TLS (tls.ca is set) and the server does not: unset tls.ca, or start the cluster with TLS',
  ),
  TLS_SETUP_FAILED: spec(
    G.FAILED_PRECONDITION,
    500,
    'EIO',
    "The cluster's CA and certificate could not be made (openssl missing or failing): install openssl, or name your own files in tls.ca, tls.cert, tls.key",
  ),
  FAULT_INJECTED: spec(G.UNAVAILABLE, 503, 'EIO', 'A simulation fault knob failed this request'),
  CKPT_NOT_FOUND: spec(G.NOT_FOUND, 404, 'ENOENT', 'No published checkpoint of that step'),
  CKPT_EXISTS: spec(G.ALREADY_EXISTS, 409, 'EEXIST', 'A checkpoint of that step is already published'),
  CKPT_INCOMPLETE: spec(
    G.FAILED_PRECONDITION,
    409,
    'EAGAIN',
    'A declared rank or part is not staged yet: the commit publishes nothing',
  ),
  CKPT_CORRUPT: spec(
    G.DATA_LOSS,
    500,
    'EBADMSG',
    "A checkpoint's manifest is unreadable, or a part's size or crc32c differs from it",
  ),
  CKPT_STAGING_FULL: spec(
    G.RESOURCE_EXHAUSTED,
    507,
    'ENOSPC',
    'The local staging folder cannot hold the save within its byte limit',
  ),
  DATASET_SOURCE_INVALID: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'stripefs pack: the source folder is missing, empty, or holds something other than regular files and folders',
  ),
  DATASET_INDEX_INVALID: spec(
    G.DATA_LOSS,
    500,
    'EBADMSG',
    "A packed dataset's index is missing, truncated, or fails its crc32c (docs/dataset-format.md)",
  ),
  DATASET_FORMAT_UNSUPPORTED: spec(
    G.FAILED_PRECONDITION,
    409,
    'ENOTSUP',
    "A packed dataset's index has a format version this stripefs does not read",
  ),
  DATASET_SAMPLE_CORRUPT: spec(
    G.DATA_LOSS,
    500,
    'EBADMSG',
    "A packed sample's bytes differ from its crc32c in the index, or its shard is shorter than the index says",
  ),
  DATASET_KEY_NOT_FOUND: spec(G.NOT_FOUND, 404, 'ENOENT', 'No sample of that key in the packed dataset'),
  // The S3 gateway (s3/errors.ts maps each to the S3 codes clients see, e.g. NoSuchKey).
  S3_ACCESS_DENIED: spec(
    G.PERMISSION_DENIED,
    403,
    'EACCES',
    'S3: no valid credentials, an unknown access key, an expired or skewed request',
  ),
  S3_SIGNATURE_MISMATCH: spec(
    G.UNAUTHENTICATED,
    403,
    'EACCES',
    'S3: the request signature does not match the one computed with the secret key',
  ),
  S3_REQUEST_INVALID: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'S3: a malformed header, query, XML body or chunked payload',
  ),
  S3_BAD_DIGEST: spec(
    G.DATA_LOSS,
    400,
    'EBADMSG',
    'S3: the body does not match its Content-MD5, payload hash or checksum; nothing was stored',
  ),
  S3_NO_SUCH_BUCKET: spec(G.NOT_FOUND, 404, 'ENOENT', 'S3: no such bucket (top-level directory)'),
  S3_BUCKET_EXISTS: spec(G.ALREADY_EXISTS, 409, 'EEXIST', 'S3: the bucket already exists'),
  S3_BUCKET_NOT_EMPTY: spec(G.FAILED_PRECONDITION, 409, 'ENOTEMPTY', 'S3: the bucket is not empty'),
  S3_INVALID_NAME: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'S3: a bucket name or key that stripefs cannot map to a path',
  ),
  S3_NO_SUCH_KEY: spec(G.NOT_FOUND, 404, 'ENOENT', 'S3: no such key'),
  S3_KEY_CONFLICT: spec(
    G.FAILED_PRECONDITION,
    409,
    'EEXIST',
    'S3: a key would be both an object and a prefix of other keys (a file and a directory)',
  ),
  S3_INVALID_RANGE: spec(G.OUT_OF_RANGE, 416, 'EINVAL', 'S3: the Range lies outside the object'),
  S3_PRECONDITION_FAILED: spec(
    G.FAILED_PRECONDITION,
    412,
    'EEXIST',
    'S3: a conditional header (If-Match, If-None-Match, ...) does not hold',
  ),
  S3_NO_SUCH_UPLOAD: spec(G.NOT_FOUND, 404, 'ENOENT', 'S3: no such multipart upload'),
  S3_ENTITY_SIZE: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'S3: a part or object is smaller or larger than allowed',
  ),
  S3_INVALID_PART: spec(
    G.INVALID_ARGUMENT,
    400,
    'EINVAL',
    'S3: a completed part is missing, has another ETag, or is out of order',
  ),
  S3_NOT_IMPLEMENTED: spec(G.UNIMPLEMENTED, 501, 'ENOTSUP', 'S3: an operation the gateway does not offer'),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** An expected failure with a stable code. Programmer mistakes throw plain Errors instead. */
export class StripeError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'StripeError';
    this.code = code;
    this.details = details;
  }

  get errno(): string {
    return ERROR_CODES[this.code].errno;
  }

  get grpcStatus(): GrpcStatus {
    return ERROR_CODES[this.code].grpc;
  }

  get httpStatus(): number {
    return ERROR_CODES[this.code].http;
  }

  toJSON(): { code: ErrorCode; errno: string; message: string; details: Readonly<Record<string, unknown>> } {
    return { code: this.code, errno: this.errno, message: this.message, details: this.details };
  }
}
