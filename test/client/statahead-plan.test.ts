// Statahead's plan alone: a scan in listing order or over counting names is
// a pattern after two steps and fetches a batch ahead, then the next batch
// only once half of the fetched one is used; one access off the pattern ends
// it; random access fetches nothing.
import { describe, expect, it } from 'vitest';
import { indexIn, newScan, onAccess, type ScanState } from '../../client/statahead-plan.js';

function run(state: ScanState, names: string[], batch: number): { state: ScanState; fetched: string[][] } {
  const fetched: string[][] = [];
  for (const name of names) {
    const step = onAccess(state, name, batch);
    state = step.state;
    if (step.fetch.length > 0) fetched.push(step.fetch);
  }
  return { state, fetched };
}

const listed = Array.from({ length: 20 }, (_, i) => `f${String(i).padStart(2, '0')}`);

describe('statahead plan', () => {
  it('follows a listing: a batch once the scan is a pattern, the next when half of it is used, none past the end', () => {
    const { fetched } = run(newScan(listed), listed, 8);
    expect(fetched).toEqual([listed.slice(3, 11), listed.slice(11, 19), listed.slice(19, 20)]);
  });

  it('keeps several batches ahead when asked, and says where each batch starts in the listing', () => {
    let state = newScan(listed);
    const fetched: { fetch: string[]; after: string | undefined }[] = [];
    for (const name of listed.slice(0, 6)) {
      const step = onAccess(state, name, 4, 3);
      state = step.state;
      if (step.fetch.length > 0) fetched.push({ fetch: step.fetch, after: step.after });
    }
    // A pattern at the third access: then a batch per access until three are ahead.
    expect(fetched).toEqual([
      { fetch: listed.slice(3, 7), after: 'f02' },
      { fetch: listed.slice(7, 11), after: 'f06' },
      { fetch: listed.slice(11, 15), after: 'f10' },
      { fetch: listed.slice(15, 19), after: 'f14' },
    ]);
    // Counting names carry no place in a listing.
    expect(onAccess(onAccess(newScan(), 'a1', 4).state, 'a2', 4).after).toBeUndefined();
  });

  it('follows counting names without a listing, keeping their zero padding', () => {
    const names = ['img_000007.jpg', 'img_000008.jpg', 'img_000009.jpg', 'img_000010.jpg'];
    const { fetched } = run(newScan(), names, 4);
    expect(fetched[0]).toEqual(['img_000010.jpg', 'img_000011.jpg', 'img_000012.jpg', 'img_000013.jpg']);
    expect(fetched.flat()).not.toContain('img_000009.jpg');
  });

  it('stops when the pattern breaks and fetches nothing for random access', () => {
    const broken = run(newScan(listed), ['f00', 'f01', 'f02', 'f09', 'f03', 'f11'], 4);
    expect(broken.fetched).toEqual([['f03', 'f04', 'f05', 'f06']]);
    expect(broken.state.streak).toBe(0);
    const random = run(newScan(listed), ['f05', 'f13', 'f02', 'f19', 'f07'], 4);
    expect(random.fetched).toEqual([]);
    expect(run(newScan(listed), listed, 0).fetched).toEqual([]);
  });

  it('finds names in a sorted listing by the next index or by binary search', () => {
    expect(indexIn(listed, 'f05', 4)).toBe(5);
    expect(indexIn(listed, 'f17', 2)).toBe(17);
    expect(indexIn(listed, 'nope', 2)).toBe(-1);
  });
});
