// The public face of mount/: `stripefs mount` over the client library.
export { checkFuse, detachMount } from './fuse-binding.js';
export { MOUNT_LIMITS } from './limits.js';
export { type MountOptions, type RunningMount, startMount } from './mount.js';
export { alive, type MountState, readState, removeState } from './state.js';
export type { MountStatsSnapshot, OpStats } from './stats.js';
