// writeLent: a handle writes the caller's buffer without copying it (raid0,
// replicated; ec whole stripes, their parity encoded into a buffer of its
// own), holds it until `released` settles, and a per-handle writeBehindBytesMax
// bounds what it has in flight. Writers share the client's write buffers.
// Checked byte for byte through a real cluster.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';

const SEED = seedFromEnv();
console.log(`lent writes seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const LAYOUTS: Record<string, Layout> = {
  raid0: { pattern: 'raid0', stripeSize: S, stripeCount: 3 },
  rep2: { pattern: 'replicated', stripeSize: S, stripeCount: 2, replicas: 2, failureDomain: 'host' },
  ec42: { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' },
};

describe('lent writes on a real cluster', () => {
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    cluster = await startCluster();
    client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  for (const [name, layout] of Object.entries(LAYOUTS)) {
    it(`${name}: whole units lent one after another, then a short tail, read back identical`, async () => {
      const unit = layout.pattern === 'ec' ? 4 * S : S;
      const data = seededBytes(20 * unit + 1234, SEED);
      const handle = await client.open(`/lent-${name}`, 'w', { layout, writeBehindBytesMax: 2 * 6 * S });
      const releases: Promise<void>[] = [];
      for (let at = 0; at < data.length; at += unit) {
        // A copy the handle may keep until released: then it is overwritten, which must not reach the file.
        const lent = Buffer.from(data.subarray(at, Math.min(data.length, at + unit)));
        const { released } = await handle.writeLent(lent, at);
        releases.push(released.then(() => void lent.fill(0xee)));
      }
      await handle.close();
      await Promise.all(releases);
      expect(handle.size).toBe(data.length);
      expect((await client.readFile(`/lent-${name}`)).equals(data)).toBe(true);
    });
  }

  it('a lent write after buffered writes sends those first, and overwrites in place (raid0)', async () => {
    const layout = LAYOUTS.raid0 as Layout;
    const data = seededBytes(5 * S, SEED + 1);
    const handle = await client.open('/lent-mixed', 'w', { layout });
    await handle.write(data, 0, 100, 0);
    await handle.write(data, 100, S - 100, 100);
    const { released } = await handle.writeLent(data.subarray(S), S);
    const patch = Buffer.from('patched');
    await (await handle.writeLent(patch, 10)).released;
    await handle.close();
    await released;
    const expected = Buffer.from(data);
    patch.copy(expected, 10);
    expect((await client.readFile('/lent-mixed')).equals(expected)).toBe(true);
  });

  it('ec: lent whole stripes are sent as they are; only parity buffers are made', async () => {
    const fresh = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    try {
      const data = seededBytes(12 * 4 * S, SEED + 2);
      const handle = await fresh.open('/lent-ec-parity', 'w', {
        layout: LAYOUTS.ec42 as Layout,
        writeBehindBytesMax: 3 * 6 * S,
      });
      const { released } = await handle.writeLent(data, 0);
      await handle.close();
      await released;
      const { allocated, idleBytes } = fresh.stats().writeBuffers;
      // Parity of 2 chunks per stripe, a few stripes in flight; a copied stripe takes 6 chunks.
      expect(allocated).toBeGreaterThan(0);
      expect(allocated).toBeLessThanOrEqual(3);
      expect(idleBytes).toBe(allocated * 2 * S);
      expect((await fresh.readFile('/lent-ec-parity')).equals(data)).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it("writers of many files share the client's write buffers instead of making their own", async () => {
    const fresh = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    try {
      const layout = LAYOUTS.rep2 as Layout;
      const files = 20;
      for (let i = 0; i < files; i++) {
        const data = seededBytes(4 * S, SEED + 10 + i);
        const handle = await fresh.open(`/shared-buffers-${i}`, 'w', { layout });
        // Copied writes (write, not writeLent) in pieces smaller than a unit.
        for (let at = 0; at < data.length; at += S / 4) await handle.write(data, at, S / 4, at);
        await handle.close();
        expect((await fresh.readFile(`/shared-buffers-${i}`)).equals(data)).toBe(true);
      }
      // At most the units of one file in flight at once; a pool per file made 4 per file (80).
      expect(fresh.stats().writeBuffers.allocated).toBeLessThanOrEqual(4);
    } finally {
      await fresh.close();
    }
  });

  it('refuses a write-behind bound below one byte with REQ_INVALID', async () => {
    await expect(client.open('/lent-bad', 'w', { writeBehindBytesMax: 0 })).rejects.toBeInstanceOf(
      StripeError,
    );
    await expect(client.open('/lent-bad', 'w', { writeBehindBytesMax: 0 })).rejects.toMatchObject({
      code: 'REQ_INVALID',
    });
  });
});

describe('write runs on a real cluster', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('units back to back in one object go as one request of up to 4 MiB, lent or copied', async () => {
    const MiB = 1024 * 1024;
    const layout: Layout = { pattern: 'raid0', stripeSize: MiB, stripeCount: 6 };
    const client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    try {
      // 24 MiB over 6 objects: each object holds 4 units back to back, one request each.
      const data = seededBytes(24 * MiB, SEED + 20);
      const before = client.stats().requests.bulk;
      await client.writeFile('/runs-lent', data, { layout });
      expect(client.stats().requests.bulk - before).toBe(6);
      const afterLent = client.stats().requests.bulk;
      const copied = await client.open('/runs-copied', 'w', { layout });
      for (let at = 0; at < data.length; at += 256 * 1024) await copied.write(data, at, 256 * 1024, at);
      await copied.close();
      expect(client.stats().requests.bulk - afterLent).toBe(6);
      // A tail that ends inside a unit joins its object's held run: 21 MiB + 5 is 3 runs of 4 units
      // and 3 of 3 units, the tail in one of them.
      const longer = seededBytes(21 * MiB + 5, SEED + 21);
      const tail = await client.open('/runs-tail', 'w', { layout });
      const beforeTail = client.stats().requests.bulk;
      for (let at = 0; at < longer.length; at += MiB)
        await tail.write(longer, at, Math.min(MiB, longer.length - at), at);
      await tail.close();
      expect(client.stats().requests.bulk - beforeTail).toBe(6);
      for (const [path, bytes] of [
        ['/runs-lent', data],
        ['/runs-copied', data],
        ['/runs-tail', longer],
      ] as const)
        expect((await client.readFile(path)).equals(bytes), path).toBe(true);
    } finally {
      await client.close();
    }
  });
});
