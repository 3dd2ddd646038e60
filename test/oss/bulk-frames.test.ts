// The bulk server's write path against hand-made frames over a raw socket:
// segments larger than a staging buffer, tiny ones, odd sizes, headers split
// across TCP writes, a zero-length segment (framing error: answered, then the
// connection closes, the server stays up) and a client abort (nothing stored).
// On the way back, a read's segments are written by the kernel straight into
// the destination buffer, not copied there.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeErrorBody,
  decodeResponseHeader,
  encodeRequest,
  encodeSegmentHeader,
  RESPONSE_FIXED_BYTES,
  SEGMENT_ABORT,
} from '../../common/bulk/frame.js';
import { eventually } from '../helpers/eventually.js';
import { type FakeMds, startFakeMds } from './fake-mds.js';
import { crc32c, type OssUnderTest, ref, startOss, tempDir } from './helpers.js';

const MiB = 1024 * 1024;

/**
 * Sends `frames` in pieces of `drip` bytes and reads one response (header + error body).
 * After an error the server must close the connection (waited for, with a deadline). After a
 * success the connection must still serve: the same frames are sent again on it, and
 * `closed` is true unless a second answer comes back.
 */
async function exchange(
  port: number,
  frames: Buffer,
  drip: number,
): Promise<{ ok: boolean; code?: string; closed: boolean }> {
  const socket: Socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let got = Buffer.alloc(0);
  let closed = false;
  const answers: { ok: boolean; code?: string }[] = [];
  socket.on('data', (chunk: Buffer) => {
    got = Buffer.concat([got, chunk]);
    while (got.length >= RESPONSE_FIXED_BYTES) {
      const header = decodeResponseHeader(got.subarray(0, RESPONSE_FIXED_BYTES));
      const size = RESPONSE_FIXED_BYTES + (header.ok ? 0 : header.bodyBytes);
      if (got.length < size) return;
      const body = got.subarray(RESPONSE_FIXED_BYTES, size);
      answers.push(header.ok ? { ok: true } : { ok: false, code: decodeErrorBody(body).code });
      got = got.subarray(size);
    }
  });
  socket.on('close', () => {
    closed = true;
  });
  // A reset after the server closes is what the closed flag records.
  socket.on('error', () => undefined);
  const send = async (): Promise<void> => {
    for (let at = 0; at < frames.length && !closed; at += drip) {
      if (!socket.write(frames.subarray(at, at + drip))) await new Promise((r) => socket.once('drain', r));
    }
  };
  const answered = (count: number, what: string) =>
    eventually(() => answers.length >= count || closed, { timeoutMs: 30_000, what, intervalMs: 5 });
  try {
    await send();
    await answered(1, 'an answer to the frames');
    const first = answers[0];
    if (!first) return { ok: false, code: 'no answer', closed };
    if (first.ok) {
      await send();
      await answered(2, 'an answer to the same frames sent again on the connection');
      return { ...first, closed: answers.length < 2 };
    }
    await eventually(() => closed, { timeoutMs: 30_000, what: 'the server to close after an error answer' });
    return { ...first, closed };
  } finally {
    socket.destroy();
  }
}

function writeFrames(
  r: ReturnType<typeof ref>,
  data: Buffer,
  cuts: number[],
  opts: { abortAfter?: number } = {},
): Buffer {
  const parts: Buffer[] = [
    encodeRequest({
      op: 'write',
      ref: r,
      offset: 0,
      length: data.length,
      crc32c: crc32c(data),
      truncate: false,
    }),
  ];
  let at = 0;
  cuts.forEach((length, i) => {
    if (opts.abortAfter === i) {
      parts.push(encodeSegmentHeader(SEGMENT_ABORT, 0));
      return;
    }
    const seg = data.subarray(at, at + length);
    parts.push(encodeSegmentHeader(seg.length, crc32c(seg)), seg);
    at += length;
  });
  return Buffer.concat(parts);
}

