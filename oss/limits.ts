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
/**
 * How long past the MDS's read lease a write made with a map not yet writable waits for it
 * (oss/write-fence.ts): the fence lifts within the lease once the map exists, plus the time for
 * the MDS's word to arrive.
 */
export const FENCE_WAIT_MARGIN_MS = 2_000;
/** How often a held write asks the MDS (GetMap) when the map stream has said nothing new. */
export const FENCE_POLL_MS = 500;
/** Deadline of one RPC to the MDS. */
export const MDS_RPC_TIMEOUT_MS = 5_000;
/** Objects whose index records (meta, crc groups) an OST keeps decoded in memory (oss/store/index-cache.ts). */
export const INDEX_CACHE_OBJECTS = 4096;
/** Writes one round of an OST's segment log takes at most (oss/store/segment-log.ts), and their bytes. */
export const LOG_ROUND_ENTRIES_MAX = 64;
export const LOG_ROUND_BYTES_MAX = 8 * 1024 * 1024;
/** A segment of the log takes records until it holds this many bytes. */
export const LOG_SEGMENT_BYTES = 64 * 1024 * 1024;
/** A sealed segment is compacted once this share of its bytes is dead (oss/store/log-compact.ts). */
export const LOG_DEAD_SHARE_MAX = 0.5;
/** Compaction copies live records forward at most this fast, so requests keep the disk. */
export const LOG_COMPACT_BYTES_PER_SEC = 32 * 1024 * 1024;
