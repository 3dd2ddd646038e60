// Named limits of the client library. Units are the last word of each name.
// Defaults here; StripeClient.connect() takes overrides for each of them.
import { LIMITS, UNITS } from '../common/limits.js';

const { KiB, MiB } = UNITS;

export const CLIENT_LIMITS = {
  /** Readahead window of one open file grows up to this. */
  readaheadFileBytesMax: 64 * MiB,
  /** All readahead windows together (bytes fetched ahead and not yet read). */
  readaheadTotalBytesMax: 256 * MiB,
  /** Shared LRU cache of read blocks. */
  cacheBytesMax: 256 * MiB,
  /** Cache and fetch granularity; a block never spans a stripe unit (min with the stripe size). */
  cacheBlockBytes: 1 * MiB,
  /** Readahead fetches blocks back to back in one object in one request of up to this (client/prefetch-runs.ts). */
  prefetchRequestBytesMax: 4 * MiB,
  /**
   * A read of at least this many bytes takes the whole blocks that nothing has cached or is
   * fetching straight into the caller's buffer, in runs of up to prefetchRequestBytesMax, without
   * caching them (client/file-reader.ts). 0: every read goes through the cache.
   */
  directReadBytesMin: 4 * MiB,
  /**
   * Writes: stripe units of one object that lie back to back in it go as one request of up to
   * this (client/write-runs.ts); write-behind holds full units for it up to half writeBehindBytesMax.
   */
  writeRequestBytesMax: 4 * MiB,
  /** Requests in flight to one OSS. */
  inFlightPerOssMax: 8,
  /** Requests in flight to all OSSs. */
  inFlightTotalMax: 32,
  /** Dirty bytes a writer may have sent and not yet acknowledged (write-behind). */
  writeBehindBytesMax: 64 * MiB,
  /**
   * Deadline of one request to one OSS (a chunk read or write, a flush). A
   * replica that has not answered by then is skipped for the next one.
   */
  requestTimeoutMs: 10_000,
  /** An OST that timed out or failed a request is tried after the others for this long. */
  ostSuspectMs: 5_000,
  /**
   * An OST whose reads wait over this many times as long for their answer as
   * the median OST's (and 20 ms or more) is read after the other copies for
   * ostSuspectMs (client/ost-health.ts). 0: never.
   */
  slowOstFactor: 4,
  /** 1: object bytes over the bulk data path when the OST has a bulk address; 0: gRPC only. */
  bulkEnabled: 1,
  /**
   * A write that skipped a copy (its OST down) is acknowledged only once the MDS recorded the
   * skip; the record is sent again for this long (the MDS restarting) before the write fails.
   */
  skipReportWaitMs: 60_000,
  /**
   * A request whose retries ran out against an OST the map still shows up waits this long for a
   * newer map (the MDS marking it down after its heartbeat timeout) and is then retried on it
   * (client/retry.ts): an OSS killed mid-write costs the writer a pause, not an error.
   */
  ostVerdictWaitMs: 10_000,
  /** Retries of one request before failing over or reporting. */
  retriesMax: LIMITS.clientRetriesMax,
  backoffMsBase: LIMITS.clientBackoffMsBase,
  backoffMsMax: LIMITS.clientBackoffMsMax,
  /** Latency samples kept per operation kind are bucketed, never stored (see stats.ts). */
  latencyBucketsPerDecade: 20,
  /** Readdir page size the client asks for. */
  readdirPageEntries: 1_000,
  /** Stream chunk a createReadStream pushes. */
  streamChunkBytes: 1 * MiB,
  /** Smallest read or write a stream passes through; smaller writes are aggregated. */
  streamHighWaterMarkBytes: 4 * MiB,
  /** Bytes per gRPC data message on the write path (below the message limit). */
  wirePieceBytes: LIMITS.streamPieceBytes,
  /**
   * The open and attribute cache for read-only datasets (client/open-cache.ts): 0 (default) is
   * close-to-open, every open and stat asks the MDS; otherwise answers are reused for this long.
   */
  openCacheTtlMs: 0,
  /** Paths the open cache keeps, and the bytes on the MDS (dom) its answers may hold together. */
  openCacheEntriesMax: 100_000,
  openCacheBytesMax: 64 * MiB,
  /**
   * Statahead (client/statahead.ts; with the open cache on): entries fetched ahead in one OpenMany
   * once a scan follows its directory's listing or counting names. 0: off.
   */
  stataheadBatchEntries: 256,
  /**
   * Batches a scan may have fetched ahead (in flight or not yet reached): the MDS answers one while
   * the scan uses another, so a scan is not one batch's round trip at a time.
   */
  stataheadBatchesAhead: 4,
  /** Ignored reads between readahead decisions: none. Smallest window a sequential read starts with. */
  readaheadMinBytes: 64 * KiB,
} as const;

export type ClientLimits = { -readonly [K in keyof typeof CLIENT_LIMITS]: number };

export function clientLimits(overrides: Partial<ClientLimits> = {}): ClientLimits {
  const limits: ClientLimits = { ...CLIENT_LIMITS, ...overrides };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new Error(`client limit ${key} must be a non-negative integer`);
  }
  if (limits.inFlightPerOssMax < 1 || limits.inFlightTotalMax < 1)
    throw new Error('in-flight limits must be >= 1');
  if (limits.stataheadBatchEntries > LIMITS.namespaceBatchItemsMax)
    throw new Error(`stataheadBatchEntries must be at most ${LIMITS.namespaceBatchItemsMax} (one OpenMany)`);
  return limits;
}
