// The checkpoint API (import from 'stripefs/checkpoint'): async, streamed,
// aggregated checkpoints published atomically with a manifest as the success
// marker. See README "Checkpoints" and docs/ARCHITECTURE.md.
export type { CheckpointInfo } from './catalog.js';
export { type CheckpointOptions, Checkpoints, checkpoints, type VerifyReport } from './checkpoints.js';
export type { GcReport } from './gc.js';
export { CHECKPOINT_BOUNDS, CHECKPOINT_LIMITS, type CheckpointLimits } from './limits.js';
export type { PartOutcome } from './load.js';
export type { Manifest, PartRecord } from './manifest.js';
export { MANIFEST_NAME, STAGING_DIR, stepName, stepOfName, TRASH_DIR } from './names.js';
export type { LoadTargets, PartSource, Parts } from './parts.js';
export type { Declared } from './ranks.js';
export type { Retention } from './retention.js';
export type { SaveEvent, SaveHandle, SaveOptions, SavePhase, SaveProgress, SaveResult } from './save.js';
