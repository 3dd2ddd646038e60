// Write/read round trips against a real OSS process over both data paths:
// sizes around the checksum block, a 64 MiB chunk, random ranges, partial
// overwrites, gaps, truncate; stat, list, flush and delete.
import { describe, expect, it } from 'vitest';
import { call } from '../../common/grpc.js';
import { LIMITS } from '../../common/limits.js';
import { type Random, seededRandom, seedFromEnv } from '../../common/random.js';
import { eventually } from '../helpers/eventually.js';
import { crc32c, grpcRead, grpcWrite, ref, useOss } from './helpers.js';

const B = LIMITS.checksumBlockBytes;
const seed = seedFromEnv();
console.log(`roundtrip.test seed=${seed} (replay with STRIPEFS_SEED=${seed})`);

function randomBytes(random: Random, n: number): Buffer {
  const buf = Buffer.allocUnsafe(n);
  let i = 0;
  for (; i + 4 <= n; i += 4) buf.writeUInt32LE(random.int(0x1_0000_0000), i);
  for (; i < n; i++) buf[i] = random.int(256);
  return buf;
}

describe('OSS round trips', () => {
  const h = useOss('stripefs-oss-rt-');
  const random = seededRandom(seed);

  it('registers its OSTs and persists their ids', () => {
    expect(h.oss.ostIds).toEqual([0, 1]);
    expect(h.mds.registrations[0]?.osts.map((o) => o.name)).toEqual(['ost0', 'ost1']);
  });

  for (const size of [0, 1, B - 1, B, B + 1, 3 * B + 17]) {
    it(`bulk and gRPC round trip of ${size} bytes`, async () => {
      const data = randomBytes(random, size);
      const r = ref(h.oss.ostIds[0]!, `rt.${size}`);
      const w = await h.oss.bulk.write(r, 0, data, crc32c(data));
      expect(w).toEqual({ objectSize: size, version: 1, durable: false });
      expect((await h.oss.bulk.read(r, 0, size + 10)).equals(data)).toBe(true);
      // A sync write is made durable before the OSS answers, and says so.
      const synced = await h.oss.bulk.write(r, 0, data, crc32c(data), { sync: true, truncate: true });
      expect(synced).toEqual({ objectSize: size, version: 2, durable: true });
      const viaGrpc = await grpcRead(h.oss.grpc, r, 0, size);
      expect(viaGrpc.data.equals(data)).toBe(true);
      expect(viaGrpc.crcOk).toBe(true);
      const r2 = ref(h.oss.ostIds[1]!, `rt.grpc.${size}`);
      await grpcWrite(h.oss.grpc, r2, 0, data, { pieceBytes: 1000 });
      expect((await h.oss.bulk.read(r2, 0, size)).equals(data)).toBe(true);
    });
  }

  it('a 64 MiB chunk reads back over random ranges', async () => {
    const size = 64 * 1024 * 1024;
    const data = randomBytes(random, size);
    const r = ref(h.oss.ostIds[0]!, 'big.0');
    await h.oss.bulk.write(r, 0, data, crc32c(data));
    expect((await h.oss.bulk.read(r, 0, size)).equals(data)).toBe(true);
    for (let i = 0; i < 20; i++) {
      const offset = random.int(size);
      const length = random.int(Math.min(size - offset, 3 * 1024 * 1024) + 1);
      const got =
        i % 2 === 0
          ? await h.oss.bulk.read(r, offset, length)
          : (await grpcRead(h.oss.grpc, r, offset, length)).data;
      expect(got.equals(data.subarray(offset, offset + length)), `range ${offset}+${length}`).toBe(true);
    }
    const viaGrpc = await grpcWrite(h.oss.grpc, ref(h.oss.ostIds[1]!, 'big.grpc'), 0, data);
    expect(viaGrpc.objectSize).toBe(size);
  });

  it('partial overwrites, gaps and truncate keep every byte and checksum right', async () => {
    const r = ref(h.oss.ostIds[1]!, 'model.0');
    let model = Buffer.alloc(0);
    for (let step = 0; step < 40; step++) {
      const offset = random.int(6 * B);
      const length = random.int(2 * B + 3);
      const truncate = random.int(6) === 0;
      const data = randomBytes(random, length);
      const res =
        step % 2 === 0
          ? await h.oss.bulk.write(r, offset, data, crc32c(data), { truncate })
          : await grpcWrite(h.oss.grpc, r, offset, data, { truncate });
      const end = offset + length;
      const next = Buffer.alloc(truncate ? end : Math.max(model.length, end));
      model.copy(next, 0, 0, Math.min(model.length, next.length));
      data.copy(next, offset);
      model = next;
      expect(Number(res.objectSize), `step ${step}`).toBe(model.length);
      expect((await h.oss.bulk.read(r, 0, model.length)).equals(model), `step ${step}`).toBe(true);
    }
  });

  it('stat, list by PG, flush and delete', async () => {
    const ostId = h.oss.ostIds[0]!;
    const data = Buffer.from('hello');
    await h.oss.bulk.write(ref(ostId, 'pg.a', { pg: 5 }), 0, data, crc32c(data));
    await h.oss.bulk.write(ref(ostId, 'pg.b', { pg: 5 }), 0, data, crc32c(data));
    await h.oss.bulk.write(ref(ostId, 'pg.c', { pg: 6 }), 0, data, crc32c(data));
    const stat = await call(h.oss.grpc, 'StatObject', { ref: ref(ostId, 'pg.a') });
    expect(stat.size).toBe(5);
    expect(stat.version).toBe(1);
    const page1 = await call(h.oss.grpc, 'ListObjects', { ostId, poolId: 1, pg: 5, cursor: '', limit: 1 });
    expect(page1.objects.map((o) => o.objectId)).toEqual(['pg.a']);
    const page2 = await call(h.oss.grpc, 'ListObjects', {
      ostId,
      poolId: 1,
      pg: 5,
      cursor: page1.nextCursor,
      limit: 1,
    });
    expect(page2.objects.map((o) => o.objectId)).toEqual(['pg.b']);
    expect(page2.nextCursor).toBe('');
    await call(h.oss.grpc, 'Flush', { ref: ref(ostId, 'pg.a') });
    // A read keeps an open handle for a while (oss/store/read-handles.ts): the delete must drop it.
    expect((await h.oss.bulk.read(ref(ostId, 'pg.a'), 0, 5)).toString()).toBe('hello');
    expect((await call(h.oss.grpc, 'DeleteObject', { ref: ref(ostId, 'pg.a') })).existed).toBe(true);
    expect((await call(h.oss.grpc, 'DeleteObject', { ref: ref(ostId, 'pg.a') })).existed).toBe(false);
    const err = await h.oss.bulk.read(ref(ostId, 'pg.a'), 0, 5).catch((e: unknown) => e);
    expect((err as { code: string }).code).toBe('OBJ_NOT_FOUND');
    const again = Buffer.from('a new object under the old name');
    await h.oss.bulk.write(ref(ostId, 'pg.a', { pg: 5 }), 0, again, crc32c(again));
    expect((await h.oss.bulk.read(ref(ostId, 'pg.a'), 0, again.length)).equals(again)).toBe(true);
  });

  it('heartbeats carry usage per OST', async () => {
    // The objects written above reach the MDS with a later heartbeat.
    const last = await eventually(
      () => {
        const beat = h.mds.heartbeats[h.mds.heartbeats.length - 1];
        return beat?.osts.some((o) => o.objectCount > 0) ? beat : undefined;
      },
      { timeoutMs: 30_000, what: 'a heartbeat that counts the objects written' },
    );
    expect(last?.osts.length).toBe(2);
    expect(last?.osts[0]?.usedBytes).toBeGreaterThan(0);
    expect(last?.osts[0]?.objectCount).toBeGreaterThan(0);
  });
});
