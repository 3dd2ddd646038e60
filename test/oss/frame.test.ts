// Pure parts of the data path: the bulk frame codec, crc32c combine, block
// segmentation and the block-crc builder (against a direct computation).
import { expect, it } from 'vitest';
import { crc32cCombine } from '../../common/bulk/crc-combine.js';
import {
  decodeErrorBody,
  decodeRequest,
  decodeResponseHeader,
  decodeStampCount,
  decodeStamps,
  encodeErrorResponse,
  encodeOkResponse,
  encodeRequest,
  REQUEST_FIXED_BYTES,
  RESPONSE_FIXED_BYTES,
  SEGMENT_BYTES_MAX,
  STAMP_COUNT_BYTES,
  segmentBounds,
} from '../../common/bulk/frame.js';
import { crc32c } from '../../common/checksum.js';
import { seededRandom, seedFromEnv } from '../../common/random.js';
import { BlockCrcBuilder } from '../../oss/store/block-crc.js';

const seed = seedFromEnv();
console.log(`frame.test seed=${seed}`);

it('request headers round-trip, 64-bit fields included', () => {
  const req = {
    op: 'write' as const,
    ref: { ostId: 7, objectId: '17.0.c3', poolId: 2, pg: 99, mapEpoch: 2 ** 40 + 3 },
    offset: 2 ** 36 + 5,
    length: 4 * 1024 * 1024,
    crc32c: 0xdeadbeef,
    truncate: true,
  };
  const buf = encodeRequest(req);
  expect(decodeRequest(buf.subarray(0, REQUEST_FIXED_BYTES), buf.subarray(REQUEST_FIXED_BYTES))).toEqual(req);
  // A read carries the segment size it wants where a write carries its crc (capped at the segment limit).
  // Its flags say whether the reader checks every segment itself (bit 1).
  const decode = (b: Buffer) =>
    decodeRequest(b.subarray(0, REQUEST_FIXED_BYTES), b.subarray(REQUEST_FIXED_BYTES));
  const read = {
    ...req,
    op: 'read' as const,
    crc32c: 0,
    truncate: false,
    segmentBytes: 1024 * 1024,
    readerVerifies: false,
    wantStamps: false,
  };
  const readBuf = encodeRequest(read);
  expect(decode(readBuf)).toEqual(read);
  expect(readBuf[5]).toBe(0);
  const waived = encodeRequest({ ...read, readerVerifies: true });
  expect(waived[5]).toBe(2);
  expect(decode(waived)).toEqual({ ...read, readerVerifies: true });
  // A read that wants the block stamps of what it reads says so (bit 4).
  const wanting = encodeRequest({ ...read, wantStamps: true });
  expect(wanting[5]).toBe(16);
  expect(decode(wanting)).toEqual({ ...read, wantStamps: true });
  // A versioned write carries its stamp after the object id (flags bit 2); the id is unchanged.
  const stamped = encodeRequest({ ...req, version: 1_800_000_000_000 * 1024 + 5 });
  expect(stamped[5]).toBe(1 | 4);
  expect(decode(stamped)).toEqual({ ...req, version: 1_800_000_000_000 * 1024 + 5 });
  // A sync write (flags bit 3) asks the OSS to make the object durable before it answers.
  const synced = encodeRequest({ ...req, sync: true });
  expect(synced[5]).toBe(1 | 8);
  expect(decode(synced)).toEqual({ ...req, sync: true });
  // A read never carries it.
  expect(encodeRequest({ ...read, sync: true } as typeof read)[5]).toBe(0);
  const huge = encodeRequest({ ...read, segmentBytes: 2 ** 31 });
  expect(
    decodeRequest(huge.subarray(0, REQUEST_FIXED_BYTES), huge.subarray(REQUEST_FIXED_BYTES)).segmentBytes,
  ).toBe(SEGMENT_BYTES_MAX);
  const bad = Buffer.from(buf);
  bad[0] = 0;
  expect(() =>
    decodeRequest(bad.subarray(0, REQUEST_FIXED_BYTES), bad.subarray(REQUEST_FIXED_BYTES)),
  ).toThrow(/magic/);
});

it('responses and coded errors round-trip', () => {
  expect(decodeResponseHeader(encodeOkResponse(10, 3, 5))).toEqual({
    ok: true,
    objectSize: 10,
    version: 3,
    bodyBytes: 5,
    durable: false,
    stamped: false,
  });
  // A sync write's answer says whether its flush held (flags bit 0 of the response).
  const durable = encodeOkResponse(10, 3, 0, { durable: true });
  expect(durable[5]).toBe(1);
  expect(decodeResponseHeader(durable).durable).toBe(true);
  // A read's block stamps follow the header (flags bit 1): a count, then each stamp (64-bit).
  const stamps = [0, 1_800_000_000_000 * 1024 + 7, 42];
  const withStamps = encodeOkResponse(10, 0, 5, { stamps });
  expect(withStamps[5]).toBe(2);
  expect(decodeResponseHeader(withStamps.subarray(0, RESPONSE_FIXED_BYTES))).toMatchObject({ stamped: true });
  const trailer = withStamps.subarray(RESPONSE_FIXED_BYTES);
  expect(decodeStampCount(trailer)).toBe(3);
  expect(decodeStamps(trailer.subarray(STAMP_COUNT_BYTES))).toEqual(stamps);
  const err = encodeErrorResponse('MAP_STALE', 'refresh');
  const head = decodeResponseHeader(err.subarray(0, RESPONSE_FIXED_BYTES));
  expect(head.ok).toBe(false);
  const decoded = decodeErrorBody(err.subarray(RESPONSE_FIXED_BYTES));
  expect([decoded.code, decoded.message]).toEqual(['MAP_STALE', 'refresh']);
});

it('crc32cCombine equals the crc of the concatenation', () => {
  const random = seededRandom(seed);
  for (let i = 0; i < 50; i++) {
    const a = Buffer.from(Array.from({ length: random.int(300) }, () => random.int(256)));
    const b = Buffer.from(Array.from({ length: random.int(300) }, () => random.int(256)));
    expect(crc32cCombine(crc32c(a), crc32c(b), b.length)).toBe(crc32c(Buffer.concat([a, b])));
  }
});

it('segments cut at block boundaries', () => {
  expect(segmentBounds(10, 30, 16)).toEqual([
    [0, 6],
    [6, 22],
    [22, 30],
  ]);
  expect(segmentBounds(0, 0, 16)).toEqual([]);
});

it('BlockCrcBuilder joins prefix, zeros, data and suffix into per-block crcs', () => {
  const random = seededRandom(seed + 1);
  const B = 64;
  for (let i = 0; i < 100; i++) {
    const prefix = Buffer.from(Array.from({ length: random.int(B) }, () => random.int(256)));
    const zeros = random.int(3 * B);
    const data = Buffer.from(Array.from({ length: random.int(4 * B) }, () => random.int(256)));
    const builder = new BlockCrcBuilder(B, 0);
    builder.addBytes(prefix, false);
    builder.addZeros(zeros);
    builder.addBytes(data.subarray(0, 10), true);
    builder.addBytes(data.subarray(10), true);
    const whole = Buffer.concat([prefix, Buffer.alloc(zeros), data]);
    const expected: number[] = [];
    for (let at = 0; at < whole.length; at += B) expected.push(crc32c(whole.subarray(at, at + B)));
    expect(Array.from(builder.finish())).toEqual(expected);
    expect(builder.dataCrc32c).toBe(data.length ? crc32c(data) : 0);
  }
});