/** One raw read; returns the segment lengths of the answer, each checked against its crc, and the bytes. */
async function rawRead(
  port: number,
  r: ReturnType<typeof ref>,
  offset: number,
  length: number,
  segmentBytes: number,
): Promise<{ segments: number[]; data: Buffer }> {
  const socket: Socket = connect({ host: '127.0.0.1', port });
  let got = Buffer.alloc(0);
  const done = new Promise<{ segments: number[]; data: Buffer }>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length < RESPONSE_FIXED_BYTES) return;
      const header = decodeResponseHeader(got.subarray(0, RESPONSE_FIXED_BYTES));
      if (!header.ok) return reject(new Error('error answer'));
      const segments: number[] = [];
      const data: Buffer[] = [];
      let at = RESPONSE_FIXED_BYTES;
      let body = 0;
      while (body < header.bodyBytes && got.length >= at + 8) {
        const n = got.readUInt32LE(at);
        if (got.length < at + 8 + n) return;
        const seg = got.subarray(at + 8, at + 8 + n);
        if (crc32c(seg) !== got.readUInt32LE(at + 4)) return reject(new Error('segment crc'));
        segments.push(n);
        data.push(seg);
        body += n;
        at += 8 + n;
      }
      if (body === header.bodyBytes) resolve({ segments, data: Buffer.concat(data) });
    });
    socket.on('error', reject);
  });
  socket.write(
    encodeRequest({ op: 'read', ref: r, offset, length, crc32c: 0, truncate: false, segmentBytes }),
  );
  try {
    return await done;
  } finally {
    socket.destroy();
  }
}

