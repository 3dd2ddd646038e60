// Which OSTs this client has recently seen fail (a timeout, a refused
// connection, an injected fault). The map says which OSTs the MDS thinks are
// up, but it learns of a hung or failing OST only after heartbeats stop, if
// ever; until then, reads would wait out a timeout on every request. A suspect
// OST is not excluded, only tried after the others, until it is forgotten
// after `suspectMs` or answers again.
//
// Slow OSTs are the same idea for latency (a failing disk often answers
// before it fails): every read's wait for the start of its answer is folded
// into a moving average per OST, and an OST whose average is over
// `slowOstFactor` (4) times the median of the other OSTs this client reads from
// (and over SLOW_MS_MIN) is read after the healthy copies for `suspectMs`. Then its
// figure is forgotten and the next reads measure it again, so an OST that
// recovered is used again within one period, and one still slow costs a
// few slow reads per period.

import { copyRank } from './copy-rules.js';

/** Codes that say something about the OST rather than about one copy of one object. */
const OST_TROUBLE = new Set(['REQ_TIMEOUT', 'REQ_UNAVAILABLE', 'OST_DOWN', 'FAULT_INJECTED', 'REQ_INTERNAL']);

/** An OST whose reads answer over this many times the median OST's is slow (the default of the client limit slowOstFactor)... */
export const SLOW_FACTOR = 4;
/** ...when they also take at least this long (on a busy host every OST answers in a few ms). */
export const SLOW_MS_MIN = 20;
/** Answers an OST needs before it can be judged (one late answer is a hiccup). */
export const SLOW_SAMPLES_MIN = 3;
/** Weight of the newest answer in an OST's moving average. */
const LATENCY_WEIGHT = 0.25;
/** A figure this old is no longer the OST's (it was not read from since). */
const LATENCY_AGE_MS_MAX = 30_000;
/** How long the sorted figures are reused. */
const MEDIAN_REUSE_MS = 200;

interface Latency {
  ms: number;
  atMs: number;
  samples: number;
}

export class OstHealth {
  private readonly failedAtMs = new Map<number, number>();
  private readonly latency = new Map<number, Latency>();
  private readonly slowSinceMs = new Map<number, number>();
  private recent: { atMs: number; figures: { ost: number; ms: number }[] } = { atMs: -Infinity, figures: [] };
  /** Times an OST was found slow (each verdict lasts `suspectMs`). */
  slowVerdicts = 0;
  /** Requests given up after the request timeout (a hung or very slow OST costs these). */
  timeouts = 0;

  constructor(
    private readonly suspectMs: number,
    private readonly nowMs: () => number = () => performance.now(),
    /** SLOW_FACTOR unless the client's limits say otherwise; 0 never finds an OST slow. */
    private readonly slowFactor: number = SLOW_FACTOR,
  ) {}

  /** Records the outcome of one request to `ost` (`code` undefined on success). */
  record(ost: number, code: string | undefined): void {
    if (code === 'REQ_TIMEOUT') this.timeouts++;
    if (code === undefined) this.failedAtMs.delete(ost);
    else if (OST_TROUBLE.has(code)) this.failedAtMs.set(ost, this.nowMs());
  }

  isSuspect(ost: number): boolean {
    const at = this.failedAtMs.get(ost);
    if (at === undefined) return false;
    if (this.nowMs() - at < this.suspectMs) return true;
    this.failedAtMs.delete(ost);
    return false;
  }

  /** How long a read of `ost` waited for its answer to begin. */
  observeLatency(ost: number, ms: number): void {
    const now = this.nowMs();
    const last = this.latency.get(ost);
    if (!last || now - last.atMs > LATENCY_AGE_MS_MAX) this.latency.set(ost, { ms, atMs: now, samples: 1 });
    else {
      last.ms += LATENCY_WEIGHT * (ms - last.ms);
      last.atMs = now;
      last.samples++;
    }
  }

  /** The recent per-OST averages, sorted (reused for MEDIAN_REUSE_MS). */
  private recentFigures(now: number): { ost: number; ms: number }[] {
    if (now - this.recent.atMs < MEDIAN_REUSE_MS) return this.recent.figures;
    const figures = [...this.latency]
      .filter(([, l]) => now - l.atMs <= LATENCY_AGE_MS_MAX)
      .map(([ost, l]) => ({ ost, ms: l.ms }))
      .sort((a, b) => a.ms - b.ms);
    this.recent = { atMs: now, figures };
    return figures;
  }

  isSlow(ost: number): boolean {
    const now = this.nowMs();
    const since = this.slowSinceMs.get(ost);
    if (since !== undefined) {
      if (now - since < this.suspectMs) return true;
      // Time to look again: the next reads measure it afresh.
      this.slowSinceMs.delete(ost);
      this.latency.delete(ost);
      return false;
    }
    const own = this.latency.get(ost);
    if (
      this.slowFactor <= 0 ||
      !own ||
      own.samples < SLOW_SAMPLES_MIN ||
      own.ms < SLOW_MS_MIN ||
      now - own.atMs > LATENCY_AGE_MS_MAX
    )
      return false;
    // The median of the other OSTs' figures: with one other, that one (a rep3 file of four objects
    // may have only two distinct primaries).
    const others = this.recentFigures(now).filter((f) => f.ost !== ost);
    const median = others[Math.floor(others.length / 2)]?.ms;
    if (median === undefined || own.ms <= this.slowFactor * median) return false;
    this.slowSinceMs.set(ost, now);
    this.slowVerdicts++;
    return true;
  }

  /** Per OST: the moving average of its answer times (ms), and whether it is slow or suspect now. */
  snapshot(): { answerMs: Record<number, number>; slow: number[]; suspect: number[] } {
    const answerMs: Record<number, number> = {};
    const osts = new Set([...this.latency.keys(), ...this.slowSinceMs.keys(), ...this.failedAtMs.keys()]);
    for (const [ost, l] of this.latency) answerMs[ost] = Math.round(l.ms * 100) / 100;
    const sorted = [...osts].sort((a, b) => a - b);
    return {
      answerMs,
      slow: sorted.filter((ost) => this.slowSinceMs.has(ost) && this.isSlow(ost)),
      suspect: sorted.filter((ost) => this.isSuspect(ost)),
    };
  }

  /** 0: up and healthy, 1: up but slow, 2: up but suspect, 3: down (copy-rules copyRank). */
  rank(ost: number, up: boolean): number {
    return copyRank(this, ost, up);
  }

  /** `osts` in the order to try them: up and healthy, slow, suspect, then down (stable within each). */
  order(osts: number[], isUp: (ost: number) => boolean): number[] {
    const rank = (ost: number): number => this.rank(ost, isUp(ost));
    return osts
      .map((ost, i) => ({ ost, i, r: rank(ost) }))
      .sort((a, b) => a.r - b.r || a.i - b.i)
      .map((e) => e.ost);
  }
}
