// What the MDS counts per job and per client: metadata operations it served
// itself, data requests the OSSs reported (common/jobs/usage.ts), and rates
// over the last sample interval (JobStats.tick).
import { addUsage, type DataUsage, emptyUsage, usageSince } from '../../common/jobs/usage.js';

export interface Rates {
  readBytesPerSec: number;
  writeBytesPerSec: number;
  readOpsPerSec: number;
  writeOpsPerSec: number;
  /** Metadata operations (a batched call counts each item). */
  mdsOpsPerSec: number;
}

export interface MdsCounts {
  ops: number;
  /** Summed request time, ms. */
  ms: number;
  errors: number;
}

export interface Activity {
  mds: MdsCounts;
  data: DataUsage;
  rates: Rates;
  /** The counts at the last tick, for the next tick's rates. */
  atTick: { mdsOps: number; data: DataUsage };
}

function zeroRates(): Rates {
  return { readBytesPerSec: 0, writeBytesPerSec: 0, readOpsPerSec: 0, writeOpsPerSec: 0, mdsOpsPerSec: 0 };
}

export function newActivity(): Activity {
  return {
    mds: { ops: 0, ms: 0, errors: 0 },
    data: emptyUsage(),
    rates: zeroRates(),
    atTick: { mdsOps: 0, data: emptyUsage() },
  };
}

export function countMds(a: Activity, items: number, ms: number, ok: boolean): void {
  if (ok) a.mds.ops += items;
  else a.mds.errors += items;
  a.mds.ms += ms;
}

export function countData(a: Activity, delta: Readonly<DataUsage>): void {
  addUsage(a.data, delta);
}

/** Rates since the last tick, `elapsedMs` ago. */
export function tickRates(a: Activity, elapsedMs: number): void {
  const seconds = Math.max(elapsedMs, 1) / 1000;
  const d = usageSince(a.data, a.atTick.data);
  a.rates = {
    readBytesPerSec: d.readBytes / seconds,
    writeBytesPerSec: d.writeBytes / seconds,
    readOpsPerSec: d.readOps / seconds,
    writeOpsPerSec: d.writeOps / seconds,
    mdsOpsPerSec: Math.max(0, a.mds.ops - a.atTick.mdsOps) / seconds,
  };
  a.atTick = { mdsOps: a.mds.ops, data: { ...a.data } };
}

export type SortKey = 'rate' | 'bytes' | 'ops' | 'recent';
export const SORT_KEYS: readonly SortKey[] = ['rate', 'bytes', 'ops', 'recent'];

/** Busiest first: by `key`, ties by the others in the order rate, bytes, ops. */
export function busiest<T extends { activity: Activity; lastSeenMs: number }>(
  entries: T[],
  key: SortKey,
): T[] {
  const rate = (e: T) => e.activity.rates.readBytesPerSec + e.activity.rates.writeBytesPerSec;
  const opsRate = (e: T) =>
    e.activity.rates.readOpsPerSec + e.activity.rates.writeOpsPerSec + e.activity.rates.mdsOpsPerSec;
  const bytes = (e: T) => e.activity.data.readBytes + e.activity.data.writeBytes;
  const ops = (e: T) => e.activity.data.readOps + e.activity.data.writeOps + e.activity.mds.ops;
  const order: ((e: T) => number)[] =
    key === 'recent'
      ? [(e) => e.lastSeenMs]
      : key === 'bytes'
        ? [bytes, ops, rate]
        : key === 'ops'
          ? [ops, bytes, rate]
          : [rate, opsRate, bytes, ops];
  return [...entries].sort((a, b) => {
    for (const pick of order) {
      const diff = pick(b) - pick(a);
      if (diff !== 0) return diff;
    }
    return 0;
  });
}
