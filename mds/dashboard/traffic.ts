// Per-OST throughput and IOPS at the MDS: each heartbeat carries an OST's
// data requests and bytes since its OSS started (OstHealth), and the
// dashboard's sampler turns the change between two of its samples into rates.
// Heartbeats only store the latest values (one record per OST); the
// arithmetic happens on the sampler's timer, off the heartbeat path.
import type { HeartbeatRequest__Output } from '../../proto/index.js';

export interface OstCounts {
  readBytes: number;
  writeBytes: number;
  readOps: number;
  writeOps: number;
  /** When the heartbeat arrived (monotonic ms). */
  atMs: number;
}

export interface OstRates {
  readBytesPerSec: number;
  writeBytesPerSec: number;
  readOpsPerSec: number;
  writeOpsPerSec: number;
}

/** An OST without a heartbeat for this long shows no traffic (it is down, or about to be). */
export const TRAFFIC_STALE_MS = 3_000;

export const NO_TRAFFIC: OstRates = {
  readBytesPerSec: 0,
  writeBytesPerSec: 0,
  readOpsPerSec: 0,
  writeOpsPerSec: 0,
};

export class OstTraffic {
  /** The latest counts of each OST; one entry per OST in the map. */
  private readonly latest = new Map<number, OstCounts>();
  /** The counts each OST had at the previous sample. */
  private atSample = new Map<number, OstCounts>();

  constructor(private readonly monotonicMs: () => number) {}

  record(req: HeartbeatRequest__Output): void {
    const atMs = this.monotonicMs();
    for (const h of req.osts)
      this.latest.set(h.ostId, {
        readBytes: h.readBytes,
        writeBytes: h.writeBytes,
        readOps: h.readOps,
        writeOps: h.writeOps,
        atMs,
      });
  }

  /** The rates of the previous sample, kept while no newer heartbeat came. */
  private lastRates = new Map<number, OstRates>();

  /**
   * Rates of every OST since the previous call, over the time between the heartbeats they came
   * in (not the samples'), so a heartbeat landing just before or after a sample does not halve or
   * double a rate. No newer heartbeat: the last rates again, or none once the OST has been
   * silent for TRAFFIC_STALE_MS (down). Counts that went down: the OSS restarted, no rate this
   * time. `known` lists the OSTs in the map (others are forgotten).
   */
  sample(known: readonly number[]): Map<number, OstRates> {
    const nowMs = this.monotonicMs();
    const inMap = new Set(known);
    const rates = new Map<number, OstRates>();
    const next = new Map<number, OstCounts>();
    for (const id of inMap) {
      const now = this.latest.get(id);
      if (!now) continue;
      const before = this.atSample.get(id);
      if (before && now.atMs === before.atMs) {
        next.set(id, before);
        const stale = nowMs - now.atMs > TRAFFIC_STALE_MS;
        rates.set(id, stale ? NO_TRAFFIC : (this.lastRates.get(id) ?? NO_TRAFFIC));
        continue;
      }
      next.set(id, now);
      const seconds = before ? (now.atMs - before.atMs) / 1000 : 0;
      if (!before || seconds <= 0 || now.readBytes < before.readBytes || now.writeBytes < before.writeBytes) {
        rates.set(id, NO_TRAFFIC);
        continue;
      }
      rates.set(id, {
        readBytesPerSec: (now.readBytes - before.readBytes) / seconds,
        writeBytesPerSec: (now.writeBytes - before.writeBytes) / seconds,
        readOpsPerSec: Math.max(0, now.readOps - before.readOps) / seconds,
        writeOpsPerSec: Math.max(0, now.writeOps - before.writeOps) / seconds,
      });
    }
    for (const id of this.latest.keys()) if (!inMap.has(id)) this.latest.delete(id);
    this.atSample = next;
    this.lastRates = rates;
    return rates;
  }
}
