// The MDS framed path's wire format (common/mds-frames.ts): frames cut from a
// stream split anywhere come out whole and in order, from chunks kept as they
// are (FrameCutter) and from one read buffer reused and overwritten after each
// read (FrameReader: every body is its own copy, the rest of a large one read in place); a bad magic or an oversized
// body is a coded error; metadata pairs round-trip and a newline in one is
// refused.
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../common/limits.js';
import {
  decodeMeta,
  encodeFrameHeader,
  encodeMeta,
  FRAME_REQUEST_MAGIC,
  FRAME_RESPONSE_MAGIC,
  FrameCutter,
  FrameReader,
} from '../../common/mds-frames.js';
import { seededRandom } from '../../common/random.js';

function frame(magic: number, callId: number, meta: Buffer, body: Buffer): Buffer {
  const header = encodeFrameHeader({
    magic,
    kind: 1,
    metaBytes: meta.length,
    callId,
    bodyBytes: body.length,
  });
  return Buffer.concat([header, meta, body]);
}

const bodies = Array.from({ length: 30 }, (_, i) => Buffer.alloc((i * 7919) % 70_000, i + 1));

describe('MDS frames', () => {
  it('a reader of one reused buffer gets every body whole, whatever the reads', () => {
    const random = seededRandom(7);
    const stream = Buffer.concat(
      bodies.map((body, i) => frame(FRAME_RESPONSE_MAGIC, i, Buffer.alloc(0), body)),
    );
    const got: { callId: number; body: Buffer }[] = [];
    const reader = new FrameReader(FRAME_RESPONSE_MAGIC, (header, body) =>
      got.push({ callId: header.callId, body }),
    );
    const reused = Buffer.alloc(64 * 1024);
    for (let at = 0; at < stream.length; ) {
      const n = Math.min(stream.length - at, 1 + random.int(reused.length));
      stream.copy(reused, 0, at, at + n);
      reader.push(reused, 0, n);
      reused.fill(0xee); // the next read overwrites it
      at += n;
    }
    expect(got.map((g) => g.callId)).toEqual(bodies.map((_, i) => i));
    got.forEach((g, i) => {
      expect(g.body.equals(bodies[i] as Buffer), `body ${i}`).toBe(true);
    });
  });

  it('a reader that lends the rest of a large body gets it read in place, every body whole', () => {
    const random = seededRandom(11);
    const stream = Buffer.concat(
      bodies.map((body, i) => frame(FRAME_RESPONSE_MAGIC, i, Buffer.alloc(0), body)),
    );
    const got: { callId: number; body: Buffer }[] = [];
    const reader = new FrameReader(FRAME_RESPONSE_MAGIC, (header, body) =>
      got.push({ callId: header.callId, body }),
    );
    const reused = Buffer.alloc(16 * 1024);
    const inPlaceMin = 4 * 1024;
    // As a socket's onread does: each read goes where `target` says, else into the reused buffer.
    for (let at = 0; at < stream.length; ) {
      const into = reader.target(inPlaceMin) ?? reused;
      const n = Math.min(stream.length - at, into.length, 1 + random.int(reused.length));
      stream.copy(into, 0, at, at + n);
      if (into === reused) {
        reader.push(reused, 0, n);
        reused.fill(0xee);
      } else reader.landed(n);
      at += n;
    }
    expect(got.map((g) => g.callId)).toEqual(bodies.map((_, i) => i));
    got.forEach((g, i) => {
      expect(g.body.equals(bodies[i] as Buffer), `body ${i}`).toBe(true);
    });
    const bodyBytes = bodies.reduce((sum, b) => sum + b.length, 0);
    expect(reader.copiedBytes + reader.landedBytes).toBe(bodyBytes);
    // Only what came with a header, and the short tails, were copied.
    expect(reader.landedBytes).toBeGreaterThan(bodyBytes / 2);
    expect(() => reader.landed(1)).toThrow(/past the body/);
  });

  it('a cutter of kept chunks gets every frame with its metadata, whatever the chunks', () => {
    const random = seededRandom(9);
    const meta = encodeMeta([
      ['stripefs-auth', 'v1 admin 00 1 2 proof'],
      ['stripefs-job-id', 'train-1'],
    ]);
    const stream = Buffer.concat(bodies.map((body, i) => frame(FRAME_REQUEST_MAGIC, i, meta, body)));
    const got: Buffer[] = [];
    const cutter = new FrameCutter(FRAME_REQUEST_MAGIC, (_header, m, body) => {
      expect(decodeMeta(m)).toEqual([
        ['stripefs-auth', 'v1 admin 00 1 2 proof'],
        ['stripefs-job-id', 'train-1'],
      ]);
      got.push(Buffer.from(body));
    });
    for (let at = 0; at < stream.length; ) {
      const n = Math.min(stream.length - at, 1 + random.int(50_000));
      cutter.push(stream.subarray(at, at + n));
      at += n;
    }
    expect(got).toHaveLength(bodies.length);
    got.forEach((body, i) => {
      expect(body.equals(bodies[i] as Buffer), `body ${i}`).toBe(true);
    });
  });

  it('refuses a bad magic, an oversized body and a newline in metadata with codes', () => {
    const reader = new FrameReader(FRAME_RESPONSE_MAGIC, () => undefined);
    const wrong = frame(FRAME_REQUEST_MAGIC, 1, Buffer.alloc(0), Buffer.alloc(4));
    expect(() => reader.push(wrong, 0, wrong.length)).toThrow(
      expect.objectContaining({ code: 'REQ_INVALID' }),
    );
    const huge = encodeFrameHeader({
      magic: FRAME_REQUEST_MAGIC,
      kind: 1,
      metaBytes: 0,
      callId: 1,
      bodyBytes: LIMITS.grpcMessageBytesMax + 1,
    });
    const cutter = new FrameCutter(FRAME_REQUEST_MAGIC, () => undefined);
    expect(() => cutter.push(huge)).toThrow(expect.objectContaining({ code: 'REQ_TOO_LARGE' }));
    expect(() => encodeMeta([['k', 'a\nb']])).toThrow(expect.objectContaining({ code: 'REQ_INVALID' }));
  });
});
