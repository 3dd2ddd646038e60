// Compaction of the segment log (segment-log.ts): a sealed segment whose
// dead share passed the bound has its live records copied forward into the
// active segment, a few objects at a time, each under its object's write lock
// (so no read or write of it runs meanwhile), each copy written synced with
// its new place in one round (a flushed object never depends on an unsynced
// copy), at a bounded rate so requests keep the disk. Once no live record is
// left the segment is removed, after the index log is synced. Nothing is
// verified or rewritten: a record is copied byte for byte, and its blocks'
// crcs in the index still vouch for (or against) it.
import { setTimeout as sleep } from 'node:timers/promises';
import { dataBuffers } from '../buffers.js';
import type { Ost } from './ost.js';
import type { Segment } from './segment-log.js';

/** Objects moved side by side (their copies share a round and its fdatasync). */
export const COMPACT_MOVES_IN_FLIGHT = 16;

export interface CompactorOptions {
  /** A sealed segment is compacted once this share of its bytes is dead. */
  deadShareMax: number;
  /** Copies go at most this fast. */
  bytesPerSec: number;
}

export class LogCompactor {
  private readonly waiting = new Set<Segment>();
  private current: Segment | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  /** Compactions that failed (the segment stays; it is considered again when more of it dies). */
  failures = 0;
  lastError: unknown;

  constructor(
    private readonly ost: Ost,
    private readonly opts: CompactorOptions,
  ) {
    ost.log.onDead = (segment) => this.consider(segment);
  }

  /** A sealed segment lost a live record (or was sealed): queued when its dead share passed the bound. */
  consider(segment: Segment): void {
    if (this.stopped || segment === this.current || this.ost.log.isActive(segment)) return;
    const deadShare = segment.endBytes === 0 ? 1 : 1 - segment.liveBytes / segment.endBytes;
    if (segment.live.size > 0 && deadShare < this.opts.deadShareMax) return;
    this.waiting.add(segment);
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
  }

  private async run(): Promise<void> {
    while (!this.stopped && this.waiting.size > 0) {
      const segment = this.waiting.values().next().value as Segment;
      this.waiting.delete(segment);
      if (this.ost.log.segments.get(segment.id) !== segment) continue;
      this.current = segment;
      try {
        await this.compact(segment);
      } catch (err) {
        this.failures++;
        this.lastError = err;
      } finally {
        this.current = undefined;
      }
    }
  }

  private async compact(segment: Segment): Promise<void> {
    const started = performance.now();
    let moved = 0;
    const ids = [...segment.live.keys()];
    for (let at = 0; at < ids.length && !this.stopped; at += COMPACT_MOVES_IN_FLIGHT) {
      const chunk = ids.slice(at, at + COMPACT_MOVES_IN_FLIGHT);
      for (const bytes of await Promise.all(chunk.map((id) => this.move(id, segment)))) moved += bytes;
      const dueMs = (moved / this.opts.bytesPerSec) * 1000 - (performance.now() - started);
      if (dueMs > 0) await sleep(dueMs);
    }
    if (!this.stopped && segment.live.size === 0) await this.ost.log.removeSegment(segment);
  }

  /** Copies the object's record forward if it is still in `segment`; the bytes copied. */
  private async move(objectId: string, segment: Segment): Promise<number> {
    const { ost } = this;
    const release = await ost.locks.acquire(objectId, true);
    const buf = dataBuffers.take();
    try {
      const meta = await ost.index.meta(objectId);
      if (!meta?.log || meta.log[0] !== segment.id || this.stopped) return 0;
      const bytes = meta.log[2];
      await ost.log.read(meta.log, buf);
      const outcome = await ost.log.submit({
        objectId,
        record: buf,
        bytes,
        sync: true,
        faultSite: false,
        prepared: ost.index.prepareMove(objectId, { ...meta }),
        replaces: meta.log,
      });
      if (outcome.fsyncFailure !== undefined) throw outcome.fsyncFailure;
      ost.log.counts.movedBytes += bytes;
      return bytes;
    } finally {
      dataBuffers.give(buf);
      release();
    }
  }

  /** Stops after the moves in flight; the segment being compacted stays as it is. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.waiting.clear();
    await this.running;
  }
}
