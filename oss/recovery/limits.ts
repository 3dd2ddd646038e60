// Named limits of recovery, scrub and repair on the OSS.

/** Bytes copied or rebuilt per step (one read from a source, one local write). */
export const RECOVERY_SLICE_BYTES = 4 * 1024 * 1024;
/** Objects one RecoverPg copies at once. */
export const RECOVERY_OBJECTS_PER_TASK_MAX = 4;
/**
 * Objects all RecoverPg calls of this OSS copy at once: recovery runs beside
 * client IO with this much concurrency and no more, so clients keep priority.
 */
export const RECOVERY_OBJECTS_IN_FLIGHT_MAX = 8;
/** Bulk connections kept to one source OSS for recovery reads. */
export const RECOVERY_BULK_CONNECTIONS_MAX = 8;
/** Deadline of one ListObjects to a source. */
export const RECOVERY_LIST_TIMEOUT_MS = 10_000;
/** Objects listed per ListObjects page. */
export const RECOVERY_LIST_PAGE = 1_000;
/** Objects of one PG a RecoverPg handles at most (a sanity bound on the listing). */
export const RECOVERY_PG_OBJECTS_MAX = 1_000_000;
/** Bytes scrub reads per step. */
export const SCRUB_SLICE_BYTES = 1024 * 1024;
/** Bad objects one scrub pass lists in its report (the counters count them all). */
export const SCRUB_REPORTED_MAX = 1_000;
