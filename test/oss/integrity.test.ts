// Integrity: a byte flipped on disk is caught on read (never returned), a
// write whose declared crc does not match is rejected and leaves nothing,
// and the corrupt-read knob is caught by the client's end-to-end check.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../common/grpc.js';
import { LIMITS } from '../../common/limits.js';
import { fanoutOf } from '../../oss/object-id.js';
import { type FakeMds, startFakeMds } from './fake-mds.js';
import { crc32c, grpcRead, grpcWrite, type OssUnderTest, ref, startOss, tempDir } from './helpers.js';

const B = LIMITS.checksumBlockBytes;
const codeOf = (e: unknown): string => (e as { code?: string }).code ?? String(e);

describe('OSS integrity', () => {
  let mds: FakeMds;
  let oss: OssUnderTest;
  const tmp = tempDir('stripefs-oss-int-');

  beforeAll(async () => {
    mds = await startFakeMds();
    oss = await startOss(mds, tmp.dir);
  });
  afterAll(async () => {
    await oss?.stop();
    await mds?.close();
    tmp.remove();
  });

  it('a byte flipped in a data file on disk is detected on read and counted', async () => {
    const data = Buffer.alloc(3 * B, 0x5a);
    const r = ref(oss.ostIds[0]!, 'flip.0');
    await oss.bulk.write(r, 0, data, crc32c(data));
    const path = join(tmp.dir, 'ost0', 'objects', fanoutOf('flip.0'), 'flip.0');
    const onDisk = readFileSync(path);
    onDisk[B + 100] = onDisk[B + 100]! ^ 0x01;
    writeFileSync(path, onDisk);
    expect(codeOf(await oss.bulk.read(r, 0, data.length).catch((e: unknown) => e))).toBe('OBJ_CHECKSUM');
    expect(codeOf(await grpcRead(oss.grpc, r, B, 10).catch((e: unknown) => e))).toBe('OBJ_CHECKSUM');
    // blocks that are intact still read
    expect((await oss.bulk.read(r, 0, B)).equals(data.subarray(0, B))).toBe(true);
    // a partial overwrite of the corrupt block must not bless it
    const patch = Buffer.from('xyz');
    expect(codeOf(await oss.bulk.write(r, B + 5, patch, crc32c(patch)).catch((e: unknown) => e))).toBe(
      'OBJ_CHECKSUM',
    );
    const metrics = await (await fetch(`${oss.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/stripefs_oss_checksum_errors_total\{[^}]*ost="ost0"[^}]*\} [3-9]/);
  });

  it('a write whose declared crc does not match is rejected and leaves no object', async () => {
    const data = Buffer.alloc(B + 7, 1);
    const r = ref(oss.ostIds[0]!, 'badcrc.0');
    const viaBulk = await oss.bulk.write(r, 0, data, crc32c(data) ^ 1).catch((e: unknown) => e);
    expect(codeOf(viaBulk)).toBe('OBJ_WRITE_CHECKSUM');
    const viaGrpc = await grpcWrite(oss.grpc, r, 0, data, { crc: 12345 }).catch((e: unknown) => e);
    expect(codeOf(viaGrpc)).toBe('OBJ_WRITE_CHECKSUM');
    const stat = await call(oss.grpc, 'StatObject', { ref: r }).catch((e: unknown) => e);
    expect(codeOf(stat)).toBe('OBJ_NOT_FOUND');
    // the connection is still usable after a rejected write
    await oss.bulk.write(r, 0, data, crc32c(data));
    expect((await oss.bulk.read(r, 0, data.length)).equals(data)).toBe(true);
  });

  it('corrupt reads are flipped after the OSS verify and caught by the client end to end', async () => {
    const ostId = oss.ostIds[1]!;
    const data = Buffer.alloc(2 * B, 9);
    const r = ref(ostId, 'corrupt.0');
    await oss.bulk.write(r, 0, data, crc32c(data));
    const put = await fetch(`${oss.adminUrl}/api/osts/${ostId}/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ corruptReadRate: 1, seed: 7 }),
    });
    expect(put.status).toBe(200);
    const err = await oss.bulk.read(r, 0, data.length).catch((e: unknown) => e);
    expect(codeOf(err)).toBe('OBJ_CHECKSUM');
    expect((err as { details: { detectedBy: string } }).details.detectedBy).toBe('client');
    const viaGrpc = await grpcRead(oss.grpc, r, 0, data.length);
    expect(viaGrpc.crcOk).toBe(false);
    await fetch(`${oss.adminUrl}/api/osts/${ostId}/faults`, { method: 'DELETE' });
    expect((await oss.bulk.read(r, 0, data.length)).equals(data)).toBe(true);
  });
});
