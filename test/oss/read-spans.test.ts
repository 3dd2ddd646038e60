// How an OST read steps through an object (oss/store/read.ts readSpans):
// one disk span of oss.readSpanBytes (2 MiB by default) at a time, each handed
// over as its blocks' pieces, on a real OST (real object file, classic-level
// index); and the span setting's checks.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import * as buffers from '../../oss/buffers.js';
import { Ost } from '../../oss/store/ost.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('stripefs-read-spans-');
afterAll(() => tmp.remove());
// The span is process-wide (one OSS per process): back to the default for whatever runs next here.
afterEach(() => buffers.setReadSpanBytes(buffers.READ_SPAN_BYTES_DEFAULT));

it.each([
  [0, 2 * 1024 * 1024],
  [1024 * 1024, 1024 * 1024],
  [4 * 1024 * 1024, 4 * 1024 * 1024],
])(
  'a read steps one span at a time (setting %i: %i bytes), each span one array of block pieces',
  async (setting, READ_SPAN_BYTES) => {
    if (setting > 0) buffers.setReadSpanBytes(setting);
    expect(buffers.readSpanBytes).toBe(READ_SPAN_BYTES);
    const ost = await Ost.open({
      dir: tmp.dir,
      name: `ost-${setting}`,
      capacityBytes: 1 << 30,
      fsync: false,
    });
    try {
      const B = ost.blockBytes;
      const data = randomBytes(2 * READ_SPAN_BYTES + READ_SPAN_BYTES / 2 + 100);
      async function* pieces() {
        yield { data };
      }
      await ost.write(
        {
          objectId: 'obj',
          poolId: 1,
          pg: 7,
          offset: 0,
          length: data.length,
          declaredCrc: crc32c(data),
          truncate: false,
        },
        pieces(),
      );
      const read = async (offset: number, length: number) => {
        const spans: { bytes: number; pieces: number }[] = [];
        const parts: Buffer[] = [];
        for await (const span of ost.readSpans('obj', offset, length, () => undefined)) {
          spans.push({ bytes: span.reduce((sum, p) => sum + p.data.length, 0), pieces: span.length });
          for (const piece of span) {
            expect(piece.crc).toBe(crc32c(piece.data));
            parts.push(Buffer.from(piece.data));
          }
          span[span.length - 1]?.release?.();
        }
        expect(Buffer.concat(parts).equals(data.subarray(offset, offset + length))).toBe(true);
        return spans;
      };
      const perSpan = READ_SPAN_BYTES / B;
      expect(await read(0, data.length)).toEqual([
        { bytes: READ_SPAN_BYTES, pieces: perSpan },
        { bytes: READ_SPAN_BYTES, pieces: perSpan },
        { bytes: READ_SPAN_BYTES / 2 + 100, pieces: perSpan / 2 + 1 },
      ]);
      // From inside a block: spans still start on block boundaries, the first piece is cut.
      const from = B + 10;
      expect(await read(from, READ_SPAN_BYTES)).toEqual([
        { bytes: READ_SPAN_BYTES - 10, pieces: perSpan },
        { bytes: 10, pieces: 1 },
      ]);
    } finally {
      await ost.close();
    }
  },
);

it('a span that is not a multiple of 1 MiB is refused with CONFIG_INVALID naming the key', () => {
  for (const bad of [0, 64 * 1024, 1.5 * 1024 * 1024, 3 * 1024 * 1024 + 1])
    expect(() => buffers.setReadSpanBytes(bad)).toThrow(
      expect.objectContaining({
        code: 'CONFIG_INVALID',
        message: expect.stringContaining('oss.readSpanBytes'),
      }),
    );
  expect(buffers.readSpanBytes).toBe(buffers.READ_SPAN_BYTES_DEFAULT);
});
