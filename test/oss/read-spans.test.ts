// How an OST read steps through an object (oss/ost-read.ts readObjectSpans):
// one disk span of READ_SPAN_BYTES at a time, each handed over as its blocks'
// pieces, on a real OST (real object file, classic-level index).
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import { READ_SPAN_BYTES } from '../../oss/buffers.js';
import { Ost } from '../../oss/ost.js';
import { readObjectSpans } from '../../oss/ost-read.js';
import { writeObject } from '../../oss/ost-write.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('stripefs-read-spans-');
afterAll(() => tmp.remove());

it('a read steps one 2 MiB span at a time, each span one array of block pieces', async () => {
  expect(READ_SPAN_BYTES).toBe(2 * 1024 * 1024);
  const ost = await Ost.open({ dir: tmp.dir, name: 'ost0', capacityBytes: 1 << 30, fsync: false });
  try {
    const B = ost.blockBytes;
    const data = randomBytes(2 * READ_SPAN_BYTES + READ_SPAN_BYTES / 2 + 100);
    async function* pieces() {
      yield { data };
    }
    await writeObject(
      ost,
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
      for await (const span of readObjectSpans(ost, 'obj', offset, length, () => undefined)) {
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
});