describe('OSS bulk write framing', () => {
  let mds: FakeMds;
  let oss: OssUnderTest;
  let port: number;
  const tmp = tempDir('stripefs-oss-frames-');

  beforeAll(async () => {
    mds = await startFakeMds();
    oss = await startOss(mds, tmp.dir);
    port = Number(oss.bulk.address.slice(oss.bulk.address.lastIndexOf(':') + 1));
  });
  afterAll(async () => {
    await oss?.stop();
    await mds?.close();
    tmp.remove();
  });

  it('stores any segmentation byte-exact: larger than staging, tiny, odd, headers split', async () => {
    const cuts = [3 * MiB, 100, MiB - 50, 700 * 1024, 1, 2 * MiB + 7];
    const data = randomBytes(cuts.reduce((a, b) => a + b, 0));
    for (const drip of [1_000_003, 4096 + 3]) {
      const r = ref(oss.ostIds[0]!, `frames.${drip}`);
      const answer = await exchange(port, writeFrames(r, data, cuts), drip);
      expect(answer).toMatchObject({ ok: true, closed: false });
      expect((await oss.bulk.read(r, 0, data.length)).equals(data)).toBe(true);
    }
  });

  it("lands a read's segments straight in the destination: at most the first piece is copied", async () => {
    const data = randomBytes(8 * MiB + 12345);
    const r = ref(oss.ostIds[0]!, 'frames.direct');
    await oss.bulk.write(r, 0, data, crc32c(data));
    const before = oss.bulk.directReadBytes;
    for (let i = 0; i < 4; i++) {
      expect((await oss.bulk.read(r, 0, data.length)).equals(data)).toBe(true);
      expect((await oss.bulk.read(r, 777, MiB)).equals(data.subarray(777, 777 + MiB))).toBe(true);
    }
    // Per read, only what arrived with the response header passes through the spare buffer (64 KiB reads).
    const read = 4 * (data.length + MiB);
    expect(oss.bulk.directReadBytes - before).toBeGreaterThan(read - 8 * 2 * 64 * 1024);
  });

  it('joins whole blocks into the segments a read asks for, never across a multiple of their size', async () => {
    const data = randomBytes(5 * MiB + 100);
    const r = ref(oss.ostIds[0]!, 'frames.joined');
    await oss.bulk.write(r, 0, data, crc32c(data));
    const block = 64 * 1024;
    // Asked for 1 MiB segments from a 1 MiB boundary: one per MiB, the short tail last.
    const whole = await rawRead(port, r, MiB, 4 * MiB + 100, MiB);
    expect(whole.segments).toEqual([MiB, MiB, MiB, MiB, 100]);
    expect(whole.data.equals(data.subarray(MiB))).toBe(true);
    // 256 KiB segments from a block boundary: a segment never crosses a multiple.
    const quarter = await rawRead(port, r, 3 * block, 2 * MiB, 256 * 1024);
    expect(quarter.segments).toEqual([...Array.from({ length: 8 }, () => 256 * 1024)]);
    expect(quarter.data.equals(data.subarray(3 * block, 3 * block + 2 * MiB))).toBe(true);
    // From inside a block the blocks do not line up with the multiples: segments stay within the size.
    const odd = await rawRead(port, r, 1000, 2 * MiB, 256 * 1024);
    expect(odd.data.equals(data.subarray(1000, 1000 + 2 * MiB))).toBe(true);
    expect(Math.max(...odd.segments)).toBeLessThanOrEqual(256 * 1024);
    // Without a size: one checksum block per segment, as before.
    const plain = await rawRead(port, r, 0, 2 * MiB, 0);
    expect(plain.segments).toEqual(Array.from({ length: (2 * MiB) / block }, () => block));
  });

  it('a run of parts asks for segments that end at every part: one per block-sized part', async () => {
    const data = randomBytes(5 * MiB + 100);
    const r = ref(oss.ostIds[0]!, 'frames.run');
    await oss.bulk.write(r, 0, data, crc32c(data));
    const got: Buffer[] = [];
    const before = oss.bulk.segmentsRead;
    await oss.bulk.readRun(r, MiB, [MiB, MiB, MiB, MiB, 100], (i, part) => {
      got[i] = part;
    });
    expect(Buffer.concat(got).equals(data.subarray(MiB))).toBe(true);
    expect(oss.bulk.segmentsRead - before).toBe(5);
    // Parts of unlike sizes: segments follow their common divisor, never crossing a part's start.
    const odd = [192 * 1024, 128 * 1024, 320 * 1024];
    const mark = oss.bulk.segmentsRead;
    const parts: Buffer[] = [];
    await oss.bulk.readRun(r, 0, odd, (i, part) => {
      parts[i] = part;
    });
    expect(Buffer.concat(parts).equals(data.subarray(0, 640 * 1024))).toBe(true);
    expect(oss.bulk.segmentsRead - mark).toBe(640 / 64);
  });

  it('a coded refusal and a run that ends early are answers: the connection is kept for the next request', async () => {
    const data = randomBytes(MiB + 100);
    const r = ref(oss.ostIds[0]!, 'frames.short');
    await oss.bulk.write(r, 0, data, crc32c(data));
    const opened = oss.bulk.connectionsOpened;
    // The object ends 100 bytes into the run's second part: nothing is handed over.
    const parts: number[] = [];
    const run = await oss.bulk.readRun(r, 0, [MiB, MiB], (i) => parts.push(i));
    expect(run).toEqual({ complete: false, bodyBytes: MiB + 100 });
    expect(parts).toEqual([]);
    const missing = await oss.bulk.read(ref(oss.ostIds[0]!, 'frames.none'), 0, 10).catch((e: unknown) => e);
    expect((missing as { code?: string }).code).toBe('OBJ_NOT_FOUND');
    expect((await oss.bulk.read(r, MiB, 100)).equals(data.subarray(MiB))).toBe(true);
    expect(await oss.bulk.readRun(r, 0, [MiB, 100], () => undefined)).toEqual({ complete: true });
    // Every request above went over the connection the write left idle.
    expect(oss.bulk.connectionsOpened).toBe(opened);
  });

  it('a zero-length segment is a framing error: answered with a code, then closed; the server stays up', async () => {
    const data = randomBytes(1000);
    const r = ref(oss.ostIds[0]!, 'frames.zero');
    const frames = Buffer.concat([
      encodeRequest({ op: 'write', ref: r, offset: 0, length: 1000, crc32c: crc32c(data), truncate: false }),
      encodeSegmentHeader(0, 0),
    ]);
    const answer = await exchange(port, frames, 64);
    expect(answer).toMatchObject({ ok: false, code: 'REQ_INVALID', closed: true });
    const ok = ref(oss.ostIds[0]!, 'frames.after');
    await oss.bulk.write(ok, 0, data, crc32c(data));
    expect((await oss.bulk.read(ok, 0, 1000)).equals(data)).toBe(true);
  });

  it('a client abort mid-write stores nothing', async () => {
    const data = randomBytes(3 * MiB);
    const r = ref(oss.ostIds[0]!, 'frames.abort');
    const answer = await exchange(
      port,
      writeFrames(r, data, [MiB + 5, MiB, MiB - 5], { abortAfter: 2 }),
      65536,
    );
    expect(answer.ok).toBe(false);
    const read = await oss.bulk.read(r, 0, 10).catch((e: unknown) => e);
    expect((read as { code?: string }).code).toBe('OBJ_NOT_FOUND');
  });
});
