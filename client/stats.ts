// Latency histograms with fixed memory: log-spaced buckets (N per decade from
// 1 us to 1000 s), so p50/p99 are exact to one bucket (~12% at 20 per decade)
// however many samples arrive.

const MIN_MS = 0.001;
const DECADES = 9;

export class LatencyHistogram {
  private readonly counts: Uint32Array;
  private total = 0;
  private sumMs = 0;

  constructor(private readonly bucketsPerDecade: number) {
    if (!Number.isInteger(bucketsPerDecade) || bucketsPerDecade < 1) throw new Error('bad bucketsPerDecade');
    this.counts = new Uint32Array(bucketsPerDecade * DECADES + 1);
  }

  private bucketOf(ms: number): number {
    if (!(ms > MIN_MS)) return 0;
    const index = Math.floor(Math.log10(ms / MIN_MS) * this.bucketsPerDecade) + 1;
    return Math.min(index, this.counts.length - 1);
  }

  /** Upper edge of a bucket in ms. */
  private edgeMs(index: number): number {
    return index === 0 ? MIN_MS : MIN_MS * 10 ** (index / this.bucketsPerDecade);
  }

  record(ms: number): void {
    const index = this.bucketOf(ms);
    this.counts[index] = (this.counts[index] ?? 0) + 1;
    this.total++;
    this.sumMs += ms;
  }

  get count(): number {
    return this.total;
  }

  get meanMs(): number {
    return this.total === 0 ? 0 : this.sumMs / this.total;
  }

  /** The upper edge of the bucket holding quantile q (0 < q <= 1); 0 when empty. */
  quantileMs(q: number): number {
    if (this.total === 0) return 0;
    const rank = Math.ceil(q * this.total);
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i] ?? 0;
      if (seen >= rank) return this.edgeMs(i);
    }
    return this.edgeMs(this.counts.length - 1);
  }
}

/**
 * Latency kinds: `read`/`write` are the caller's calls; `readChunk` one
 * request for one range of one object; `readRun` one readahead request for
 * several blocks back to back in one object (up to prefetchRequestBytesMax),
 * kept apart so the two sizes do not blur each other's percentiles.
 */
export type OpKind = 'read' | 'write' | 'readChunk' | 'readRun' | 'writeChunk' | 'metadata' | 'sync';

export interface OpStats {
  count: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

export class OpLatencies {
  private readonly byKind = new Map<OpKind, LatencyHistogram>();

  constructor(private readonly bucketsPerDecade: number) {}

  record(kind: OpKind, ms: number): void {
    let histogram = this.byKind.get(kind);
    if (!histogram) {
      histogram = new LatencyHistogram(this.bucketsPerDecade);
      this.byKind.set(kind, histogram);
    }
    histogram.record(ms);
  }

  snapshot(): Partial<Record<OpKind, OpStats>> {
    const out: Partial<Record<OpKind, OpStats>> = {};
    for (const [kind, h] of this.byKind) {
      out[kind] = { count: h.count, p50Ms: h.quantileMs(0.5), p99Ms: h.quantileMs(0.99), meanMs: h.meanMs };
    }
    return out;
  }
}
