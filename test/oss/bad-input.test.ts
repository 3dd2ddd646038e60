// Bad input and fault knobs: every case gets its code and the OSS stays up.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BulkClient } from '../../common/bulk/client.js';
import { call } from '../../common/grpc.js';
import { LIMITS } from '../../common/limits.js';
import { adminFetch } from '../helpers/admin-http.js';
import { codeOf } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { type FakeMds, startFakeMds } from './fake-mds.js';
import { crc32c, grpcWrite, type OssUnderTest, ref, startOss, tempDir } from './helpers.js';

const CAPACITY_BYTES = 8 * 1024 * 1024;

async function setOstFaults(oss: OssUnderTest, ostId: number, body: unknown): Promise<Response> {
  return adminFetch(`${oss.adminUrl}/api/osts/${ostId}/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

describe('OSS bad input and faults', () => {
  let mds: FakeMds;
  let oss: OssUnderTest;
  const tmp = tempDir('stripefs-oss-bad-');
  const small = Buffer.from('data');

  beforeAll(async () => {
    mds = await startFakeMds();
    oss = await startOss(mds, tmp.dir, { STRIPEFS_OSS_OST_CAPACITY_BYTES: String(CAPACITY_BYTES) });
  });
  afterAll(async () => {
    await oss?.stop();
    await mds?.close();
    tmp.remove();
  });

  it('object ids that could escape the folder or are malformed: OBJ_INVALID_ID', async () => {
    for (const id of ['../x', 'a/b', '..', '', 'x'.repeat(LIMITS.objectIdLengthMax + 1), 'sp ace', 'a\\b']) {
      const r = ref(oss.ostIds[0]!, id);
      expect(await codeOf(oss.bulk.write(r, 0, small, crc32c(small))), id).toBe('OBJ_INVALID_ID');
      expect(await codeOf(call(oss.grpc, 'StatObject', { ref: r })), id).toBe('OBJ_INVALID_ID');
    }
  });

  it('offsets and lengths out of range: OBJ_RANGE', async () => {
    const r = ref(oss.ostIds[0]!, 'range.0');
    const far = await codeOf(oss.bulk.write(r, LIMITS.objectBytesMax, small, crc32c(small)));
    expect(far).toBe('OBJ_RANGE');
    await oss.bulk.write(r, 0, small, crc32c(small));
    expect(await codeOf(oss.bulk.read(r, 100, 1))).toBe('OBJ_RANGE');
    expect((await oss.bulk.read(r, 2, 100)).toString()).toBe('ta');
  });

  it('unknown OST ids: MAP_UNKNOWN_OST; oversized gRPC messages: REQ_TOO_LARGE', async () => {
    expect(await codeOf(oss.bulk.read(ref(99, 'x'), 0, 1))).toBe('MAP_UNKNOWN_OST');
    const huge = Buffer.alloc(LIMITS.grpcMessageBytesMax + 1);
    const err = await codeOf(
      grpcWrite(oss.grpc, ref(oss.ostIds[0]!, 'huge'), 0, huge, {
        pieceBytes: huge.length,
      }),
    );
    expect(err).toBe('REQ_TOO_LARGE');
  });

  it('MarkStale: marked copies answer reads with OBJ_STALE until deleted; bad ids and lists are refused', async () => {
    const ostId = oss.ostIds[0]!;
    const r = ref(ostId, 'stale.0');
    await oss.bulk.write(r, 0, small, crc32c(small));
    expect(await call(oss.grpc, 'MarkStale', { ostId, objectIds: ['stale.0'] })).toMatchObject({ marked: 1 });
    expect(await codeOf(oss.bulk.read(r, 0, small.length))).toBe('OBJ_STALE');
    // The copy itself is untouched: stat still answers, and once deleted and rewritten it reads again.
    expect(Number((await call(oss.grpc, 'StatObject', { ref: r })).size)).toBe(small.length);
    await call(oss.grpc, 'DeleteObject', { ref: r });
    await oss.bulk.write(r, 0, small, crc32c(small));
    expect((await oss.bulk.read(r, 0, small.length)).equals(small)).toBe(true);
    const bad = (objectIds: string[], id = ostId) =>
      codeOf(call(oss.grpc, 'MarkStale', { ostId: id, objectIds }));
    expect(await bad(['../x'])).toBe('OBJ_INVALID_ID');
    expect(await bad(['x'], 99)).toBe('MAP_UNKNOWN_OST');
    expect(await bad(Array.from({ length: 10_001 }, (_, i) => `o.${i}`))).toBe('REQ_TOO_LARGE');
  });

  it('a full OST answers OBJ_NO_SPACE and leaves no partial object', async () => {
    const ostId = oss.ostIds[1]!;
    const six = Buffer.alloc(6 * 1024 * 1024, 1);
    await oss.bulk.write(ref(ostId, 'fill.0'), 0, six, crc32c(six));
    const four = Buffer.alloc(4 * 1024 * 1024, 2);
    const err = await codeOf(oss.bulk.write(ref(ostId, 'fill.1'), 0, four, crc32c(four)));
    expect(err).toBe('OBJ_NO_SPACE');
    expect(await codeOf(call(oss.grpc, 'StatObject', { ref: ref(ostId, 'fill.1') }))).toBe('OBJ_NOT_FOUND');
    const files = readdirSync(join(tmp.dir, 'ost1', 'objects'), { recursive: true }).map(String);
    expect(files.some((f) => f.endsWith('fill.1'))).toBe(false);
  });

  it('an old map epoch for a PG this OST does not serve: MAP_STALE, for a read too unless the reader knows the PG left', async () => {
    const [ost0, ost1] = oss.ostIds as [number, number];
    await oss.bulk.write(ref(ost1, 'moving.0'), 0, small, crc32c(small));
    mds.publish([ost0]);
    await eventually(
      async () =>
        ((await (await adminFetch(`${oss.adminUrl}/healthz`)).json()) as { mapEpoch: number }).mapEpoch ===
        mds.epoch(),
      { timeoutMs: 30_000, what: `the OSS to learn map epoch ${mds.epoch()}` },
    );
    const stale = await codeOf(oss.bulk.write(ref(ost1, 'new.0', { mapEpoch: 0 }), 0, small, crc32c(small)));
    expect(stale).toBe('MAP_STALE');
    // The copy is here, but a reader on a map from before its PG left may miss writes made since
    // (oss/map-view.ts): refused, so it refreshes its map; a reader on the current map reads it.
    expect(await codeOf(oss.bulk.read(ref(ost1, 'moving.0', { mapEpoch: 0 }), 0, 4))).toBe('MAP_STALE');
    expect((await oss.bulk.read(ref(ost1, 'moving.0', { mapEpoch: mds.epoch() }), 0, 4)).toString()).toBe(
      'data',
    );
    await oss.bulk.write(ref(ost0, 'new.0', { mapEpoch: 0 }), 0, small, crc32c(small));
    await oss.bulk.write(ref(ost1, 'new.1', { mapEpoch: mds.epoch() }), 0, small, crc32c(small));
  });

  it('fault knobs: failure rate, latency, hang until cleared, and validation', async () => {
    const ostId = oss.ostIds[0]!;
    const r = ref(ostId, 'faulty.0');
    await oss.bulk.write(r, 0, small, crc32c(small));
    expect((await setOstFaults(oss, ostId, { writeFailRate: 1, seed: 3 })).status).toBe(200);
    expect(await codeOf(oss.bulk.write(r, 0, small, crc32c(small)))).toBe('FAULT_INJECTED');
    await setOstFaults(oss, ostId, { writeFailRate: 0, latencyMs: 200 });
    const started = performance.now();
    await oss.bulk.read(r, 0, 4);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    await adminFetch(`${oss.adminUrl}/api/osts/${ostId}/faults`, { method: 'DELETE' });
    await setOstFaults(oss, ostId, { hang: true });
    const impatient = new BulkClient(oss.bulk.address, { timeoutMs: 300 });
    expect(await codeOf(impatient.read(r, 0, 4))).toBe('REQ_TIMEOUT');
    impatient.close();
    await adminFetch(`${oss.adminUrl}/api/osts/${ostId}/faults`, { method: 'DELETE' });
    expect((await oss.bulk.read(r, 0, 4)).toString()).toBe('data');
    const bad = await setOstFaults(oss, ostId, { latencyMs: -1 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { code: string }).code).toBe('REQ_INVALID');
    expect((await setOstFaults(oss, ostId, { nope: 1 })).status).toBe(400);
    expect((await setOstFaults(oss, 77, { hang: true })).status).toBe(404);
    const osts = (await (await adminFetch(`${oss.adminUrl}/api/osts`)).json()) as {
      id: number;
      faults: object;
    }[];
    expect(osts.map((o) => o.id)).toEqual(oss.ostIds);
  });
});
