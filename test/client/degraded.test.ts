// Degraded reads on a real cluster. A replica or ec chunk is made unavailable
// three ways: the OST fails every read (fault knob readFailRate 1), the OST
// hangs (knob hang: the client must give up on it within its request timeout
// and never wait for ever), and the OSS process is killed. Replicated reads
// use another replica, ec reads rebuild from k chunks (also with m = 2 chunks
// gone), and when too much is gone the error names the objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClientLimits, type Layout, StripeClient } from '../../client/index.js';
import { CLIENT_LIMITS } from '../../client/limits.js';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, setOstFaults, startCluster, waitForOsts } from '../helpers/cluster.js';

const SEED = seedFromEnv();
console.log(`client degraded seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const MiB = 1 << 20;
const REP3: Layout = {
  pattern: 'replicated',
  stripeSize: S,
  stripeCount: 2,
  replicas: 3,
  failureDomain: 'host',
};
const EC42: Layout = { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' };
/** The reader's request timeout: a hung OST is skipped after this. */
const TIMEOUT_MS = 1_000;
/**
 * A suspicion or slow verdict that outlasts the test: a reader pays for a bad OST once, and a
 * slow machine (a read that takes longer than ostSuspectMs) cannot make it pay again.
 */
const FOREVER_MS = 3_600_000;

describe('degraded reads on a real cluster', () => {
  let cluster: Cluster;
  let writer: StripeClient;
  const rep = seededBytes(2 * MiB + 3, SEED + 1);
  const ec = seededBytes(2 * MiB + 5, SEED + 2);

  /** A client that caches nothing (every read goes to the OSTs) and gives up on an OST after TIMEOUT_MS. */
  const reader = (limits: Partial<ClientLimits> = {}): Promise<StripeClient> =>
    StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      limits: { cacheBytesMax: 0, requestTimeoutMs: TIMEOUT_MS, ...limits },
    });
  /** The primary OST of every object of the replicated file, and the OSTs of ec chunks by position. */
  const repPrimaries = async (): Promise<number[]> =>
    (await writer.getLayout('/d/rep')).objects.map((o) => o.osts[0] as number);
  const ecChunkOsts = async (): Promise<number[]> =>
    (await writer.getLayout('/d/ec')).objects.map((o) => o.osts[0] as number);

  beforeAll(async () => {
    cluster = await startCluster();
    writer = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    await writer.mkdir('/d', { recursive: true });
    await writer.writeFile('/d/rep', rep, { layout: REP3 });
    await writer.writeFile('/d/ec', ec, { layout: EC42 });
  });
  afterAll(async () => {
    await writer?.close();
    await cluster?.stop();
  });

  /** Runs `work` while `osts` have the fault `knobs`, clearing them afterwards. */
  async function withFaults(
    osts: number[],
    knobs: Record<string, number | boolean>,
    work: () => Promise<void>,
  ): Promise<void> {
    for (const ost of osts) await setOstFaults(cluster, ost, knobs);
    try {
      await work();
    } finally {
      for (const ost of osts) await setOstFaults(cluster, ost, null);
    }
  }

  it('an OST that fails every read: replicated uses another replica, ec rebuilds (one and m=2 chunks)', async () => {
    const chunks = await ecChunkOsts();
    await withFaults([...new Set(await repPrimaries())], { readFailRate: 1 }, async () => {
      const client = await reader();
      expect((await client.readFile('/d/rep')).equals(rep)).toBe(true);
      expect(client.stats().degradedReads).toBeGreaterThan(0);
      await client.close();
    });
    for (const bad of [chunks.slice(0, 1), chunks.slice(0, 2), chunks.slice(3, 5)]) {
      await withFaults(bad, { readFailRate: 1 }, async () => {
        const client = await reader();
        expect((await client.readFile('/d/ec')).equals(ec), `chunks on ${bad} failing`).toBe(true);
        await client.close();
      });
    }
  });

  it('an OST that hangs costs the requests already sent to it, not one timeout per block', async () => {
    const chunks = await ecChunkOsts();
    const cases: [string, Buffer, number[]][] = [
      ['/d/rep', rep, [...new Set(await repPrimaries())]],
      ['/d/ec', ec, chunks.slice(0, 1)],
      ['/d/ec', ec, chunks.slice(1, 3)],
    ];
    for (const [path, data, hung] of cases) {
      await withFaults(hung, { hang: true }, async () => {
        const client = await reader({ ostSuspectMs: FOREVER_MS });
        expect((await client.readFile(path)).equals(data), `${path} with ${hung} hung`).toBe(true);
        // The requests in flight to each hung OST when it first timed out, at most; after that
        // it is suspect and read around. One timeout per block would be 16 per object.
        const { timeouts } = client.stats().osts;
        expect(timeouts, `${path} with ${hung} hung`).toBeGreaterThan(0);
        expect(timeouts, `${path} with ${hung} hung`).toBeLessThanOrEqual(
          hung.length * CLIENT_LIMITS.inFlightPerOssMax,
        );
        expect(client.stats().degradedReads).toBeGreaterThan(0);
        await client.close();
      });
    }
  });

  it('a suspect replica is still read when every other copy is failing too', async () => {
    // Every copy fails once, so the reader suspects all of them; then the first copy of each
    // object answers again while the others still fail. The reader must read that copy (the
    // only one that works) and not give up on it for being suspect, for every retry until
    // its suspicion lapses (ostSuspectMs, 5 s: longer than all the retries).
    const objects = (await writer.getLayout('/d/rep')).objects.map((o) => o.osts);
    const all = [...new Set(objects.flat())];
    const live = new Set(objects.map((osts) => osts[0] as number));
    await withFaults(all, { readFailRate: 1 }, async () => {
      const client = await reader();
      try {
        await expect(client.readFile('/d/rep')).rejects.toMatchObject({ code: 'IO_DEGRADED' });
        for (const ost of live) await setOstFaults(cluster, ost, null);
        const retriesBefore = client.stats().retries;
        expect((await client.readFile('/d/rep')).equals(rep)).toBe(true);
        // Read at the first try: no read was skipped into an IO_DEGRADED and retried.
        expect(client.stats().retries).toBe(retriesBefore);
      } finally {
        await client.close();
      }
    });
  });

  it('a slow OST (late answers, no errors) is read after the others; ec readahead rebuilds around it', async () => {
    // Far slower than any healthy answer on a loaded host, and judged once for the whole test
    // (FOREVER_MS): the bytes read from it are then the few answers that made the verdict,
    // whatever the machine's load. Only 8 times the median OST is slow here: healthy OSTs
    // answered in 70-170 ms at load 100 (a 1 s OST was then under 20x), and at load 31 single
    // OSTs averaged 43-69 ms against a median of 8 ms (over the default 4x); a verdict on a
    // healthy OST that lasts for ever would send rebuilds back to the slow one.
    const SLOW_MS = 3_000;
    const slowReader = { ostSuspectMs: FOREVER_MS, requestTimeoutMs: 10 * SLOW_MS, slowOstFactor: 8 };
    // Replicated over 8 objects, read 64 KiB at a time in order by a reader that caches nothing,
    // so each answer is in before the next read picks its copy.
    const wide: Layout = { ...REP3, stripeCount: 8 };
    const data = seededBytes(8 * 12 * S, SEED + 3);
    await writer.writeFile('/d/wide', data, { layout: wide });
    const primaries = (await writer.getLayout('/d/wide')).objects.map((o) => o.osts[0] as number);
    expect(new Set(primaries).size).toBeGreaterThanOrEqual(2);
    const slow = primaries[0] as number;
    const slowBytes = primaries.filter((p) => p === slow).length * 12 * S;
    await withFaults([slow], { latencyMs: SLOW_MS }, async () => {
      const client = await reader(slowReader);
      const handle = await client.open('/d/wide', 'r');
      const out = Buffer.alloc(data.length);
      for (let at = 0; at < data.length; at += S) await handle.read(out, at, S, at);
      await handle.close();
      expect(out.equals(data)).toBe(true);
      const stats = client.stats();
      console.log(
        `slow OST ${slow}: read ${stats.bytesReadPerOst[slow]} of its ${slowBytes} bytes`,
        stats.osts,
      );
      expect(stats.osts.slow).toContain(slow);
      expect(stats.osts.slowVerdicts).toBeGreaterThan(0);
      // Its first few answers made it slow; the other replicas served the rest of its share.
      expect(stats.bytesReadPerOst[slow] ?? 0).toBeLessThan(slowBytes / 2);
      await client.close();
    });
    // ec: a caching reader streams a file whose first data chunk is slow. Once the chunk's OST is
    // found slow, its readahead runs are rebuilt from the other data chunks and a parity run.
    const big = seededBytes(16 * MiB + 7, SEED + 4);
    await writer.writeFile('/d/ec-big', big, { layout: EC42 });
    const chunks = (await writer.getLayout('/d/ec-big')).objects.map((o) => o.osts[0] as number);
    const slowChunk = chunks[0] as number;
    await withFaults([slowChunk], { latencyMs: SLOW_MS }, async () => {
      const client = await StripeClient.connect({
        mds: cluster.mdsAddress,
        seed: SEED,
        limits: { ostSuspectMs: FOREVER_MS, slowOstFactor: 8 },
      });
      const pieces: Buffer[] = [];
      for await (const piece of client.createReadStream('/d/ec-big')) pieces.push(piece as Buffer);
      expect(Buffer.concat(pieces).equals(big)).toBe(true);
      const stats = client.stats();
      console.log(
        `slow ec chunk on OST ${slowChunk}: read ${stats.bytesReadPerOst[slowChunk]} of 4 MiB`,
        stats.osts,
        stats.degradedReads,
      );
      expect(stats.osts.slowVerdicts).toBeGreaterThan(0);
      expect(stats.degradedReads).toBeGreaterThan(0);
      expect(stats.bytesReadPerOst[slowChunk] ?? 0).toBeLessThan(4 * MiB);
      await client.close();
    });
    // ec random reads without readahead: once the chunk's OST is slow, its units are rebuilt
    // from the other chunks' same ranges instead of waiting on it.
    await withFaults([slowChunk], { latencyMs: SLOW_MS }, async () => {
      const client = await reader(slowReader);
      const handle = await client.open('/d/ec-big', 'r');
      const units = Math.floor(big.length / S);
      const order = Array.from({ length: units }, (_, i) => i);
      for (let i = units - 1; i > 0; i--) {
        const j = (SEED + i * 7919) % (i + 1);
        [order[i], order[j]] = [order[j] as number, order[i] as number];
      }
      const out = Buffer.alloc(S);
      for (const unit of order) {
        await handle.read(out, 0, S, unit * S);
        expect(out.equals(big.subarray(unit * S, unit * S + S))).toBe(true);
      }
      await handle.close();
      const stats = client.stats();
      const slowShare = (units / 4) * S;
      console.log(
        `random ec reads, slow chunk on OST ${slowChunk}: read ${stats.bytesReadPerOst[slowChunk]} of its ${slowShare} bytes`,
        stats.osts,
        stats.degradedReads,
      );
      expect(stats.osts.slowVerdicts).toBeGreaterThan(0);
      // Its first answers made it slow; almost every later unit of it was rebuilt.
      expect(stats.bytesReadPerOst[slowChunk] ?? 0).toBeLessThan(slowShare / 4);
      expect(stats.degradedReads).toBeGreaterThan(units / 8);
      await client.close();
    });
  });

  it('a stopped OSS (SIGSTOP: no answers, no heartbeats): reads in flight to it fail over once the map marks it down', async () => {
    const chunks = await ecChunkOsts();
    const stopped = cluster.oss[cluster.ossIndexOfOst(chunks[0] as number)];
    // A request timeout longer than the test's: only the map's verdict can free these reads.
    const client = await StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      limits: { cacheBytesMax: 0, requestTimeoutMs: 120_000 },
    });
    // A replicated:3 file over every OST, written while the OSS is stopped: its copies there
    // are given up (in flight) or skipped (once the map says down), its flush does not wait for
    // them, and the two other copies of each object (min_size 2) make the write.
    const wide = seededBytes(12 * 4 * S + 9, SEED + 5);
    stopped?.child.kill('SIGSTOP');
    try {
      const [ecBack, repBack] = await Promise.all([
        client.readFile('/d/ec'),
        client.readFile('/d/rep'),
        client.writeFile('/d/while-stopped', wide, { layout: { ...REP3, stripeCount: 12 } }),
      ]);
      expect(ecBack.equals(ec)).toBe(true);
      expect(repBack.equals(rep)).toBe(true);
      const stats = client.stats();
      console.log('stopped OSS:', stats.ostDownAborts, 'requests given up', stats.osts);
      expect(stats.ostDownAborts).toBeGreaterThan(0);
      expect(stats.osts.suspect).toContain(chunks[0]);
      expect(stats.osts.down).toContain(chunks[0]);
      expect(stats.degradedReads).toBeGreaterThan(0);
      const copies = (await writer.getLayout('/d/while-stopped')).objects.flatMap((o) => o.osts);
      expect(copies).toContain(chunks[0]);
      expect((await client.readFile('/d/while-stopped')).equals(wide)).toBe(true);
    } finally {
      stopped?.child.kill('SIGCONT');
      await client.close();
    }
    await waitForOsts(cluster.mdsAddress, 12);
    // Back up, it is repaired from the other copies (a write it missed is reported to the MDS).
    const fresh = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    expect((await fresh.readFile('/d/while-stopped')).equals(wide)).toBe(true);
    await fresh.close();
  });

  it('killed OSSs: replicated and ec stay readable with m down; beyond that the error names the objects', async () => {
    const chunks = await ecChunkOsts();
    const first = cluster.ossIndexOfOst(chunks[0] as number);
    const second = cluster.ossIndexOfOst(chunks[1] as number);
    const client = await reader();
    // A larger ec file, streamed healthy first: its request count is the baseline below.
    const big = seededBytes(8 * MiB + 7, SEED + 3);
    await writer.writeFile('/d/ec-big', big, { layout: EC42 });
    const stream = async (): Promise<StripeClient> => {
      const streaming = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
      const pieces: Buffer[] = [];
      for await (const piece of streaming.createReadStream('/d/ec-big', { highWaterMark: 64 * 1024 }))
        pieces.push(piece as Buffer);
      expect(Buffer.concat(pieces).equals(big)).toBe(true);
      return streaming;
    };
    const healthy = await stream();
    const healthyRequests = healthy.stats().requests.bulk;
    await healthy.close();
    await cluster.oss[first]?.kill();
    // At once, before the MDS has noticed: refused connections fail over just the same.
    expect((await client.readFile('/d/rep')).equals(rep)).toBe(true);
    expect((await client.readFile('/d/ec')).equals(ec)).toBe(true);
    await waitForOsts(cluster.mdsAddress, 12, 10);
    // One chunk lost, a caching reader streaming: the lost chunk's readahead runs are rebuilt
    // from the sibling runs and one parity run, not block by block (one request per block).
    const degraded = await stream();
    const blocks = Math.ceil(big.length / S);
    expect(degraded.stats().degradedReads).toBeGreaterThanOrEqual(Math.floor(blocks / 4));
    expect(healthyRequests).toBeLessThan(blocks / 2);
    expect(degraded.stats().requests.bulk).toBeLessThan(healthyRequests * 1.5);
    await degraded.close();
    await cluster.oss[second]?.kill();
    await waitForOsts(cluster.mdsAddress, 12, 8);
    expect((await client.readFile('/d/rep')).equals(rep)).toBe(true);
    expect((await client.readFile('/d/ec')).equals(ec)).toBe(true);
    expect(client.stats().degradedReads).toBeGreaterThan(0);
    // A caching reader streaming the file: rebuilds use the data chunks it is reading anyway.
    const caching = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    const pieces: Buffer[] = [];
    for await (const piece of caching.createReadStream('/d/ec', { highWaterMark: 64 * 1024 }))
      pieces.push(piece as Buffer);
    expect(Buffer.concat(pieces).equals(ec)).toBe(true);
    expect(caching.stats().degradedReads).toBeGreaterThan(0);
    await caching.close();
    // A third chunk's OSS: only k-1 chunks are left.
    const third = cluster.ossIndexOfOst(chunks[2] as number);
    await cluster.oss[third]?.kill();
    const err = await client.readFile('/d/ec').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'IO_DEGRADED' });
    const details = (err as { details: { objects: string[] } }).details;
    expect(details.objects.length).toBe(6);
    expect(details.objects[0]).toMatch(/^\d+\.0\.c0$/);
    await client.close();
  });
});
