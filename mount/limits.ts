// Named limits of the mount (mount/). Units are the last word of each name.

export const MOUNT_LIMITS = {
  /** Attributes the mount keeps from listings and lookups (the cache is cleared whole when full). */
  attrCacheEntriesMax: 65_536,
  /** Files open through one mount at once; one more is EMFILE. */
  openFilesMax: 4_096,
  /** How long umount waits for the mount process to flush and leave before detaching it. */
  umountWaitMs: 30_000,
  /** How long a stopping mount waits for its open files to flush. */
  stopFlushMs: 60_000,
} as const;
