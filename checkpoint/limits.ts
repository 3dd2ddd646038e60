// Named limits of the checkpoint API and their defaults. Units are the last
// word of each name; checkpoints(client, dir, options) takes overrides for the
// ones users tune (CheckpointOptions).
import { StripeError } from '../common/errors.js';
import { UNITS } from '../common/limits.js';

const { MiB, GiB } = UNITS;

export const CHECKPOINT_LIMITS = {
  /**
   * Bytes one save has sent and not yet had acknowledged, in whole stripe units (ec: whole
   * stripes with their parity), at least one: the bound on stripes in flight.
   */
  inFlightBytesMax: 64 * MiB,
  /**
   * Client memory an async save holds: copies of the caller's parts waiting to go, and those in
   * flight. A save larger than this returns from `staged` only once the rest fits (or use stagingDir).
   */
  stagingBytesMax: 2 * GiB,
  /** Local-disk staging (stagingDir): bytes staged there and not yet uploaded, at most. */
  stagingDiskBytesMax: 16 * GiB,
  /** Local-disk staging writes segment files of this size, each deleted once uploaded. */
  stagingSegmentBytes: 256 * MiB,
  /** Reader lanes of one load or verify: each reads a contiguous run of parts through its own handle. */
  loadLanesMax: 4,
  /** Bytes one read of a load or verify asks for; larger parts are read in pieces of this. */
  loadReadBytes: 16 * MiB,
  /** gc leaves staging directories touched more recently than this alone: a save may still be running. */
  gcGraceMs: 60 * 60 * 1000,
} as const;

export type CheckpointLimits = { -readonly [K in keyof typeof CHECKPOINT_LIMITS]: number };

/** Fixed bounds of what a checkpoint may hold (checked on save and when a manifest is read). */
export const CHECKPOINT_BOUNDS = {
  /** Parts in one checkpoint (all ranks together). */
  partsMax: 1_000_000,
  /** Bytes of UTF-8 in one part name. */
  partNameBytesMax: 1024,
  /** Ranks that may save parts of one checkpoint. */
  ranksMax: 65_536,
  /** A manifest or rank record is read whole; one larger than this is refused as corrupt. */
  manifestBytesMax: 256 * MiB,
  /** Checkpoints a retention pass removes at once (the rest wait for the next save or gc). */
  removalsPerPassMax: 1_000,
  /** Entries removed in parallel when a checkpoint or staging directory is deleted. */
  unlinksInFlightMax: 64,
} as const;

export function checkpointLimits(overrides: Partial<CheckpointLimits> = {}): CheckpointLimits {
  const limits: CheckpointLimits = { ...CHECKPOINT_LIMITS };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    if (!(key in CHECKPOINT_LIMITS)) throw new StripeError('REQ_INVALID', `unknown checkpoint option ${key}`);
    limits[key as keyof CheckpointLimits] = value;
  }
  for (const [key, value] of Object.entries(limits)) {
    const min = key === 'gcGraceMs' ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < min)
      throw new StripeError(
        'REQ_INVALID',
        `checkpoint option ${key} must be an integer >= ${min}, got ${value}`,
      );
  }
  return limits;
}
