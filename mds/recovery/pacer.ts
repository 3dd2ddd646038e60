// The cluster-wide pace of recovery under a byte-rate setting. Each RecoverPg
// is paced by its OSS at its share of the setting, but nothing paces the time
// between tasks: the MDS recording the finished PG, dispatching the next one,
// the OSS answering. With one PG at a time that gap comes out of the rate
// (on a loaded machine a few hundred ms per PG, a fifth of the setting).
//
// The pacer keeps the time at which the bytes copied so far would have been
// done at the setting. A task that starts later than that is owed the
// difference and gets it as credit: bytes its OSS sends before pacing starts.
// Credit is bounded (LIMITS.recoveryPaceLagMsMax worth), so an idle or stalled
// cluster never earns a burst, and a new recovery starts with none. With
// several PGs at once each starting task gets its share of the debt; tasks in
// flight are not counted, so the credit may run ahead by at most the bound.
import { LIMITS } from '../../common/limits.js';

export class RecoveryPacer {
  private paceAtMs: number | undefined;

  constructor(private readonly lagMsMax = LIMITS.recoveryPaceLagMsMax) {}

  /** Recovery has nothing to do: the next task starts a new pace, with no credit. */
  idle(): void {
    this.paceAtMs = undefined;
  }

  /** Credit in bytes for a task starting now, paced at `shareBytesPerSec` (0: unthrottled). */
  creditFor(shareBytesPerSec: number, nowMs: number): number {
    if (shareBytesPerSec <= 0) return 0;
    const pace = this.clamp(nowMs);
    return Math.max(0, Math.floor((shareBytesPerSec * (nowMs - pace)) / 1000));
  }

  /** A task copied `bytes`; `bytesPerSec` is the cluster-wide setting (0: unthrottled). */
  completed(bytes: number, bytesPerSec: number, nowMs: number): void {
    if (bytesPerSec <= 0) {
      this.paceAtMs = undefined;
      return;
    }
    // Not clamped here: the task's own time is not a gap. The next creditFor bounds the debt.
    this.paceAtMs = (this.paceAtMs ?? nowMs) + (bytes * 1000) / bytesPerSec;
  }

  private clamp(nowMs: number): number {
    this.paceAtMs = Math.max(this.paceAtMs ?? nowMs, nowMs - this.lagMsMax);
    return this.paceAtMs;
  }
}
