// Named limits of the OSS (shared ones live in common/limits.ts).

/** ListObjects page size when the request asks for 0, and the most it may ask for. */
export const LIST_LIMIT_DEFAULT = 1000;
export const LIST_LIMIT_MAX = 10_000;
/** Object ids one MarkStale call may carry (the MDS sends longer lists in several calls). */
export const MARK_STALE_IDS_MAX = 10_000;
/** Bytes a bulk connection buffers before the OSS stops reading its socket. */
export const BULK_SERVER_HIGH_WATER_BYTES = 8 * 1024 * 1024;
/** Bulk connections one OSS accepts at once. */
export const BULK_CONNECTIONS_MAX = 256;
/** How long the bulk server's start-up check of Node's socket internals may take (it takes about 1 ms). */
export const BULK_SOCKET_CHECK_TIMEOUT_MS = 5_000;
/** Time in-flight requests get to finish on SIGTERM before they are cut off. */
export const SHUTDOWN_GRACE_MS = 5_000;
/** Registration retry backoff towards the MDS. */
export const REGISTER_BACKOFF_MS_BASE = 100;
export const REGISTER_BACKOFF_MS_MAX = 5_000;
/** Map polling interval when WatchMap is not available. */
export const MAP_POLL_MS = 2_000;
/**
 * How long a read that finds the read lease lapsed waits for the heartbeat it sends at once to be
 * answered (a busy MDS answers late) before it is refused.
 */
export const LEASE_RENEW_WAIT_MS = 2_000;
/** Deadline of one RPC to the MDS. */
export const MDS_RPC_TIMEOUT_MS = 5_000;
/** Objects whose index records (meta, crc groups) an OST keeps decoded in memory (oss/store/index-cache.ts). */
export const INDEX_CACHE_OBJECTS = 4096;
