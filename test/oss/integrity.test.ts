// Integrity: a byte flipped on disk is caught on read (never returned) and
// named by the OSS even though bulk reads skip its check of whole blocks, a
// write whose declared crc does not match is rejected and leaves nothing,
// and the corrupt-read knob is caught by the client's end-to-end check.
import { describe, expect, it } from 'vitest';
import { call } from '../../common/grpc.js';
import { LIMITS } from '../../common/limits.js';
import { adminFetch } from '../helpers/admin-http.js';
import { codeOf } from '../helpers/errors.js';
import { damageStoredBytes, storedLocation } from '../helpers/stored-bytes.js';
import { crc32c, grpcRead, grpcWrite, ref, useOss } from './helpers.js';

const B = LIMITS.checksumBlockBytes;

describe('OSS integrity', () => {
  const h = useOss('stripefs-oss-int-');

  /** Stores `data` as `objectId` on ost0, then flips one bit of byte `at` where the OST keeps it on disk. */
  async function storeAndFlip(objectId: string, data: Buffer, at: number) {
    const r = ref(h.oss.ostIds[0]!, objectId);
    await h.oss.bulk.write(r, 0, data, crc32c(data));
    await damageStoredBytes(h.oss.adminUrl, r.ostId, objectId, at);
    return r;
  }

  it('a byte flipped in a data file on disk is detected on read and counted', async () => {
    const data = Buffer.alloc(3 * B, 0x5a);
    const r = await storeAndFlip('flip.0', data, B + 100);
    // The bulk client checks every segment, so the OSS sends whole blocks unchecked; the
    // failure makes the client ask again with the OSS's check, which names the disk block.
    const rechecks = h.oss.bulk.checksumRechecks;
    const viaBulk = await h.oss.bulk.read(r, 0, data.length).catch((e: unknown) => e);
    expect(viaBulk).toMatchObject({ code: 'OBJ_CHECKSUM' });
    expect((viaBulk as Error).message).toMatch(/block 1 of flip\.0 on ost0 failed its checksum/);
    expect(h.oss.bulk.checksumRechecks).toBe(rechecks + 1);
    // a run (readahead) as well, after handing over the part before the bad block
    const parts: number[] = [];
    const viaRun = await h.oss.bulk
      .readRun(r, 0, [B, B, B], (index) => {
        parts.push(index);
      })
      .catch((e: unknown) => e);
    expect(viaRun).toMatchObject({ code: 'OBJ_CHECKSUM' });
    expect((viaRun as Error).message).toMatch(/block 1 of flip\.0 on ost0 failed its checksum/);
    expect(parts).toEqual([0]);
    expect(h.oss.bulk.checksumRechecks).toBe(rechecks + 2);
    expect(await codeOf(grpcRead(h.oss.grpc, r, B, 10))).toBe('OBJ_CHECKSUM');
    // blocks that are intact still read
    expect((await h.oss.bulk.read(r, 0, B)).equals(data.subarray(0, B))).toBe(true);
    // a partial overwrite of the corrupt block must not bless it
    const patch = Buffer.from('xyz');
    expect(await codeOf(h.oss.bulk.write(r, B + 5, patch, crc32c(patch)))).toBe('OBJ_CHECKSUM');
    const metrics = await (await adminFetch(`${h.oss.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/stripefs_oss_checksum_errors_total\{[^}]*ost="ost0"[^}]*\} [4-9]/);
  });

  it('a read whose client checks it gets whole blocks unchecked by the OSS, partial ones checked', async () => {
    const data = Buffer.alloc(2 * B, 0x3c);
    const r = await storeAndFlip('waive.0', data, B + 7);
    // One request as the client sends it first: the stored crc travels with the block and
    // the mismatch is found at the client (had the OSS checked, it would have refused).
    const once = (offset: number, length: number): Promise<unknown> =>
      (
        h.oss.bulk as unknown as {
          readOnce(...args: unknown[]): Promise<{ data: Buffer }>;
        }
      )
        .readOnce(r, offset, length, Buffer.allocUnsafe, true)
        .then((read) => read.data)
        .catch((e: unknown) => e);
    const whole = await once(0, 2 * B);
    expect(whole).toMatchObject({ code: 'OBJ_CHECKSUM' });
    expect((whole as { details: object }).details).toMatchObject({
      detectedBy: 'client',
      uncheckedByOss: true,
    });
    // part of the bad block: its crc is computed from the bytes, so the OSS checks the block first
    const part = await once(B + 100, 50);
    expect((part as Error).message).toMatch(/block 1 of waive\.0 on ost0 failed its checksum/);
    // the good block still reads, unchecked or not
    expect(((await once(0, B)) as Buffer).equals(data.subarray(0, B))).toBe(true);
  });

  it('a write whose declared crc does not match is rejected and leaves no object', async () => {
    const data = Buffer.alloc(B + 7, 1);
    const r = ref(h.oss.ostIds[0]!, 'badcrc.0');
    const viaBulk = await codeOf(h.oss.bulk.write(r, 0, data, crc32c(data) ^ 1));
    expect(viaBulk).toBe('OBJ_WRITE_CHECKSUM');
    const viaGrpc = await codeOf(grpcWrite(h.oss.grpc, r, 0, data, { crc: 12345 }));
    expect(viaGrpc).toBe('OBJ_WRITE_CHECKSUM');
    const stat = await codeOf(call(h.oss.grpc, 'StatObject', { ref: r }));
    expect(stat).toBe('OBJ_NOT_FOUND');
    expect(await storedLocation(h.oss.adminUrl, r.ostId, 'badcrc.0')).toBeUndefined();
    // the connection is still usable after a rejected write
    await h.oss.bulk.write(r, 0, data, crc32c(data));
    expect((await h.oss.bulk.read(r, 0, data.length)).equals(data)).toBe(true);
  });

  it('corrupt reads are flipped after the OSS verify and caught by the client end to end', async () => {
    const ostId = h.oss.ostIds[1]!;
    const data = Buffer.alloc(2 * B, 9);
    const r = ref(ostId, 'corrupt.0');
    await h.oss.bulk.write(r, 0, data, crc32c(data));
    const put = await adminFetch(`${h.oss.adminUrl}/api/osts/${ostId}/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ corruptReadRate: 1, seed: 7 }),
    });
    expect(put.status).toBe(200);
    const rechecks = h.oss.bulk.checksumRechecks;
    const err = await h.oss.bulk.read(r, 0, data.length).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'OBJ_CHECKSUM' });
    // failed unchecked, then again with the OSS's check: the bytes broke after it, on the way
    expect((err as { details: object }).details).toMatchObject({
      detectedBy: 'client',
      uncheckedByOss: false,
    });
    expect((err as Error).message).toMatch(/in transit/);
    expect(h.oss.bulk.checksumRechecks).toBe(rechecks + 1);
    const viaGrpc = await grpcRead(h.oss.grpc, r, 0, data.length);
    expect(viaGrpc.crcOk).toBe(false);
    await adminFetch(`${h.oss.adminUrl}/api/osts/${ostId}/faults`, { method: 'DELETE' });
    expect((await h.oss.bulk.read(r, 0, data.length)).equals(data)).toBe(true);
  });
});
