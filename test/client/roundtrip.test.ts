// Byte-exact round trips through a real cluster (1 MDS, 6 OSSs on loopback)
// for every layout: sizes around the stripe and stripe-width boundaries and a
// large file, random-range reads against the local copy, overwrites (raid0,
// replicated) and the ec write-once rule, write aggregation and streams.
// Skipped until dist/mds/main.js and dist/oss/main.js exist (npm run build).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { seededRandom, seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';

const SEED = seedFromEnv();
console.log(`client roundtrip seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024; // small stripes: many units per MiB, exercises the math
const MiB = 1 << 20;
/** The large file of every layout (see docs/ARCHITECTURE.md, client section, for why this size). */
const LARGE_BYTES = Number(process.env.STRIPEFS_CLIENT_LARGE_MIB ?? 64) * MiB;
const LAYOUTS: Record<string, Layout> = {
  raid0x1: { pattern: 'raid0', stripeSize: S, stripeCount: 1 },
  raid0x4: { pattern: 'raid0', stripeSize: S, stripeCount: 4 },
  rep3: { pattern: 'replicated', stripeSize: S, stripeCount: 2, replicas: 3, failureDomain: 'host' },
  ec42: { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' },
};

/** Data units in one full stripe: stripe count for raid0/replicated, k for ec. */
function width(layout: Layout): number {
  return layout.pattern === 'ec' ? (layout.k as number) : (layout.stripeCount as number);
}

describe('client on a real cluster', () => {
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
    it(`${name}: byte-exact round trips at 0, 1, S-1, S+1, k*S-1, k*S+1 and 4 MiB; random ranges`, async () => {
      await client.mkdir(`/${name}`, { recursive: true });
      const k = width(layout);
      const sizes = [0, 1, S - 1, S, S + 1, k * S - 1, k * S + 1, 4 * MiB + 3];
      for (const size of sizes) {
        const data = seededBytes(size, SEED + size);
        const path = `/${name}/f${size}`;
        await client.writeFile(path, data, { layout });
        expect((await client.stat(path)).size).toBe(size);
        expect((await client.readFile(path)).equals(data), `${path} reads back`).toBe(true);
      }
      const size = 4 * MiB + 3;
      const local = seededBytes(size, SEED + size);
      const handle = await client.open(`/${name}/f${size}`, 'r');
      const random = seededRandom(SEED);
      for (let i = 0; i < 40; i++) {
        const at = random.int(local.length);
        const length = Math.min(local.length - at, 1 + random.int(3 * k * S));
        const out = Buffer.alloc(length);
        const { bytesRead } = await handle.read(out, 0, length, at);
        expect(bytesRead).toBe(length);
        expect(out.equals(local.subarray(at, at + length)), `range ${at}+${length}`).toBe(true);
      }
      // Past the end: short, then nothing.
      const tail = Buffer.alloc(10);
      expect((await handle.read(tail, 0, 10, size - 4)).bytesRead).toBe(4);
      expect((await handle.read(tail, 0, 10, size + 100)).bytesRead).toBe(0);
      await handle.close();
      const report = await client.getLayout(`/${name}/f${size}`);
      expect(report.layout).toEqual(layout);
      expect(report.objects.length).toBe(layout.pattern === 'ec' ? 6 : (layout.stripeCount as number));
      expect(client.stats().requests.grpc).toBe(0);
    });

    it(`${name}: a ${LARGE_BYTES / MiB} MiB file round-trips through streams and random reads`, async () => {
      await client.mkdir(`/${name}`, { recursive: true });
      const path = `/${name}/large`;
      const local = seededBytes(LARGE_BYTES, SEED + 7);
      const { pipeline } = await import('node:stream/promises');
      const { Readable } = await import('node:stream');
      const pieces = function* (): Generator<Buffer> {
        for (let at = 0; at < local.length; at += 3 * MiB + 5) yield local.subarray(at, at + 3 * MiB + 5);
      };
      await pipeline(Readable.from(pieces()), client.createWriteStream(path, { layout }));
      expect((await client.stat(path)).size).toBe(LARGE_BYTES);
      let at = 0;
      // Kept until the random reads below have churned the (32 MiB) cache: a piece must
      // never share memory with a block the cache reuses.
      const streamed: Buffer[] = [];
      for await (const piece of client.createReadStream(path)) {
        const buf = piece as Buffer;
        expect(buf.equals(local.subarray(at, at + buf.length)), `stream at ${at}`).toBe(true);
        streamed.push(buf);
        at += buf.length;
      }
      expect(at).toBe(LARGE_BYTES);
      const handle = await client.open(path, 'r');
      const random = seededRandom(SEED + 1);
      for (let i = 0; i < 20; i++) {
        const from = random.int(LARGE_BYTES);
        const length = Math.min(LARGE_BYTES - from, 1 + random.int(2 * MiB));
        const out = Buffer.alloc(length);
        await handle.read(out, 0, length, from);
        expect(out.equals(local.subarray(from, from + length)), `range ${from}+${length}`).toBe(true);
      }
      await handle.close();
      expect(Buffer.concat(streamed).equals(local), 'streamed pieces kept after the cache moved on').toBe(
        true,
      );
      await client.unlink(path);
    }, 120_000);
  }

  it('raid0 and replicated support overwrites; ec refuses partial ones', async () => {
    for (const name of ['raid0x1', 'raid0x4', 'rep3'] as const) {
      await client.mkdir(`/${name}`, { recursive: true });
      const path = `/${name}/over`;
      const local = seededBytes(3 * S + 17, SEED + 1);
      await client.writeFile(path, local, { layout: LAYOUTS[name] as Layout });
      const handle = await client.open(path, 'r+');
      // Across a unit boundary, then past the end (the file grows), then a read through the same handle.
      const patch = seededBytes(S + 3, SEED + 2);
      await handle.write(patch, 0, patch.length, S - 5);
      patch.copy(local, S - 5);
      const grow = seededBytes(100, SEED + 3);
      await handle.write(grow, 0, grow.length, local.length - 10);
      const expected = Buffer.concat([local.subarray(0, local.length - 10), grow]);
      const back = Buffer.alloc(expected.length);
      await handle.read(back, 0, back.length, 0);
      expect(back.equals(expected), `${path} read-your-writes`).toBe(true);
      await handle.close();
      expect((await client.readFile(path)).equals(expected), `${path} after close`).toBe(true);
    }
    await client.mkdir('/ec42', { recursive: true });
    const data = seededBytes(S + 1, SEED + 4);
    await client.writeFile('/ec42/once', data, { layout: LAYOUTS.ec42 as Layout });
    // Not on a stripe boundary: refused at once. On one, but ending inside the file: refused at close.
    const ec = await client.open('/ec42/once', 'r+');
    await expect(ec.write(Buffer.from('x'), 0, 1, 1)).rejects.toMatchObject({ code: 'LAYOUT_READ_ONLY' });
    await ec.write(Buffer.from('x'), 0, 1, 0);
    await expect(ec.close()).rejects.toMatchObject({ code: 'LAYOUT_READ_ONLY' });
    expect((await client.readFile('/ec42/once')).equals(data), 'nothing of the refused write landed').toBe(
      true,
    );
    // Appending is allowed, and the partial last stripe is rewritten whole.
    const more = seededBytes(5 * S, SEED + 5);
    const appender = await client.open('/ec42/once', 'a');
    await appender.write(more);
    await appender.close();
    expect((await client.readFile('/ec42/once')).equals(Buffer.concat([data, more]))).toBe(true);
  });

  it('ec: whole stripes from stripe boundaries, written by several handles at once, in any order', async () => {
    await client.mkdir('/ec42', { recursive: true });
    const layout = LAYOUTS.ec42 as Layout;
    const stripe = 4 * S;
    // Six parts of two stripes each and a short last part, as an S3 multipart upload places them.
    const data = seededBytes(10 * stripe + 3 * S + 5, SEED + 6);
    const partBytes = 2 * stripe;
    const partCount = Math.ceil(data.length / partBytes);
    await (await client.open('/ec42/parts', 'w', { layout })).close();
    const handles = await Promise.all(
      Array.from({ length: partCount }, () => client.open('/ec42/parts', 'r+', { growOnly: true })),
    );
    await Promise.all(
      handles
        .map((handle, i) => {
          const piece = data.subarray(i * partBytes, Math.min(data.length, (i + 1) * partBytes));
          return () => handle.write(piece, 0, piece.length, i * partBytes);
        })
        .reverse()
        .map((write) => write()),
    );
    // Grow-only handles commit the end each wrote: the first part closing last leaves the size whole.
    for (const handle of [...handles].reverse()) await handle.close();
    expect((await client.readFile('/ec42/parts')).equals(data), 'stripes written out of order').toBe(true);
    // A whole stripe rewritten inside a file keeps the stripes around it.
    const patch = seededBytes(stripe, SEED + 7);
    await client.writeFile('/ec42/rewritten', data, { layout });
    const rewrite = await client.open('/ec42/rewritten', 'r+');
    await rewrite.write(patch, 0, patch.length, 3 * stripe);
    await rewrite.close();
    const expected = Buffer.from(data);
    patch.copy(expected, 3 * stripe);
    expect((await client.readFile('/ec42/rewritten')).equals(expected), 'a whole-stripe rewrite').toBe(true);
  });

  it('a 4 KiB write loop is aggregated, and streams round-trip with backpressure', async () => {
    await client.mkdir('/raid0x4', { recursive: true });
    await client.mkdir('/ec42', { recursive: true });
    const data = seededBytes(2 * MiB, SEED + 3);
    const handle = await client.open('/raid0x4/loop', 'w', { layout: LAYOUTS.raid0x4 as Layout });
    const before = client.stats().latency.writeChunk?.count ?? 0;
    for (let at = 0; at < data.length; at += 4096) await handle.write(data, at, 4096, at);
    await handle.close();
    const chunkWrites = (client.stats().latency.writeChunk?.count ?? 0) - before;
    // Into whole units, and the units of each of the 4 objects (512 KiB back to back in it) into one
    // write run: one request per object.
    expect(chunkWrites).toBe(4);
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
});
