// The client's attribute surface on a real cluster (1 MDS, 6 OSSs): truncate
// of every layout (objects cut on every copy, so a file grown again reads
// zeros, checked by a second client with a cold cache), the ec truncate
// rules, ftruncate on an open handle, setAttr, extended attributes with the
// layout attribute, symlinks and statfs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';

const SEED = seedFromEnv();
console.log(`client attributes seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const LAYOUTS: Record<string, Layout> = {
  raid0x4: { pattern: 'raid0', stripeSize: S, stripeCount: 4 },
  rep3: { pattern: 'replicated', stripeSize: S, stripeCount: 2, replicas: 3, failureDomain: 'host' },
};
const EC: Layout = { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' };

describe('client attributes on a real cluster', () => {
  let cluster: Cluster;
  let client: StripeClient;
  /** Reads with a cold cache: what the OSSs hold, not what this test's client cached. */
  let cold: () => Promise<StripeClient>;

  beforeAll(async () => {
    cluster = await startCluster();
    client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    cold = () => StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  async function readCold(path: string): Promise<Buffer> {
    const other = await cold();
    try {
      return await other.readFile(path);
    } finally {
      await other.close();
    }
  }

  for (const [name, layout] of Object.entries(LAYOUTS)) {
    it(`${name}: truncate shrinks, and a file grown again reads zeros past the cut`, async () => {
      const data = seededBytes(9 * S + 123, SEED + 1);
      const path = `/t-${name}`;
      await client.writeFile(path, data, { layout });
      const cutAt = 2 * S + 77; // inside the third unit: one object keeps part of a unit, others lose whole ones
      await client.truncate(path, cutAt);
      expect((await client.stat(path)).size).toBe(cutAt);
      expect((await client.readFile(path)).equals(data.subarray(0, cutAt))).toBe(true);
      expect((await readCold(path)).equals(data.subarray(0, cutAt))).toBe(true);
      await client.truncate(path, 7 * S);
      const grown = Buffer.concat([data.subarray(0, cutAt), Buffer.alloc(7 * S - cutAt)]);
      expect((await client.readFile(path)).equals(grown)).toBe(true);
      expect((await readCold(path)).equals(grown)).toBe(true);
      await client.truncate(path, 0);
      expect((await client.stat(path)).size).toBe(0);
      await client.truncate(path, S);
      expect((await readCold(path)).equals(Buffer.alloc(S))).toBe(true);
    });
  }

  it('ec: truncate to a stripe boundary or 0; growing or cutting inside a stripe is refused, nothing lost', async () => {
    const stripe = 4 * S;
    const data = seededBytes(3 * stripe + 1000, SEED + 2);
    await client.writeFile('/ec', data, { layout: EC });
    await expect(client.truncate('/ec', stripe + 5)).rejects.toMatchObject({ code: 'LAYOUT_READ_ONLY' });
    await expect(client.truncate('/ec', data.length + 1)).rejects.toMatchObject({ code: 'LAYOUT_READ_ONLY' });
    expect((await readCold('/ec')).equals(data)).toBe(true);
    await client.truncate('/ec', 2 * stripe);
    expect((await readCold('/ec')).equals(data.subarray(0, 2 * stripe))).toBe(true);
    // Appending after the cut re-encodes from the boundary.
    const more = seededBytes(stripe + 4321, SEED + 3);
    const handle = await client.open('/ec', 'a');
    await handle.write(more);
    await handle.close();
    expect((await readCold('/ec')).equals(Buffer.concat([data.subarray(0, 2 * stripe), more]))).toBe(true);
    await client.truncate('/ec', 0);
    expect((await readCold('/ec')).length).toBe(0);
  });

  it('handle.truncate (ftruncate): earlier writes are kept up to the cut, later writes land after it', async () => {
    const data = seededBytes(5 * S, SEED + 4);
    const handle = await client.open('/ft', 'w', { layout: LAYOUTS.raid0x4 });
    await handle.write(data, 0, data.length, 0);
    await handle.truncate(S + 10);
    expect(handle.size).toBe(S + 10);
    expect((await client.stat('/ft')).size).toBe(S + 10);
    const tail = seededBytes(1000, SEED + 5);
    await handle.write(tail, 0, tail.length, 3 * S);
    const back = Buffer.alloc(3 * S + 1000);
    const { bytesRead } = await handle.read(back, 0, back.length, 0);
    expect(bytesRead).toBe(back.length);
    await handle.close();
    const expected = Buffer.concat([data.subarray(0, S + 10), Buffer.alloc(2 * S - 10), tail]);
    expect(back.equals(expected)).toBe(true);
    expect((await readCold('/ft')).equals(expected)).toBe(true);
    const reader = await client.open('/ft', 'r');
    await expect(reader.truncate(0)).rejects.toMatchObject({ code: 'REQ_INVALID' });
    await reader.close();
    await expect(client.truncate('/ft', -1)).rejects.toMatchObject({ code: 'REQ_INVALID' });
    await expect(client.truncate('/', 0)).rejects.toMatchObject({ code: 'NS_IS_DIR' });
  });

  it('setAttr, xattrs with the layout attribute, symlinks and statfs through the client', async () => {
    await client.mkdir('/attrs', { mode: 0o750, uid: 10, gid: 20 });
    expect(await client.stat('/attrs')).toMatchObject({ mode: 0o040750, uid: 10, gid: 20 });
    const handle = await client.open('/attrs/f', 'w', { mode: 0o600, uid: 11 });
    await handle.write(Buffer.from('hello'));
    await handle.close();
    const st = await client.setAttr('/attrs/f', {
      mode: 0o640,
      gid: 21,
      mtimeMs: 1_000_000,
      atimeMs: 2_000_000,
    });
    expect(st).toMatchObject({
      mode: 0o100640,
      uid: 11,
      gid: 21,
      mtimeMs: 1_000_000,
      atimeMs: 2_000_000,
      size: 5,
    });

    await client.setXattr('/attrs/f', 'user.tag', 'v1');
    await expect(client.setXattr('/attrs/f', 'user.tag', 'v2', { create: true })).rejects.toMatchObject({
      code: 'XATTR_EXISTS',
      errno: 'EEXIST',
    });
    await expect(client.setXattr('/attrs/f', 'user.new', 'x', { replace: true })).rejects.toMatchObject({
      code: 'XATTR_NOT_FOUND',
      errno: 'ENODATA',
    });
    await expect(
      client.setXattr('/attrs/f', 'user.x', 'x', { create: true, replace: true }),
    ).rejects.toMatchObject({ code: 'REQ_INVALID' });
    expect((await client.getXattr('/attrs/f', 'user.tag')).toString()).toBe('v1');
    expect(await client.listXattrs('/attrs/f')).toEqual(['user.tag']);
    await client.removeXattr('/attrs/f', 'user.tag');
    expect(await client.listXattrs('/attrs/f')).toEqual([]);

    await client.setXattr('/attrs', 'user.stripefs.layout', 'replicated:2:host');
    expect((await client.stat('/attrs')).layout).toMatchObject({ pattern: 'replicated', replicas: 2 });
    await client.writeFile('/attrs/r', 'replicated bytes');
    expect((await client.getXattr('/attrs/r', 'user.stripefs.layout')).toString()).toBe(
      'replicated:2:host:1:1M',
    );
    expect((await client.getLayout('/attrs/r')).layout).toMatchObject({ pattern: 'replicated', replicas: 2 });

    await client.symlink('r', '/attrs/link');
    expect(await client.readlink('/attrs/link')).toBe('r');
    const link = await client.lstat('/attrs/link');
    expect(link.isSymbolicLink()).toBe(true);
    expect(link.symlinkTarget).toBe('r');
    expect(link.layout).toBeUndefined();
    await expect(client.readFile('/attrs/link')).rejects.toMatchObject({
      code: 'NS_IS_SYMLINK',
      errno: 'ELOOP',
    });
    await expect(client.readlink('/attrs/r')).rejects.toMatchObject({ code: 'NS_NOT_SYMLINK' });
    await expect(client.readFile('/attrs')).rejects.toMatchObject({ code: 'NS_IS_DIR' });

    const fs = await client.statfs();
    expect(fs.ostsIn).toBe(12);
    expect(fs.ostsUp).toBe(12);
    expect(fs.totalBytes).toBeGreaterThan(0);
    expect(fs.usedBytes).toBeGreaterThan(0);
    expect(fs.availableBytes).toBe(fs.totalBytes - fs.usedBytes);
    expect(fs.files).toBe(9); // the root and the 8 entries this file made and kept
  });
});
