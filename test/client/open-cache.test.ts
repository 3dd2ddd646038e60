// The open cache alone, on a clock the test moves: answers are reused until
// the TTL, then asked again; an attribute-only answer never hides the bytes
// of the same file; the entry and byte bounds evict the oldest entries; a
// TTL of 0 (the default, close-to-open) keeps nothing.
import { describe, expect, it } from 'vitest';
import type { Opened } from '../../client/mds-client.js';
import { OpenCache } from '../../client/open-cache.js';
import type { Attr__Output } from '../../proto/index.js';

function opened(inode: number, change: number, data?: number): Opened {
  const attr = { inode, change, size: data ?? 0 } as unknown as Attr__Output;
  return { attr, domData: data === undefined ? undefined : Buffer.alloc(data, inode) };
}

describe('open cache', () => {
  it('reuses answers within the TTL and asks again after it', () => {
    let now = 1_000;
    const cache = new OpenCache(500, 10, 1 << 20, () => now);
    expect(cache.get('/a', true)).toBeUndefined();
    cache.put('/a', opened(1, 1, 10));
    now += 499;
    expect(cache.get('/a', true)?.domData?.length).toBe(10);
    expect(cache.get('/a', false)?.attr.inode).toBe(1);
    now += 1;
    expect(cache.get('/a', false)).toBeUndefined();
    expect([cache.hits, cache.misses, cache.expired, cache.size, cache.bytes]).toEqual([2, 2, 1, 0, 0]);
  });

  it('keeps the bytes of a file when a stat of the same file answers without them', () => {
    const cache = new OpenCache(1_000, 10, 1 << 20, () => 0);
    cache.put('/a', opened(1, 1, 10));
    cache.put('/a', opened(1, 1));
    expect(cache.get('/a', true)?.domData?.length).toBe(10);
    cache.put('/a', opened(1, 2)); // another commit: the old bytes are gone
    expect(cache.get('/a', true)).toBeUndefined();
    expect(cache.get('/a', false)?.attr.change).toBe(2);
    cache.forget('/a');
    expect(cache.size).toBe(0);
  });

  it('evicts the oldest entries past its entry and byte bounds, and forgets trees', () => {
    const cache = new OpenCache(1_000, 3, 100, () => 0);
    for (let i = 1; i <= 4; i++) cache.put(`/d/f${i}`, opened(i, 1, 10));
    expect(cache.size).toBe(3);
    expect(cache.get('/d/f1', false)).toBeUndefined();
    cache.put('/big', opened(9, 1, 90));
    expect(cache.bytes).toBeLessThanOrEqual(100);
    expect(cache.get('/big', true)?.domData?.length).toBe(90);
    cache.put('/huge', opened(10, 1, 101));
    expect(cache.get('/huge', false)).toBeUndefined();
    cache.put('/d/f5', opened(5, 1));
    cache.forgetTree('/d');
    expect(cache.get('/d/f5', false)).toBeUndefined();
    expect(cache.get('/big', false)).toBeDefined();
  });

  it('keeps nothing with a TTL of 0 (close-to-open)', () => {
    const cache = new OpenCache(0, 10, 100, () => 0);
    cache.put('/a', opened(1, 1, 10));
    expect(cache.get('/a', false)).toBeUndefined();
    expect([cache.size, cache.hits, cache.misses]).toEqual([0, 0, 0]);
  });
});
