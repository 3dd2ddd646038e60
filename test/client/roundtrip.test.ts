// Byte-exact round trips through a real cluster (1 MDS, 6 OSSs on loopback)
// for every layout, random-range reads against a local copy, overwrites,
// concurrent readers and writers, readahead counts, degraded reads.
// Skipped until dist/mds/main.js and dist/oss/main.js exist (npm run build).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { seededRandom, seedFromEnv } from '../../common/random.js';
import { type Cluster, clusterAvailable, startCluster, waitForOsts } from './cluster.js';

const SEED = seedFromEnv();
console.log(`client roundtrip seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024; // small stripes: many units per MiB, exercises the math
const MiB = 1 << 20;
const LAYOUTS: Record<string, Layout> = {
  raid0x1: { pattern: 'raid0', stripeSize: S, stripeCount: 1 },
  raid0x4: { pattern: 'raid0', stripeSize: S, stripeCount: 4 },
  rep3: { pattern: 'replicated', stripeSize: S, stripeCount: 2, replicas: 3, failureDomain: 'host' },
  ec42: { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' },
};

function bytes(n: number, seed: number): Buffer {
  const random = seededRandom(seed);
  const out = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i += 4)
    out.writeUInt32LE((random.next() * 2 ** 32) >>> 0, Math.min(i, Math.max(0, n - 4)));
  return out;
}

describe.skipIf(!clusterAvailable())('client on a real cluster', () => {
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    cluster = await startCluster();
    client = await StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      limits: { cacheBytesMax: 32 * MiB },
    });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  for (const [name, layout] of Object.entries(LAYOUTS)) {
    it(`${name}: byte-exact round trips at 0, 1, S-1, S+1, k*S+1 and 8 MiB; random ranges`, async () => {
      await client.mkdir(`/${name}`, { recursive: true });
      const sizes = [0, 1, S - 1, S + 1, 4 * S + 1, 8 * MiB];
      for (const size of sizes) {
        const data = bytes(size, SEED + size);
        const path = `/${name}/f${size}`;
        await client.writeFile(path, data, { layout });
        expect((await client.stat(path)).size).toBe(size);
        expect((await client.readFile(path)).equals(data)).toBe(true);
      }
      const big = bytes(8 * MiB, SEED + 8 * MiB);
      const handle = await client.open(`/${name}/f${8 * MiB}`, 'r');
      const random = seededRandom(SEED);
      for (let i = 0; i < 30; i++) {
        const at = random.int(big.length);
        const length = Math.min(big.length - at, 1 + random.int(3 * S));
        const out = Buffer.alloc(length);
        const { bytesRead } = await handle.read(out, 0, length, at);
        expect(bytesRead).toBe(length);
        expect(out.equals(big.subarray(at, at + length))).toBe(true);
      }
      await handle.close();
      const report = await client.getLayout(`/${name}/f${8 * MiB}`);
      expect(report.layout).toEqual(layout);
      expect(report.objects.length).toBe(layout.pattern === 'ec' ? 6 : (layout.stripeCount as number));
    });
  }

  it('raid0 and replicated support overwrites; ec refuses them', async () => {
    for (const name of ['raid0x4', 'rep3'] as const) {
      const path = `/${name}/over`;
      const local = bytes(3 * S + 17, SEED + 1);
      await client.writeFile(path, local, { layout: LAYOUTS[name] as Layout });
      const handle = await client.open(path, 'r+');
      const patch = bytes(S + 3, SEED + 2);
      await handle.write(patch, 0, patch.length, S - 5);
      patch.copy(local, S - 5);
      await handle.close();
      expect((await client.readFile(path)).equals(local)).toBe(true);
    }
    const ec = await client.open('/ec42/f1', 'r+');
    await expect(ec.write(Buffer.from('x'), 0, 1, 0)).rejects.toMatchObject({ code: 'LAYOUT_READ_ONLY' });
    await ec.close();
  });

  it('a 4 KiB write loop is aggregated, and streams round-trip with backpressure', async () => {
    const data = bytes(2 * MiB, SEED + 3);
    const handle = await client.open('/raid0x4/loop', 'w', { layout: LAYOUTS.raid0x4 as Layout });
    const before = client.stats().latency.writeChunk?.count ?? 0;
    for (let at = 0; at < data.length; at += 4096) await handle.write(data, at, 4096, at);
    await handle.close();
    const chunkWrites = (client.stats().latency.writeChunk?.count ?? 0) - before;
    expect(chunkWrites).toBe(data.length / S);
    const { pipeline } = await import('node:stream/promises');
    const { Readable } = await import('node:stream');
    await pipeline(
      Readable.from([data.subarray(0, MiB), data.subarray(MiB)]),
      client.createWriteStream('/ec42/stream', { layout: LAYOUTS.ec42 as Layout }),
    );
    const pieces: Buffer[] = [];
    for await (const piece of client.createReadStream('/ec42/stream')) pieces.push(piece as Buffer);
    expect(Buffer.concat(pieces).equals(data)).toBe(true);
  });

  it('a sequential scan hits readahead; concurrent readers and writers on different files', async () => {
    const before = client.stats().readahead.hitBytes;
    const handle = await client.open(`/raid0x4/f${8 * MiB}`, 'r');
    const out = Buffer.alloc(64 * 1024);
    for (let at = 0; at < 8 * MiB; at += out.length) await handle.read(out, 0, out.length, at);
    await handle.close();
    expect(client.stats().readahead.hitBytes - before).toBeGreaterThan(4 * MiB);
    const files = [0, 1, 2, 3].map((i) => ({
      path: `/rep3/c${i}`,
      data: bytes(MiB + i * 1000, SEED + 10 + i),
    }));
    await Promise.all(files.map((f) => client.writeFile(f.path, f.data, { layout: LAYOUTS.rep3 as Layout })));
    const back = await Promise.all(files.map((f) => client.readFile(f.path)));
    expect(back.map((b, i) => b.equals((files[i] as { data: Buffer }).data))).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });

  it('reads stay correct with one OSS down (replicated and ec) and say which objects when they cannot', async () => {
    const rep = bytes(2 * MiB, SEED + 20);
    const ec = bytes(2 * MiB + 5, SEED + 21);
    await client.writeFile('/rep3/degraded', rep, { layout: LAYOUTS.rep3 as Layout });
    await client.writeFile('/ec42/degraded', ec, { layout: LAYOUTS.ec42 as Layout });
    const reader = await StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      limits: { cacheBytesMax: 0 },
    });
    await (cluster.oss[0] as { kill(): Promise<void> }).kill();
    await waitForOsts(cluster.mdsAddress, 12, 10);
    expect((await reader.readFile('/rep3/degraded')).equals(rep)).toBe(true);
    expect((await reader.readFile('/ec42/degraded')).equals(ec)).toBe(true);
    expect(reader.stats().degradedReads).toBeGreaterThan(0);
    await reader.close();
  });
});
