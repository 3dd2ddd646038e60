// Readahead on a real cluster (hits counted on a sequential scan, none when
// it is off; without a window, partial-block reads move only what they ask
// for), concurrent readers and writers on different files, close-to-open
// consistency of the cache between clients, and the transports: the bulk
// data path by default, gRPC when it is switched off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientLimits, type Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { fetchedBytes, seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';

const SEED = seedFromEnv();
console.log(`client concurrency seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const MiB = 1 << 20;
const RAID0X4: Layout = { pattern: 'raid0', stripeSize: S, stripeCount: 4 };
const REP3: Layout = {
  pattern: 'replicated',
  stripeSize: S,
  stripeCount: 2,
  replicas: 3,
  failureDomain: 'host',
};
const EC42: Layout = { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' };
const RAID0X4_1M: Layout = { pattern: 'raid0', stripeSize: MiB, stripeCount: 4 };

describe('client concurrency and readahead on a real cluster', () => {
  let cluster: Cluster;
  let writer: StripeClient;
  /** A client of its own (its own cache), with these limits. */
  const connect = (limits: Partial<ClientLimits> = {}): Promise<StripeClient> =>
    StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED, limits });

  beforeAll(async () => {
    cluster = await startCluster();
    writer = await connect();
    await writer.mkdir('/c', { recursive: true });
  });
  afterAll(async () => {
    await writer?.close();
    await cluster?.stop();
  });

  it("close-to-open: a reopen after another client's commit reads the new bytes, not cached ones", async () => {
    const size = 3 * MiB;
    const data = seededBytes(size, SEED + 7);
    await writer.writeFile('/c/shared', data, { layout: { ...REP3, stripeSize: MiB } });
    const reader = await connect();
    try {
      const fetched = () => fetchedBytes(reader.stats());
      expect((await reader.readFile('/c/shared')).equals(data)).toBe(true);
      const firstFetch = fetched();
      expect(firstFetch).toBeGreaterThanOrEqual(size);
      // Unchanged file: the reopen is served from the cache.
      expect((await reader.readFile('/c/shared')).equals(data)).toBe(true);
      expect(fetched()).toBe(firstFetch);
      expect(reader.stats().cache.staleDrops).toBe(0);
      // Another client overwrites 4 KiB in the middle block and closes (commits).
      const patch = seededBytes(4096, SEED + 8);
      const h = await writer.open('/c/shared', 'r+');
      await h.write(patch, 0, patch.length, MiB + 100);
      await h.close();
      patch.copy(data, MiB + 100);
      // The reader's cache still has the old blocks; opening again drops them.
      expect((await reader.readFile('/c/shared')).equals(data)).toBe(true);
      expect(reader.stats().cache.staleDrops).toBe(3);
      expect(fetched() - firstFetch).toBeGreaterThanOrEqual(size);
    } finally {
      await reader.close();
    }
  });

  it('a 64 KiB sequential scan is served by readahead; with readahead off nothing is prefetched', async () => {
    const size = 16 * MiB;
    const data = seededBytes(size, SEED);
    await writer.writeFile('/c/scan', data, { layout: RAID0X4 });
    for (const readahead of [true, false]) {
      const reader = await connect({
        cacheBytesMax: 64 * MiB,
        ...(readahead ? {} : { readaheadFileBytesMax: 0 }),
      });
      const handle = await reader.open('/c/scan', 'r');
      const out = Buffer.alloc(64 * 1024);
      for (let at = 0; at < size; at += out.length) {
        await handle.read(out, 0, out.length, at);
        expect(out.equals(data.subarray(at, at + out.length)), `scan at ${at}`).toBe(true);
      }
      await handle.close();
      const stats = reader.stats();
      if (readahead) {
        // Everything but the first unit or so comes from blocks fetched ahead.
        expect(stats.readahead.hitBytes).toBeGreaterThan(size - 4 * S);
        expect(stats.readahead.wasteBytes).toBe(0);
        // Blocks back to back in one object went in shared requests (client/prefetch-runs.ts):
        // well under one request per cache block.
        const blocks = size / Math.min(S, MiB);
        expect(stats.requests.bulk).toBeLessThan(blocks / 2);
        // Those requests have their own latency kind, apart from single-range reads.
        expect(stats.latency.readRun?.count ?? 0).toBeGreaterThan(0);
        expect((stats.latency.readRun?.count ?? 0) + (stats.latency.readChunk?.count ?? 0)).toBe(
          stats.requests.bulk,
        );
      } else {
        expect(stats.readahead.hitBytes).toBe(0);
        expect(stats.latency.readRun).toBeUndefined();
      }
      await reader.close();
    }
  });

  it('reads without a readahead window fetch only the bytes asked for, not whole blocks', async () => {
    const size = 8 * MiB;
    const layouts: Layout[] = [
      { pattern: 'replicated', stripeSize: MiB, stripeCount: 2, replicas: 3, failureDomain: 'host' },
      { pattern: 'ec', stripeSize: MiB, k: 4, m: 2, failureDomain: 'host' },
    ];
    for (const [i, layout] of layouts.entries()) {
      const path = `/c/exact${i}`;
      const data = seededBytes(size, SEED + 30 + i);
      const rebuildReads = layout.pattern === 'ec' ? (layout.k as number) : 1;
      await writer.writeFile(path, data, { layout });
      // Random 4 KiB reads on a cold client: each moves 4 KiB (a whole-block fetch would move 1 MiB).
      const random = await connect();
      const handle = await random.open(path, 'r');
      const out = Buffer.alloc(4096);
      const reads = 40;
      for (let r = 0; r < reads; r++) {
        const at = 4096 + ((r * 7919 * 4096 + 12345) % (size - 2 * 4096));
        await handle.read(out, 0, out.length, at);
        expect(out.equals(data.subarray(at, at + out.length)), `${layout.pattern} at ${at}`).toBe(true);
      }
      await handle.close();
      const stats = random.stats();
      const moved = fetchedBytes(stats);
      expect(stats.exactReads).toBe(reads);
      // A read whose ec data chunk the map shows down for a moment (this cluster's heartbeat
      // timeout is 600 ms, which a loaded machine can miss) is rebuilt from the same range of
      // k chunks: k times its bytes. A replicated read moves its bytes from another copy.
      expect(moved).toBe((reads + (rebuildReads - 1) * stats.degradedReads) * out.length);
      await random.close();
      // Readahead off: a 64 KiB sequential scan moves what it reads.
      const plain = await connect({ readaheadFileBytesMax: 0 });
      const scan = await plain.open(path, 'r');
      const chunk = Buffer.alloc(64 * 1024);
      for (let at = 0; at < 2 * MiB; at += chunk.length) {
        await scan.read(chunk, 0, chunk.length, at);
        expect(chunk.equals(data.subarray(at, at + chunk.length))).toBe(true);
      }
      await scan.close();
      const scanned = plain.stats();
      expect(fetchedBytes(scanned)).toBe(2 * MiB + (rebuildReads - 1) * scanned.degradedReads * chunk.length);
      expect(scanned.readahead.hitBytes).toBe(0);
      await plain.close();
    }
  });

  it('streamed pieces and reads stay intact while the cache recycles its blocks', async () => {
    // 1 MiB blocks come from the block pool; a 4 MiB cache and a 48 MiB file get them reused
    // (after the pool's 16-block quarantine) many times over while the pieces are kept.
    const size = 48 * MiB;
    const data = seededBytes(size, SEED + 40);
    await writer.writeFile('/c/streamed', data, {
      layout: RAID0X4_1M,
    });
    const reader = await connect({
      cacheBytesMax: 4 * MiB,
      readaheadFileBytesMax: 2 * MiB,
      readaheadTotalBytesMax: 2 * MiB,
    });
    const kept: Buffer[] = [];
    for await (const piece of reader.createReadStream('/c/streamed')) kept.push(piece as Buffer);
    // More reads through the same cache, into blocks the pool hands out again.
    const handle = await reader.open('/c/streamed', 'r');
    const out = Buffer.alloc(MiB);
    for (let at = 0; at < size; at += 2 * MiB) {
      await handle.read(out, 0, MiB, at);
      expect(out.equals(data.subarray(at, at + MiB))).toBe(true);
    }
    await handle.close();
    expect(Buffer.concat(kept).equals(data), 'streamed pieces after the cache moved on').toBe(true);
    await reader.close();
  });

  it('a sequential scan of a file larger than the cache drops the blocks behind it: little new memory, other files stay cached', async () => {
    const size = 96 * MiB;
    const big = seededBytes(size, SEED + 45);
    const small = seededBytes(MiB, SEED + 46);
    await writer.writeFile('/c/scan-big', big, { layout: RAID0X4_1M });
    await writer.writeFile('/c/scan-small', small, { layout: REP3 });
    const reader = await connect({ cacheBytesMax: 48 * MiB, readaheadFileBytesMax: 4 * MiB });
    expect((await reader.readFile('/c/scan-small')).equals(small)).toBe(true);
    const fetchedBefore = fetchedBytes(reader.stats());
    const pieces: Buffer[] = [];
    for await (const piece of reader.createReadStream('/c/scan-big')) pieces.push(piece as Buffer);
    expect(Buffer.concat(pieces).equals(big)).toBe(true);
    // The blocks it passed went back to the pool: about the readahead window plus the pool's
    // 16-block quarantine were ever made, not the 48 a full cache holds.
    const allocated = reader.stats().cache.blocksAllocated;
    console.log(`scan of ${size / MiB} MiB through a 48 MiB cache: ${allocated} blocks made`);
    expect(allocated).toBeLessThanOrEqual(24);
    // The small file read before the scan is still cached: reading it again fetches nothing.
    const fetchedAfterScan = fetchedBytes(reader.stats());
    expect(fetchedAfterScan - fetchedBefore).toBeGreaterThanOrEqual(size);
    expect((await reader.readFile('/c/scan-small')).equals(small)).toBe(true);
    expect(fetchedBytes(reader.stats())).toBe(fetchedAfterScan);
    await reader.close();
  });

  it('dropCache sends the next read of a file (or of every file) back to the OSSs', async () => {
    const data = seededBytes(4 * MiB + 3, SEED + 70);
    await writer.writeFile('/c/drop-a', data, { layout: REP3 });
    await writer.writeFile('/c/drop-b', data, { layout: EC42 });
    // Every read through the cache (reads of 4 MiB and more skip it by default).
    const reader = await connect({ directReadBytesMin: 0 });
    const fetched = () => fetchedBytes(reader.stats());
    const readBoth = async () => {
      for (const path of ['/c/drop-a', '/c/drop-b'])
        expect((await reader.readFile(path)).equals(data)).toBe(true);
    };
    await readBoth();
    const first = fetched();
    expect(first).toBeGreaterThanOrEqual(2 * data.length);
    await readBoth(); // both cached
    expect(fetched()).toBe(first);
    await reader.dropCache('/c/drop-a');
    await readBoth();
    const afterOne = fetched();
    expect(afterOne - first).toBeGreaterThanOrEqual(data.length);
    expect(afterOne - first).toBeLessThan(2 * data.length);
    await reader.dropCache();
    await readBoth();
    expect(fetched() - afterOne).toBeGreaterThanOrEqual(2 * data.length);
    await expect(reader.dropCache('/c/no-such-file')).rejects.toMatchObject({ code: 'NS_NOT_FOUND' });
    await reader.close();
  });

  it('after dropCache the next read refills the cache from the blocks it let go, not fresh memory', async () => {
    const size = 48 * MiB;
    const data = seededBytes(size, SEED + 71);
    await writer.writeFile('/c/warm', data, {
      layout: RAID0X4_1M,
    });
    const reader = await connect({ cacheBytesMax: 64 * MiB, directReadBytesMin: 0 });
    expect((await reader.readFile('/c/warm')).equals(data)).toBe(true);
    const first = reader.stats().cache.blocksAllocated;
    expect(first).toBeGreaterThanOrEqual(48);
    await reader.dropCache('/c/warm');
    expect((await reader.readFile('/c/warm')).equals(data)).toBe(true);
    // The 48 dropped blocks wait in the pool; only those still in its 16-block quarantine are
    // replaced by new ones (keeping a quarter of the cache, as before, made 32 new ones).
    expect(reader.stats().cache.blocksAllocated - first).toBeLessThanOrEqual(16);
    await reader.close();
  });

  it("a large read lands in the caller's buffer: whole uncached blocks in runs, not cached; cached blocks still used", async () => {
    const size = 12 * MiB + 5;
    const layouts: Layout[] = [{ ...REP3, stripeSize: MiB }, RAID0X4_1M, { ...EC42, stripeSize: MiB }];
    for (const [i, layout] of layouts.entries()) {
      const path = `/c/direct${i}`;
      const data = seededBytes(size, SEED + 80 + i);
      await writer.writeFile(path, data, { layout });
      const reader = await connect();
      // Block 0 read through the cache; its readahead brings block 1 too.
      const head = await reader.open(path, 'r');
      const first = Buffer.alloc(MiB);
      await head.read(first, 0, MiB, 0);
      await head.close();
      await expect.poll(() => reader.stats().cache.sizeBytes).toBe(2 * MiB);
      // Below directReadBytesMin (4 MiB) a read still goes through the cache.
      const small = await reader.open(path, 'r');
      const two = Buffer.alloc(2 * MiB);
      await small.read(two, 0, two.length, 2 * MiB + 4096);
      await small.close();
      expect(two.equals(data.subarray(2 * MiB + 4096, 4 * MiB + 4096))).toBe(true);
      expect(reader.stats().directReadBytes).toBe(0);
      await reader.dropCache(path);
      const again = await reader.open(path, 'r');
      await again.read(first, 0, MiB, 0);
      await again.close();
      await expect.poll(() => reader.stats().cache.sizeBytes).toBe(2 * MiB);
      const before = reader.stats();
      const whole = await reader.readFile(path);
      expect(whole.equals(data), `${layout.pattern} readFile`).toBe(true);
      const after = reader.stats();
      const throughCache = after.cache.sizeBytes - before.cache.sizeBytes;
      // Every block but the two cached ones landed in place; an ec chunk whose OST is down for a
      // moment is rebuilt through the cache instead (that is where a rebuild finds its siblings).
      expect(after.directReadBytes + throughCache, layout.pattern).toBe(size - 2 * MiB);
      expect(after.directReadBytes).toBeGreaterThan(0);
      if (layout.pattern !== 'ec') {
        // Nothing through the cache, no cache block made, and runs of up to 4 blocks back to back
        // in one object: 11 blocks over 2 or 4 objects, 4 requests.
        expect(throughCache).toBe(0);
        expect(after.cache.blocksAllocated - before.cache.blocksAllocated).toBe(0);
        expect(after.requests.bulk - before.requests.bulk).toBe(4);
      }
      // A large read that starts inside a block: that block through the cache, the rest in place.
      const h = await reader.open(path, 'r');
      const out = Buffer.alloc(size - MiB / 2);
      const { bytesRead } = await h.read(out, 0, out.length, MiB / 2);
      await h.close();
      expect(bytesRead).toBe(out.length);
      expect(out.equals(data.subarray(MiB / 2)), `${layout.pattern} unaligned`).toBe(true);
      await reader.close();
    }
  });

  it("with no cache, a small file's read lands in the caller's buffer: no cache block taken or made", async () => {
    const files = 12;
    const data = Array.from({ length: files }, (_, i) => seededBytes(64 * 1024, SEED + 90 + i));
    for (const [i, bytes] of data.entries())
      await writer.writeFile(`/c/small-nocache${i}`, bytes, { layout: { ...REP3, stripeSize: 4 * MiB } });
    const reader = await connect({ cacheBytesMax: 0, readaheadTotalBytesMax: 0 });
    for (const i of [5, 0, 11, 3, 8, 1, 10, 2, 7, 4, 9, 6])
      expect((await reader.readFile(`/c/small-nocache${i}`)).equals(data[i]!), `file ${i}`).toBe(true);
    const stats = reader.stats();
    expect(stats.directReadBytes).toBe(files * 64 * 1024);
    expect(stats.cache.blocksAllocated).toBe(0);
    await reader.close();
    // With a cache the same reads go through it (below directReadBytesMin), and stay there.
    const cached = await connect();
    for (let i = 0; i < files; i++)
      expect((await cached.readFile(`/c/small-nocache${i}`)).equals(data[i]!)).toBe(true);
    expect(cached.stats().directReadBytes).toBe(0);
    expect(cached.stats().cache.sizeBytes).toBe(files * 64 * 1024);
    await cached.close();
  });

  it('concurrent readers and writers on different files, every layout', async () => {
    const layouts = [RAID0X4, REP3, EC42];
    const existing = layouts.map((layout, i) => ({
      path: `/c/old${i}`,
      layout,
      data: seededBytes(3 * MiB + i * 1001, SEED + 10 + i),
    }));
    for (const f of existing) await writer.writeFile(f.path, f.data, { layout: f.layout });
    const reader = await connect({ cacheBytesMax: 8 * MiB });
    const fresh = Array.from({ length: 6 }, (_, i) => ({
      path: `/c/new${i}`,
      layout: layouts[i % layouts.length] as Layout,
      data: seededBytes(2 * MiB + i * 4099, SEED + 20 + i),
    }));
    const writes = fresh.map((f) => writer.writeFile(f.path, f.data, { layout: f.layout }));
    const reads = existing.flatMap((f) => [reader.readFile(f.path), reader.readFile(f.path)]);
    await Promise.all(writes);
    const back = await Promise.all(reads);
    back.forEach((b, i) => {
      expect(b.equals((existing[Math.floor(i / 2)] as { data: Buffer }).data), `reader ${i}`).toBe(true);
    });
    const written = await Promise.all(fresh.map((f) => reader.readFile(f.path)));
    written.forEach((b, i) => {
      expect(b.equals((fresh[i] as { data: Buffer }).data), `written ${fresh[i]?.path}`).toBe(true);
    });
    await reader.close();
  });

  it('uses the bulk path when the map has a bulk address, and gRPC when bulk is off', async () => {
    expect(writer.stats().requests.bulk).toBeGreaterThan(0);
    expect(writer.stats().requests.grpc).toBe(0);
    const grpcOnly = await connect({ bulkEnabled: 0 });
    for (const [i, layout] of [RAID0X4, REP3, EC42].entries()) {
      const data = seededBytes(MiB + 77, SEED + 30 + i);
      await grpcOnly.writeFile(`/c/grpc${i}`, data, { layout });
      expect((await grpcOnly.readFile(`/c/grpc${i}`)).equals(data)).toBe(true);
      expect((await writer.readFile(`/c/grpc${i}`)).equals(data)).toBe(true);
    }
    expect(grpcOnly.stats().requests.bulk).toBe(0);
    expect(grpcOnly.stats().requests.grpc).toBeGreaterThan(0);
    await grpcOnly.close();
  });
});
