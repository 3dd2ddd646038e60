// Pure client modules: readahead state machine, block cache, backoff, latency
// histogram, Reed-Solomon wrapper, layout conversion.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffMs } from '../../client/backoff.js';
import { BlockPool } from '../../client/block-pool.js';
import { BlockCache } from '../../client/cache.js';
import { encodeParity, reconstruct } from '../../client/ec.js';
import { CallBatcher } from '../../client/mds-batch.js';
import { OstHealth, SLOW_FACTOR, SLOW_MS_MIN, SLOW_SAMPLES_MIN } from '../../client/ost-health.js';
import { INITIAL_READAHEAD, onRead, type ReadaheadState } from '../../client/readahead.js';
import { LatencyHistogram } from '../../client/stats.js';
import { seededRandom } from '../../common/random.js';

const SEED = Number(process.env.STRIPEFS_SEED ?? Date.now() % 2 ** 31);
console.log(`pure-core.test seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const MiB = 1 << 20;

describe('readahead', () => {
  const base = {
    fileSizeBytes: 1 << 30,
    unitBytes: MiB,
    blockBytes: MiB,
    windowBytesMax: 64 * MiB,
    globalAvailableBytes: 1 << 30,
  };

  it('grows from one unit to the per-file maximum on a sequential scan', () => {
    let state: ReadaheadState = INITIAL_READAHEAD;
    const windows: number[] = [];
    let fetchedEnd = 0;
    for (let offset = 0; offset < 512 * MiB; offset += 64 * 1024) {
      const step = onRead(state, { ...base, offset, length: 64 * 1024 });
      expect(step.sequential).toBe(true);
      for (const range of step.prefetch) {
        expect(range.offset).toBe(fetchedEnd === 0 ? 64 * 1024 : fetchedEnd);
        fetchedEnd = range.offset + range.length;
      }
      state = step.state;
      windows.push(state.windowBytes);
    }
    expect(windows[0]).toBe(MiB);
    expect(Math.max(...windows)).toBe(64 * MiB);
    // The prefetched area never runs more than one window ahead of the reader.
    expect(state.aheadEnd - state.nextOffset).toBeLessThanOrEqual(64 * MiB + MiB);
  });

  it('shrinks on random access and stops prefetching', () => {
    let state: ReadaheadState = INITIAL_READAHEAD;
    for (let offset = 0; offset < 16 * MiB; offset += MiB)
      state = onRead(state, { ...base, offset, length: MiB }).state;
    const grown = state.windowBytes;
    const step = onRead(state, { ...base, offset: 500 * MiB, length: 4096 });
    expect(step.sequential).toBe(false);
    expect(step.prefetch).toEqual([]);
    expect(step.state.windowBytes).toBeLessThan(grown);
    let s = step.state;
    for (const offset of [3, 900, 17, 444, 81])
      s = onRead(s, { ...base, offset: offset * MiB, length: 4096 }).state;
    expect(s.windowBytes).toBe(0);
  });

  it('never prefetches past the file end or beyond the global budget', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            offset: fc.nat(200 * MiB),
            length: fc.integer({ min: 1, max: 4 * MiB }),
            seq: fc.boolean(),
          }),
          { maxLength: 60 },
        ),
        fc.nat(100 * MiB),
        fc.nat(64 * MiB),
        (reads, fileSizeBytes, budget) => {
          let state: ReadaheadState = INITIAL_READAHEAD;
          for (const r of reads) {
            const offset = r.seq ? state.nextOffset : r.offset;
            const step = onRead(state, {
              ...base,
              fileSizeBytes,
              globalAvailableBytes: budget,
              offset,
              length: r.length,
            });
            let total = 0;
            for (const p of step.prefetch) {
              expect(p.length).toBeGreaterThan(0);
              expect(p.offset + p.length).toBeLessThanOrEqual(fileSizeBytes);
              expect(p.offset).toBeGreaterThanOrEqual(state.aheadEnd);
              total += p.length;
            }
            expect(total).toBeLessThanOrEqual(budget);
            expect(step.state.windowBytes).toBeLessThanOrEqual(base.windowBytesMax);
            state = step.state;
          }
        },
      ),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('block cache', () => {
  it('stays within its byte bound and evicts least recently used first', () => {
    const cache = new BlockCache(3 * 100);
    for (let b = 0; b < 3; b++) cache.put(1, 0, b, Buffer.alloc(100, b));
    expect(cache.get(1, 0, 0)?.[0]).toBe(0); // 0 is now the most recent
    cache.put(1, 0, 3, Buffer.alloc(100, 3));
    expect(cache.sizeBytes).toBe(300);
    expect(cache.has(1, 0, 1)).toBe(false);
    expect(cache.has(1, 0, 0)).toBe(true);
    expect(cache.counters.evictions).toBe(1);
  });

  it('invalidates one file, or a block range of it, and counts readahead hits and waste', () => {
    const cache = new BlockCache(1000);
    cache.put(1, 0, 0, Buffer.alloc(10), true);
    cache.put(1, 0, 1, Buffer.alloc(10), true);
    cache.put(2, 0, 0, Buffer.alloc(10), true);
    expect(cache.unreadPrefetchedBytes).toBe(30);
    cache.get(1, 0, 0);
    expect(cache.counters.readaheadHitBytes).toBe(10);
    cache.invalidate(1, 1, 1);
    expect(cache.has(1, 0, 0)).toBe(true);
    expect(cache.has(1, 0, 1)).toBe(false);
    expect(cache.counters.readaheadWasteBytes).toBe(10);
    cache.invalidate(1);
    expect(cache.has(1, 0, 0)).toBe(false);
    expect(cache.has(2, 0, 0)).toBe(true);
    expect(cache.unreadPrefetchedBytes).toBe(10);
  });

  it('keeps blocks per commit count: an open at a newer count drops the older blocks', () => {
    const cache = new BlockCache(1000);
    cache.put(1, 4, 0, Buffer.alloc(10, 4), true);
    cache.put(1, 4, 1, Buffer.alloc(10, 4));
    cache.put(2, 4, 0, Buffer.alloc(10));
    // A handle opened at count 5 never sees count 4's blocks, even before they are dropped.
    expect(cache.has(1, 5, 0)).toBe(false);
    expect(cache.get(1, 5, 0)).toBeUndefined();
    cache.put(1, 5, 0, Buffer.alloc(10, 5));
    expect(cache.get(1, 4, 0)?.[0]).toBe(4);
    expect(cache.get(1, 5, 0)?.[0]).toBe(5);
    // Opening at count 5 drops the file's other counts, and no other file's blocks.
    cache.retain(1, 5);
    expect(cache.has(1, 4, 0)).toBe(false);
    expect(cache.has(1, 4, 1)).toBe(false);
    expect(cache.has(1, 5, 0)).toBe(true);
    expect(cache.has(2, 4, 0)).toBe(true);
    expect(cache.counters.staleDrops).toBe(2);
    expect(cache.sizeBytes).toBe(20);
    expect(cache.unreadPrefetchedBytes).toBe(0);
  });

  it('keeps its accounting under random operations', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 4 }),
            fc.nat(3),
            fc.nat(2),
            fc.nat(20),
            fc.integer({ min: 1, max: 120 }),
          ),
          { maxLength: 200 },
        ),
        (ops) => {
          const cache = new BlockCache(500);
          for (const [op, file, change, block, size] of ops) {
            if (op === 0 || op === 1) cache.put(file, change, block, Buffer.alloc(size), op === 1);
            else if (op === 2) cache.get(file, change, block);
            else if (op === 3) cache.invalidate(file, block, block + 3);
            else {
              cache.retain(file, change);
              for (let other = 0; other <= 2; other++)
                if (other !== change)
                  for (let b = 0; b <= 20; b++) expect(cache.has(file, other, b)).toBe(false);
            }
            expect(cache.sizeBytes).toBeLessThanOrEqual(500);
            expect(cache.unreadPrefetchedBytes).toBeGreaterThanOrEqual(0);
            expect(cache.unreadPrefetchedBytes).toBeLessThanOrEqual(cache.sizeBytes);
          }
        },
      ),
      { seed: SEED, numRuns: 200 },
    );
  });
});

describe('block pool', () => {
  it('reuses blocks the cache drops, only after the quarantine, and never one still cached', () => {
    const pool = new BlockPool(1000, 100, 2);
    const cache = new BlockCache(3000, pool);
    const taken = Array.from({ length: 6 }, () => pool.take(1000));
    expect(new Set(taken.map((b) => b.buffer)).size).toBe(6);
    taken.forEach((b, i) => {
      cache.put(1, 0, i, b);
    });
    // Blocks 0..2 were evicted: two wait in quarantine, the first is free again.
    expect(pool.idle).toBe(1);
    const again = pool.take(1000);
    expect(again.buffer).toBe(taken[0]?.buffer);
    for (let i = 3; i < 6; i++) expect(cache.get(1, 0, i)?.buffer).toBe(taken[i]?.buffer);
    // Storing the same buffer again under its key does not recycle it.
    cache.put(1, 0, 5, taken[5] as Buffer);
    expect(pool.idle).toBe(0);
    // Short blocks (under half a block) and foreign buffers are not pooled.
    expect(pool.take(400).buffer.byteLength).not.toBe(1000);
    pool.recycle(Buffer.alloc(1000));
    // Dropping blocks 3..5 pushes 1, 2 and 3 out of the quarantine; 4 and 5 still wait.
    cache.invalidate(1);
    expect(pool.idle).toBe(3);
  });

  it('keeps a pinned block out of reuse until its last pin goes, even when the cache drops it', () => {
    const pool = new BlockPool(1000, 100, 0); // no quarantine: a dropped block is free at once
    const cache = new BlockCache(1000, pool);
    const block = pool.take(1000);
    cache.put(1, 0, 0, block);
    pool.pin(block);
    pool.pin(block);
    cache.invalidate(1); // dropped while pinned
    expect(pool.idle).toBe(0);
    expect(pool.take(1000).buffer).not.toBe(block.buffer);
    pool.unpin(block);
    expect(pool.idle).toBe(0);
    pool.unpin(block);
    expect(pool.idle).toBe(1);
    expect(pool.take(1000).buffer).toBe(block.buffer);
    // A pinned block that is never dropped just stays with its holder.
    const kept = pool.take(1000);
    pool.pin(kept);
    pool.unpin(kept);
    expect(pool.idle).toBe(0);
  });
});

describe('ost health', () => {
  it('reads a slow OST after the others for one period, then measures it again', () => {
    let now = 0;
    const health = new OstHealth(5_000, () => now);
    const up = () => true;
    // Three OSTs answer in 5 ms; OST 3 in 100 ms (over SLOW_FACTOR x 5 and SLOW_MS_MIN).
    expect(100).toBeGreaterThan(Math.max(SLOW_MS_MIN, SLOW_FACTOR * 5));
    for (let i = 0; i < SLOW_SAMPLES_MIN - 1; i++) {
      for (const ost of [0, 1, 2]) health.observeLatency(ost, 5);
      health.observeLatency(3, 100);
    }
    // Too few answers to judge: one late answer is a hiccup.
    expect(health.isSlow(3)).toBe(false);
    health.observeLatency(3, 100);
    expect(health.isSlow(3)).toBe(true);
    expect(health.order([3, 0, 1], up)).toEqual([0, 1, 3]);
    // Slow still comes before suspect and down.
    health.record(1, 'REQ_TIMEOUT');
    expect(health.order([1, 3, 0], up)).toEqual([0, 3, 1]);
    expect(health.order([3, 0], (ost) => ost !== 0)).toEqual([3, 0]);
    expect(health.snapshot()).toMatchObject({ slow: [3], suspect: [1] });
    expect(health.slowVerdicts).toBe(1);
    // The verdict holds for the period even if the OST answers fast meanwhile ...
    now = 4_999;
    health.observeLatency(3, 5);
    expect(health.isSlow(3)).toBe(true);
    // ... and then it is measured afresh: a recovered OST is read first again.
    now = 5_000;
    expect(health.isSlow(3)).toBe(false);
    for (let i = 0; i < SLOW_SAMPLES_MIN; i++) health.observeLatency(3, 6);
    now = 5_300; // past the median's reuse
    expect(health.isSlow(3)).toBe(false);
    expect(health.order([3, 0], up)).toEqual([3, 0]);
  });

  it('judges against the other OSTs (one is enough), never an OST under SLOW_MS_MIN, and can be off', () => {
    let now = 0;
    const health = new OstHealth(5_000, () => now);
    for (let i = 0; i < 5; i++) health.observeLatency(1, 100);
    // No other OST to compare with.
    expect(health.isSlow(1)).toBe(false);
    for (let i = 0; i < 5; i++) health.observeLatency(0, 1);
    now = 300; // past the figures' reuse
    expect(health.isSlow(0)).toBe(false);
    expect(health.isSlow(1)).toBe(true);
    const off = new OstHealth(5_000, () => now, 0);
    for (let i = 0; i < 5; i++) {
      off.observeLatency(0, 1);
      off.observeLatency(1, 100);
    }
    expect(off.isSlow(1)).toBe(false);
    const fast = new OstHealth(5_000, () => now);
    for (let i = 0; i < 5; i++) {
      for (const ost of [0, 1, 2]) fast.observeLatency(ost, 0.5);
      fast.observeLatency(3, SLOW_MS_MIN - 1);
    }
    // 38x the median, but a few ms is what any OST of a busy host may take.
    expect(fast.isSlow(3)).toBe(false);
    // Figures older than 30 s are not the OST's any more.
    for (let i = 0; i < 5; i++) fast.observeLatency(3, 200);
    now = 31_000;
    expect(fast.isSlow(3)).toBe(false);
  });
});

describe('backoff', () => {
  it('grows exponentially, is capped and jittered within [cap/2, cap]', () => {
    const random = seededRandom(SEED);
    const policy = { baseMs: 20, maxMs: 1000 };
    for (let attempt = 0; attempt < 12; attempt++) {
      const cap = Math.min(1000, 20 * 2 ** attempt);
      const d = backoffMs(attempt, policy, random);
      expect(d).toBeGreaterThanOrEqual(cap / 2);
      expect(d).toBeLessThanOrEqual(cap);
    }
    expect(backoffMs(3, policy, seededRandom(7))).toBe(backoffMs(3, policy, seededRandom(7)));
  });
});

describe('latency histogram', () => {
  it('reports p50 and p99 within one bucket of the exact values', () => {
    const random = seededRandom(SEED);
    const h = new LatencyHistogram(20);
    const samples: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const ms = 0.05 + random.next() ** 3 * 500;
      samples.push(ms);
      h.record(ms);
    }
    samples.sort((a, b) => a - b);
    for (const q of [0.5, 0.99]) {
      const exact = samples[Math.ceil(q * samples.length) - 1] as number;
      expect(h.quantileMs(q)).toBeGreaterThanOrEqual(exact);
      expect(h.quantileMs(q)).toBeLessThanOrEqual(exact * 10 ** (1 / 20) * 1.0001);
    }
  });
});

describe('reed-solomon', () => {
  it('rebuilds the data from any k of k+m shards, for several geometries, many times in a row', () => {
    const random = seededRandom(SEED);
    for (const [k, m] of [
      [2, 1],
      [3, 1],
      [2, 2],
      [4, 2],
      [6, 3],
      [8, 4],
    ] as const) {
      const shardBytes = 1 + random.int(3000);
      const shards = Buffer.alloc((k + m) * shardBytes);
      for (let i = 0; i < k * shardBytes; i++) shards[i] = random.int(256);
      encodeParity(shards, k, m);
      for (let trial = 0; trial < 20; trial++) {
        const present = new Array<boolean>(k + m).fill(true);
        let lost = 0;
        while (lost < m) {
          const i = random.int(k + m);
          if (present[i]) {
            present[i] = false;
            lost++;
          }
        }
        const damaged = Buffer.from(shards);
        present.forEach((ok, i) => {
          if (!ok) damaged.fill(0xee, i * shardBytes, (i + 1) * shardBytes);
        });
        reconstruct(damaged, k, m, present);
        expect(damaged.subarray(0, k * shardBytes).equals(shards.subarray(0, k * shardBytes))).toBe(true);
      }
      expect(() => reconstruct(Buffer.from(shards), k, m, new Array<boolean>(k + m).fill(false))).toThrow();
    }
  });
});

describe('call batcher', () => {
  it('cuts batches at the item bound and at the byte bound; an item over the byte bound goes alone', async () => {
    const sent: number[][] = [];
    const batcher = new CallBatcher<number, number>({
      itemsMax: 3,
      bytesMax: 6,
      bytesOf: (bytes) => bytes,
      one: async (bytes) => {
        sent.push([bytes]);
        return bytes;
      },
      many: async (items) => {
        sent.push(items);
        return items;
      },
    });
    const items = [3, 3, 3, 1, 1, 1, 1, 9, 2];
    expect(await Promise.all(items.map((i) => batcher.submit(i)))).toEqual(items);
    expect(sent).toEqual([[3, 3], [3, 1, 1], [1, 1], [9], [2]]);
  });
});
