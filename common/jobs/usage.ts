// The counters of data requests kept per job and client, on the OSS (one
// entry per session and job) and summed at the MDS.
export interface DataUsage {
  readOps: number;
  readBytes: number;
  writeOps: number;
  writeBytes: number;
  /** Flushes. */
  otherOps: number;
  /** Summed request time, ms. */
  readMs: number;
  writeMs: number;
  otherMs: number;
  /** Requests that failed (not counted in the ops above). */
  errors: number;
}

export const USAGE_FIELDS = [
  'readOps',
  'readBytes',
  'writeOps',
  'writeBytes',
  'otherOps',
  'readMs',
  'writeMs',
  'otherMs',
  'errors',
] as const satisfies readonly (keyof DataUsage)[];

export function emptyUsage(): DataUsage {
  return {
    readOps: 0,
    readBytes: 0,
    writeOps: 0,
    writeBytes: 0,
    otherOps: 0,
    readMs: 0,
    writeMs: 0,
    otherMs: 0,
    errors: 0,
  };
}

export function addUsage(into: DataUsage, delta: Readonly<DataUsage>): void {
  for (const field of USAGE_FIELDS) into[field] += delta[field];
}

/** `now - before` per field; a field that went down (its count began again) counts `now` whole. */
export function usageSince(now: Readonly<DataUsage>, before: Readonly<DataUsage> | undefined): DataUsage {
  const delta = emptyUsage();
  for (const field of USAGE_FIELDS) {
    const was = before?.[field] ?? 0;
    delta[field] = now[field] >= was ? now[field] - was : now[field];
  }
  return delta;
}

export function copyUsage(usage: Readonly<DataUsage>): DataUsage {
  return { ...usage };
}
