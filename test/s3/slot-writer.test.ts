// Parts written into their slots of a multipart upload's data file through
// the upload's slot writer (s3/store/slot-writer.ts): buffers queued together
// go as one range, so each object of a replicated:3 file over 6 objects gets
// one request per copy for three 8 MiB parts (18 writes, each durable) where
// each part written through its own handle sends 18 (54 for the three).
// Counted from the OSSs' metrics and durability counters, on a real cluster;
// the bytes read back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { slotWriterCounters, writeToSlot } from '../../s3/store/slot-writer.js';
import { adminFetch } from '../helpers/admin-http.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';

const MiB = 1024 * 1024;
const PART = 8 * MiB;
const SEED = seedFromEnv();
console.log(`s3 slot writer seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const LAYOUT = {
  pattern: 'replicated' as const,
  stripeSize: MiB,
  stripeCount: 6,
  replicas: 3,
  failureDomain: 'host' as const,
};

describe('S3 gateway: parts written into their slots in batches', () => {
  let cluster: Cluster;
  let client: StripeClient;
  beforeAll(async () => {
    cluster = await startCluster();
    client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 1 });
    await client.mkdir('/up', { recursive: true });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  /** Sync writes and flushes of object files so far, every OST of every OSS. */
  async function durableRequests(): Promise<number> {
    let n = 0;
    for (const spec of cluster.specs) {
      const osts = (await (await adminFetch(`${cluster.adminUrlOf(spec.id)}/api/osts`)).json()) as {
        syncs: { fileRequests: number };
      }[];
      for (const o of osts) n += o.syncs.fileRequests;
    }
    return n;
  }

  /** Write requests the OSTs served so far (every copy's), from each OSS's metrics. */
  async function writeRequests(): Promise<number> {
    let n = 0;
    for (const spec of cluster.specs) {
      const text = await (await adminFetch(`${cluster.adminUrlOf(spec.id)}/metrics`)).text();
      for (const m of text.matchAll(/^stripefs_oss_ops_total\{[^}]*\bop="write"[^}]*\} (\d+)$/gm))
        n += Number(m[1]);
    }
    return n;
  }

  async function upload(name: string): Promise<string> {
    const dir = `/up/${name}`;
    await client.mkdir(dir);
    await (await client.open(`${dir}/data`, 'wx', { layout: LAYOUT })).close();
    return dir;
  }

  it('three neighbouring parts queued together: one range, one request per object copy (18, not 54)', async () => {
    const parts = [1, 2, 3].map((i) => seededBytes(PART, SEED + i));
    const dir = await upload('together');
    const counted = { ...slotWriterCounters };
    const before = await durableRequests();
    const writesBefore = await writeRequests();
    // Queued in one turn of the event loop, last part first: one batch.
    await Promise.all([2, 1, 0].map((i) => writeToSlot(client, dir, parts[i] as Buffer, i * PART)));
    expect(await writeRequests()).toBe(writesBefore + 18);
    expect(await durableRequests()).toBe(before + 18);
    expect(slotWriterCounters.batches - counted.batches).toBe(1);
    expect(slotWriterCounters.ranges - counted.ranges).toBe(1);
    expect(slotWriterCounters.buffers - counted.buffers).toBe(3);
    await client.growTo(`${dir}/data`, 3 * PART);
    expect((await client.readFile(`${dir}/data`)).equals(Buffer.concat(parts))).toBe(true);
  });

  it('the same parts each through a handle of its own send 54', async () => {
    const parts = [1, 2, 3].map((i) => seededBytes(PART, SEED + 10 + i));
    const dir = await upload('apart');
    const before = await durableRequests();
    const writesBefore = await writeRequests();
    await Promise.all(
      parts.map(async (part, i) => {
        const handle = await client.open(`${dir}/data`, 'r+', { growOnly: true, deferSize: true });
        await handle.writeLent(part, i * PART, { final: true });
        await handle.close();
      }),
    );
    expect(await writeRequests()).toBe(writesBefore + 54);
    expect(await durableRequests()).toBe(before + 54);
  });

  it('a gap cuts a batch into ranges; buffers queued while a batch is written go in the next', async () => {
    const parts = [1, 2, 3, 4].map((i) => seededBytes(PART, SEED + 20 + i));
    const dir = await upload('gapped');
    const counted = { ...slotWriterCounters };
    const first = Promise.all([0, 2].map((i) => writeToSlot(client, dir, parts[i] as Buffer, i * PART)));
    // Queued once the first batch is under way: the next batch.
    await new Promise((resolve) => setImmediate(resolve));
    const second = Promise.all([1, 3].map((i) => writeToSlot(client, dir, parts[i] as Buffer, i * PART)));
    await Promise.all([first, second]);
    expect(slotWriterCounters.batches - counted.batches).toBe(2);
    expect(slotWriterCounters.ranges - counted.ranges).toBe(4);
    await client.growTo(`${dir}/data`, 4 * PART);
    expect((await client.readFile(`${dir}/data`)).equals(Buffer.concat(parts))).toBe(true);
  });

  it('a failed batch fails every part in it', async () => {
    const dir = await upload('failing');
    await client.unlink(`${dir}/data`);
    const written = [0, 1].map((i) => writeToSlot(client, dir, Buffer.alloc(MiB, i), i * MiB));
    for (const w of written) await expect(w).rejects.toMatchObject({ code: 'NS_NOT_FOUND' });
  });
});
