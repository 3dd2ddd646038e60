/** Named limits for the placement library. Every loop that retries is bounded by one of these. */

/**
 * Ceph's choose_total_tries (the exported maps carry it). stripefs rules no longer retry: both
 * make one pass over the leaves (see README); kept because it is part of the public limits.
 */
export const CHOOSE_TRIES_MAX = 50;
/** Largest replica count or k+m a rule may ask for. */
export const RULE_SIZE_MAX = 32;
/** Most choose steps in one rule (each descends at least one level of the hierarchy). */
export const RULE_STEPS_MAX = 8;
/** Largest OST weight accepted; 16.16 fixed point must fit an unsigned 32-bit word. */
export const OST_WEIGHT_MAX = 65535;
/** Fixed-point scale of weights: 0x10000 is 1.0, as in Ceph's CRUSH. */
export const WEIGHT_FIXED_ONE = 0x10000;
/** Upper bounds that keep a map loadable in memory and a simulation finite. */
export const OST_COUNT_MAX = 1 << 20;
export const BUCKET_COUNT_MAX = 1 << 20;
export const HIERARCHY_DEPTH_MAX = 16;
export const PG_COUNT_MAX = 1 << 24;
/** Largest inclusive input range one simulate/diff call walks. */
export const SIMULATE_INPUTS_MAX = 1 << 26;
/** Erasure keys pack (u, leaf index) into a non-negative int32: 16 bits of u, 15 of leaf index. */
export const PACKED_KEY_LEAVES_MAX = 1 << 15;
