// The OSS's shared read handles on real files: reused while in use and
// shortly after, one per path and flags, closed when dropped (at once, or
// when the last reader lets go), when idle, and beyond the cap; a failed
// open is not cached.
import { constants, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { READ_HANDLE_IDLE_MS, ReadHandles } from '../../oss/store/read-handles.js';
import { eventually } from '../helpers/eventually.js';
import { tempDir } from './helpers.js';

const tmp = tempDir('stripefs-read-handles-');
afterAll(() => tmp.remove());

function file(name: string, text: string): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, text);
  return path;
}

async function isClosed(fh: { stat(): Promise<unknown> }): Promise<boolean> {
  return fh.stat().then(
    () => false,
    (err: NodeJS.ErrnoException) => err.code === 'EBADF',
  );
}

/** A handle is closed on the thread pool, after the call that let it go returned. */
function closed(fh: { stat(): Promise<unknown> }, what: string): Promise<boolean> {
  return eventually(() => isClosed(fh), { timeoutMs: 10_000, what, intervalMs: 10 });
}

describe('read handles', () => {
  it('shares one open handle per path and flags, and closes a dropped one after its last reader', async () => {
    const handles = new ReadHandles(8);
    const a = file('a', 'first');
    const one = await handles.acquire(a, constants.O_RDONLY);
    const two = await handles.acquire(a, constants.O_RDONLY);
    expect(two.fh).toBe(one.fh);
    expect(handles.counts).toEqual({ reused: 1, opened: 1 });
    one.release();
    handles.drop(a);
    expect(handles.size).toBe(0);
    expect(await isClosed(two.fh)).toBe(false); // still in use
    two.release();
    await closed(two.fh, 'the dropped handle closed after its last release');
    const three = await handles.acquire(a, constants.O_RDONLY);
    expect(three.fh).not.toBe(two.fh);
    three.release();
    await handles.closeAll();
    expect(await isClosed(three.fh)).toBe(true);
  });

  it('closes idle handles, keeps at most its cap, and does not cache a failed open', async () => {
    const handles = new ReadHandles(2);
    const held = [];
    for (const name of ['x', 'y', 'z']) {
      const h = await handles.acquire(file(name, name), constants.O_RDONLY);
      h.release();
      held.push(h);
    }
    expect(handles.size).toBe(2);
    await closed(held[0]!.fh, 'the least recently used handle closed beyond the cap');
    const missing = join(tmp.dir, 'missing');
    await expect(handles.acquire(missing, constants.O_RDONLY)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(handles.size).toBe(2);
    await eventually(() => handles.size === 0, {
      timeoutMs: 20 * READ_HANDLE_IDLE_MS,
      what: 'idle handles closed by the sweeper',
    });
    await closed(held[2]!.fh, 'the idle handle closed');
  });

  it('a handle used again is the last to go', async () => {
    const handles = new ReadHandles(2);
    const x = await handles.acquire(file('x2', 'x'), constants.O_RDONLY);
    x.release();
    const y = await handles.acquire(file('y2', 'y'), constants.O_RDONLY);
    y.release();
    (await handles.acquire(file('x2', 'x'), constants.O_RDONLY)).release(); // x is now the most recent
    const busy = await handles.acquire(file('z2', 'z'), constants.O_RDONLY); // held while over the cap
    busy.release();
    await closed(y.fh, 'the least recently used handle closed');
    expect(await isClosed(x.fh)).toBe(false);
    expect(handles.size).toBe(2);
    await handles.closeAll();
  });
});
