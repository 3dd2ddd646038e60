// Named limits of the S3 gateway. Units are the last word of each name. The
// object and part limits are S3's own, so clients that split by them work.
import { UNITS } from '../common/limits.js';

const { KiB, MiB, GiB } = UNITS;

export const S3_LIMITS = {
  /** Longest key S3 accepts, in bytes of UTF-8. */
  keyBytesMax: 1024,
  /** Largest single PutObject (S3's limit: larger objects go multipart). */
  putObjectBytesMax: 5 * GiB,
  /** Largest part, and the most parts one upload may have (S3's limits). */
  partBytesMax: 5 * GiB,
  partNumberMax: 10_000,
  /** Keys one ListObjects page and uploads or parts one listing page return at most. */
  listKeysMax: 1_000,
  /** Keys one DeleteObjects request names at most. */
  deleteKeysMax: 1_000,
  /** Deletes of one DeleteObjects request in flight at once. */
  deleteConcurrency: 16,
  /** Reads of part records (ListParts, Complete) in flight at once. */
  partRecordConcurrency: 32,
  /** Multipart uploads of one bucket a ListMultipartUploads call reads at most (each is a directory). */
  uploadsListedMax: 10_000,
  /** User metadata (x-amz-meta-*) of one object, names plus values (S3's limit). */
  userMetadataBytesMax: 2 * KiB,
  /** Request bodies parsed as XML (Complete with 10,000 parts is about 1 MiB). */
  xmlBodyBytesMax: 2 * MiB,
  xmlDepthMax: 16,
  /** aws-chunked: the longest chunk header or trailer line, and the largest chunk. */
  chunkLineBytesMax: 4 * KiB,
  chunkBytesMax: 64 * MiB,
  /** Bytes of request bodies the gateway holds at once for writes in flight (write-behind included). */
  uploadBytesInFlightMax: 1 * GiB,
  /** Requests waiting for that budget; beyond them a request gets SlowDown (503). */
  uploadsQueuedMax: 1_024,
  /** How far a request's X-Amz-Date may be from the gateway's clock (S3's 15 minutes). */
  clockSkewMsMax: 15 * 60 * 1000,
  /** Longest lifetime of a presigned URL (S3's 7 days). */
  presignedExpiresSecondsMax: 7 * 24 * 3600,
  /** Bodies up to this size are gathered and written in one piece (below the smallest stripe unit). */
  smallBodyBytesMax: 64 * KiB,
  /**
   * A larger body is gathered into shared buffers of at most this many bytes (whole stripe units),
   * each lent to the library as one write and hashed on the digest thread (s3/gather.ts).
   */
  gatherBytesMax: 32 * MiB,
  /** Idle gather buffers the gateway keeps for the next bodies, in bytes. */
  gatherIdleBytesMax: 128 * MiB,
  /** Read chunk of a GET stream (the client's readahead runs ahead of it). */
  getChunkBytes: 1 * MiB,
  /**
   * GETs of more than this are written from a few reused buffers of getPumpChunkBytes
   * (getPumpDepth per GET, each reused once the socket took it), not a new buffer per chunk.
   */
  getPumpBytesMin: 8 * MiB,
  getPumpChunkBytes: 4 * MiB,
  getPumpDepth: 4,
  /** Idle GET buffers the gateway keeps for the next GETs. */
  getPumpIdleBuffersMax: 16,
  /** Tries of a publish whose parent directory was removed under it (an empty-directory cleanup racing it). */
  publishTriesMax: 5,
  /** Staging files of interrupted PUTs older than this are removed by the gateway's sweep. */
  stagingMaxAgeMs: 24 * 3600 * 1000,
  stagingSweepIntervalMs: 3600 * 1000,
  /**
   * stripefs identities the gateway keeps a client for at once (the least recently used is closed
   * first); each client has the library's own bounds (its block cache, readahead).
   */
  actorsMax: 16,
  /** How long an identity's caps and allow-list, as the MDS answered them, are used before asking again. */
  actorRulesTtlMs: 5_000,
} as const;
