// The failure detector, a pure function of (OST liveness, now) -> actions.
// An OST is marked down when its OSS has not heartbeated for
// heartbeatTimeoutMs, and out when it has been down for outGraceMs. The
// service runs it on a timer and carries the actions out as one map change.

export interface OstLiveness {
  id: number;
  up: boolean;
  in: boolean;
  /** Last heartbeat (or registration) of the OSS serving this OST. */
  lastSeenMs: number;
  /** When it was marked down (or when the MDS started, for OSTs already down). */
  downSinceMs: number;
}

export interface DetectorTimers {
  heartbeatTimeoutMs: number;
  outGraceMs: number;
}

export interface DetectorActions {
  markDown: number[];
  markOut: number[];
}

export function detectFailures(
  osts: readonly OstLiveness[],
  nowMs: number,
  timers: DetectorTimers,
): DetectorActions {
  const markDown: number[] = [];
  const markOut: number[] = [];
  for (const ost of osts) {
    if (ost.up && nowMs - ost.lastSeenMs > timers.heartbeatTimeoutMs) markDown.push(ost.id);
    else if (!ost.up && ost.in && nowMs - ost.downSinceMs > timers.outGraceMs) markOut.push(ost.id);
  }
  return { markDown, markOut };
}

/**
 * How long the detector itself did not run: the time between two of its ticks beyond one
 * tick interval, when that gap is over twice the interval (0 otherwise). While the MDS was
 * stalled (a long collection, a starved CPU, a stopped process) it could not read the
 * heartbeats that came in; they wait in its sockets behind the first tick after the stall.
 * That time is not held against the OSSs: their last-seen times move forward by it.
 */
export function detectorStallMs(previousTickMs: number | undefined, nowMs: number, tickMs: number): number {
  if (previousTickMs === undefined) return 0;
  const gap = nowMs - previousTickMs;
  return gap > 2 * tickMs ? gap - tickMs : 0;
}
