// The OST's cache of decoded index records (oss/store/index-cache.ts) on a real OST
// (classic-level index, real object files): reads after a write are served
// from it, every later write, truncate, version change and delete shows at
// once, and a lookup that began before a change never fills it with the
// record that change replaced.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import { IndexCache } from '../../oss/store/index-cache.js';
import { Ost } from '../../oss/store/ost.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('stripefs-index-cache-');
afterAll(() => tmp.remove());

async function put(
  ost: Ost,
  objectId: string,
  offset: number,
  data: Buffer,
  truncate = false,
  stamp?: number,
) {
  async function* pieces() {
    yield { data };
  }
  return ost.write(
    {
      objectId,
      poolId: 1,
      pg: 7,
      offset,
      length: data.length,
      declaredCrc: crc32c(data),
      truncate,
      ...(stamp === undefined ? {} : { stamp }),
    },
    pieces(),
  );
}

async function get(ost: Ost, objectId: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const span of ost.readSpans(objectId, 0, 1 << 30, () => undefined)) {
    for (const piece of span) parts.push(Buffer.from(piece.data));
    span[span.length - 1]?.release?.();
  }
  return Buffer.concat(parts);
}

describe('OST index cache', () => {
  it('serves repeated reads from memory and shows every change at once', async () => {
    const ost = await Ost.open({ dir: tmp.dir, name: 'ost0', capacityBytes: 1 << 30, fsync: false });
    try {
      const B = ost.blockBytes;
      const first = randomBytes(3 * B + 100);
      await put(ost, 'obj', 0, first);
      const lookups = ost.index.cache.misses;
      expect((await get(ost, 'obj')).equals(first)).toBe(true);
      expect((await get(ost, 'obj')).equals(first)).toBe(true);
      expect(ost.index.cache.misses).toBe(lookups); // the write left its records in the cache
      expect(ost.index.cache.hits).toBeGreaterThanOrEqual(2);
      // An overwrite in the middle: new bytes, new crcs, a new version.
      const patch = randomBytes(B);
      const { version } = await put(ost, 'obj', B, patch);
      const expected = Buffer.from(first);
      patch.copy(expected, B);
      expect((await get(ost, 'obj')).equals(expected)).toBe(true);
      expect((await ost.stat('obj'))?.version).toBe(version);
      // A truncating write: the size and the crcs past it go.
      const short = randomBytes(B / 2);
      await put(ost, 'obj', 0, short, true);
      expect((await ost.stat('obj'))?.size).toBe(short.length);
      expect((await get(ost, 'obj')).equals(short)).toBe(true);
      // A stamped write's version is seen by the next lookup.
      await put(ost, 'obj', 0, short.subarray(0, 1), false, 40);
      expect((await ost.stat('obj'))?.version).toBe(40);
      // A delete, and a new object under the same id with other bytes.
      expect(await ost.delete('obj')).toBe(true);
      expect(await ost.stat('obj')).toBeUndefined();
      const again = randomBytes(B + 1);
      await put(ost, 'obj', 0, again);
      expect((await get(ost, 'obj')).equals(again)).toBe(true);
    } finally {
      await ost.close();
    }
    // The truth is the database: a reopened OST (empty cache) reads the same.
    const reopened = await Ost.open({ dir: tmp.dir, name: 'ost0', capacityBytes: 1 << 30, fsync: false });
    try {
      expect((await reopened.stat('obj'))?.version).toBe(1);
    } finally {
      await reopened.close();
    }
  });

  it('drops a fill from a lookup that began before a change', () => {
    const cache = new IndexCache(2);
    const old = { size: 1, version: 1, mtimeMs: 0, poolId: 1, pg: 0 };
    const began = cache.generation;
    cache.changed('a'); // a writer starts while the lookup is in the database
    cache.fill('a', began, old);
    expect(cache.meta('a')).toBeUndefined();
    cache.remember('a', { ...old, version: 2 }, new Map());
    cache.fill('a', began, old); // the stale answer arrives late
    expect(cache.meta('a')?.version).toBe(2);
    // Bounded: the least recently used object goes.
    cache.fill('b', cache.generation, old);
    cache.meta('a');
    cache.fill('c', cache.generation, old);
    expect(cache.size).toBe(2);
    expect(cache.meta('b')).toBeUndefined();
    expect(cache.meta('a')?.version).toBe(2);
  });
});
