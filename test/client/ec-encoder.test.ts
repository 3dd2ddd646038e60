// ec parity on a worker thread: the same bytes as the inline encoder, the
// stripe buffer comes back whole (transferred, not copied), small or shared
// buffers stay inline, and a pool of 0 workers encodes everything inline.
import { randomFillSync } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { EC_WORKER_MIN_BYTES, EcEncoder } from '../../client/ec-encoder.js';
import { encodeParity } from '../../common/erasure.js';

const MiB = 1 << 20;

describe('ec encoder workers', () => {
  const pooled = new EcEncoder(2);
  afterAll(async () => {
    await pooled.close();
  });

  it('encodes on a worker exactly as inline, several stripes at once', async () => {
    const stripes = Array.from({ length: 5 }, () => {
      const b = Buffer.allocUnsafeSlow(6 * MiB);
      randomFillSync(b, 0, 4 * MiB);
      return b;
    });
    const expected = stripes.map((s) => {
      const copy = Buffer.from(s);
      encodeParity(copy, 4, 2);
      return copy;
    });
    const done = await Promise.all(stripes.map((s) => pooled.encode(s, 4, 2)));
    done.forEach((d, i) => {
      expect(d.length).toBe(6 * MiB);
      expect(d.equals(expected[i] as Buffer)).toBe(true);
    });
    expect(pooled.counts.worker).toBe(5);
  });

  it('keeps small stripes and buffers that share memory on the calling thread', async () => {
    const before = pooled.counts.inline;
    const small = Buffer.allocUnsafeSlow(EC_WORKER_MIN_BYTES / 2);
    randomFillSync(small);
    const expected = Buffer.from(small);
    encodeParity(expected, 3, 1);
    expect((await pooled.encode(small, 3, 1)).equals(expected)).toBe(true);
    const slab = Buffer.allocUnsafeSlow(8 * MiB);
    const shared = slab.subarray(MiB, 7 * MiB);
    const out = await pooled.encode(shared, 4, 2);
    expect(out).toBe(shared);
    expect(pooled.counts.inline).toBe(before + 2);
  });

  it('with no workers, everything is inline', async () => {
    const none = new EcEncoder(0);
    const b = Buffer.allocUnsafeSlow(6 * MiB);
    expect(await none.encode(b, 4, 2)).toBe(b);
    expect(none.counts).toEqual({ worker: 0, inline: 1 });
    await none.close();
  });
});
