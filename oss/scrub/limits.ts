// Named limits of deep scrub on the OSS.

/** Objects one DigestObjects call may name. */
export const DIGEST_OBJECTS_MAX = 256;
/** Objects whose copies a ScrubPg compares per round of DigestObjects calls. */
export const SCRUB_DIGEST_BATCH = 64;
/** Bytes of each chunk read per step of an ec parity check. */
export const SCRUB_PARITY_SLICE_BYTES = 1024 * 1024;
/** Findings one ScrubPg answer lists (the counters count them all). */
export const SCRUB_FINDINGS_MAX = 100;
/** Deadline of one DigestObjects or repair call to a member. */
export const SCRUB_MEMBER_CALL_TIMEOUT_MS = 600_000;
/** Times a digest is taken again when the object changed while it was read. */
export const DIGEST_ATTEMPTS_MAX = 3;
