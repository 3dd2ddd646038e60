// Slow-disk and flaky-link detection. The pure part: from per-OST recent
// read and write p50 latency (what the OSS heartbeats, over its last 30 s)
// and errors in the last window, flag an outlier. An OST is slow when its
// read (or write) p50 is above `factor` times the median read (write) p50 of
// the other OSTs that served reads (writes) recently, and above `minMs`;
// reads and writes are compared apart because their costs differ by an order
// of magnitude. A p50 of a handful of requests says little (one slow request
// on a busy host is the median of three), so an OST is judged only on at least
// SLOW_SAMPLES_MIN requests of that kind in the window. An OST is flaky when it reported at least
// ERRORS_PER_WINDOW_MAX errors (client-caused answers such as OBJ_NOT_FOUND
// are not counted by the OSS) within the window.
import type { HeartbeatRequest__Output } from '../../proto/index.js';

export const SLOW_WINDOW_MS = 30_000;
export const ERRORS_PER_WINDOW_MAX = 20;
/** Others with recent samples needed before a latency can be called an outlier. */
export const SLOW_PEERS_MIN = 2;
/** Requests of one kind an OST must have served in the window before its p50 can call it slow. */
export const SLOW_SAMPLES_MIN = 16;
/** Error-count samples kept per OST (one per heartbeat). */
const ERROR_SAMPLES_MAX = 600;

export interface OstSample {
  ostId: number;
  readMs: number;
  writeMs: number;
  /** Requests behind readMs and writeMs; an OST with fewer than SLOW_SAMPLES_MIN of a kind is not judged on it. */
  readSamples: number;
  writeSamples: number;
  errorsInWindow: number;
}

export interface SlowVerdict {
  ostId: number;
  reason: string;
  latencyMs: number;
  medianMs: number;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function outlier(
  samples: readonly OstSample[],
  s: OstSample,
  pick: (o: OstSample) => number,
  samplesOf: (o: OstSample) => number,
  opts: { factor: number; minMs: number },
): { latencyMs: number; medianMs: number } | undefined {
  if (samplesOf(s) < SLOW_SAMPLES_MIN) return undefined;
  const latencyMs = pick(s);
  const peers = samples.filter((o) => o.ostId !== s.ostId && pick(o) > 0).map(pick);
  const medianMs = median(peers);
  if (peers.length < SLOW_PEERS_MIN || latencyMs <= opts.minMs || latencyMs <= opts.factor * medianMs)
    return undefined;
  return { latencyMs, medianMs };
}

export function detectSlowOsts(
  samples: readonly OstSample[],
  opts: { factor: number; minMs: number },
): SlowVerdict[] {
  const verdicts: SlowVerdict[] = [];
  for (const s of samples) {
    if (s.errorsInWindow >= ERRORS_PER_WINDOW_MAX) {
      const reason = `${s.errorsInWindow} errors in ${SLOW_WINDOW_MS / 1000} s`;
      verdicts.push({ ostId: s.ostId, reason, latencyMs: Math.max(s.readMs, s.writeMs), medianMs: 0 });
      continue;
    }
    for (const [kind, pick, samplesOf] of [
      ['read', (o: OstSample) => o.readMs, (o: OstSample) => o.readSamples],
      ['write', (o: OstSample) => o.writeMs, (o: OstSample) => o.writeSamples],
    ] as const) {
      const found = outlier(samples, s, pick, samplesOf, opts);
      if (!found) continue;
      verdicts.push({
        ostId: s.ostId,
        reason: `${kind} p50 ${found.latencyMs.toFixed(1)} ms is over ${opts.factor}x the median ${found.medianMs.toFixed(1)} ms`,
        ...found,
      });
      break;
    }
  }
  return verdicts;
}

/** The IO shell: keeps the latest heartbeat figures and error history per OST. */
export class OstHealthTracker {
  private readonly latest = new Map<
    number,
    {
      readMs: number;
      writeMs: number;
      readSamples: number;
      writeSamples: number;
      errors: { atMs: number; total: number }[];
    }
  >();

  constructor(
    private readonly opts: { factor: number; minMs: number },
    private readonly nowMs: () => number,
  ) {}

  record(req: HeartbeatRequest__Output): void {
    const now = this.nowMs();
    for (const h of req.osts) {
      const entry = this.latest.get(h.ostId) ?? {
        readMs: 0,
        writeMs: 0,
        readSamples: 0,
        writeSamples: 0,
        errors: [],
      };
      entry.readMs = h.readLatencyMsP50;
      entry.writeMs = h.writeLatencyMsP50;
      entry.readSamples = h.readSamples;
      entry.writeSamples = h.writeSamples;
      entry.errors.push({ atMs: now, total: Number(h.errors) });
      while (entry.errors.length > ERROR_SAMPLES_MAX || now - entry.errors[0]!.atMs > SLOW_WINDOW_MS)
        entry.errors.shift();
      this.latest.set(h.ostId, entry);
    }
  }

  samples(): OstSample[] {
    return [...this.latest].map(([ostId, e]) => {
      const first = e.errors[0]?.total ?? 0;
      const last = e.errors[e.errors.length - 1]?.total ?? 0;
      return {
        ostId,
        readMs: e.readMs,
        writeMs: e.writeMs,
        readSamples: e.readSamples,
        writeSamples: e.writeSamples,
        errorsInWindow: Math.max(0, last - first),
      };
    });
  }

  slow(): SlowVerdict[] {
    return detectSlowOsts(this.samples(), this.opts);
  }
}
