// Namespace calls and layouts through the client against a real MDS process
// (no OSS needed: empty files have no objects).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeClient } from '../../client/index.js';
import { MDS_SCRIPT } from '../helpers/cluster.js';
import { type StartedProcess, startProcess } from '../helpers/process.js';

describe('client namespace against a real MDS', () => {
  let mds: StartedProcess;
  let client: StripeClient;
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-ns-'));

  beforeAll(async () => {
    mds = await startProcess({
      script: MDS_SCRIPT,
      env: {
        STRIPEFS_MDS_GRPC_PORT: '0',
        STRIPEFS_MDS_ADMIN_PORT: '0',
        STRIPEFS_MDS_DATA_DIR: join(dir, 'mds'),
      },
    });
    client = await StripeClient.connect({ mds: `127.0.0.1:${mds.ready.grpcPort}` });
  });
  afterAll(async () => {
    await client?.close();
    await mds?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('mkdir, readdir, stat, rename, rmdir, with fs-like errors', async () => {
    await client.mkdir('/a/b', { recursive: true });
    await client.mkdir('/a/c');
    expect((await client.readdir('/a')).sort()).toEqual(['b', 'c']);
    expect((await client.stat('/a/b')).isDirectory()).toBe(true);
    await client.rename('/a/c', '/a/d');
    expect((await client.readdir('/a')).sort()).toEqual(['b', 'd']);
    await expect(client.stat('/a/c')).rejects.toMatchObject({ code: 'NS_NOT_FOUND', errno: 'ENOENT' });
    await expect(client.rmdir('/a')).rejects.toMatchObject({ code: 'NS_NOT_EMPTY' });
    await client.rmdir('/a/b');
    await client.rmdir('/a/d');
    await client.rmdir('/a');
    expect(await client.readdir('/')).toEqual([]);
  });

  it('listPage pages a directory from any name, with attributes; rename with noReplace refuses to replace', async () => {
    for (const name of ['e', 'c', 'a', 'd', 'b']) await client.mkdir(`/p/${name}`, { recursive: true });
    const first = await client.listPage('/p', { limit: 2 });
    expect(first.entries.map((e) => e.name)).toEqual(['a', 'b']);
    expect(first.entries.every((e) => e.stat.isDirectory())).toBe(true);
    expect(first.next).toBe('b');
    const second = await client.listPage('/p', { after: first.next, limit: 2 });
    expect(second.entries.map((e) => e.name)).toEqual(['c', 'd']);
    // Any string is a starting point, not only a listed name.
    expect((await client.listPage('/p', { after: 'bz' })).entries.map((e) => e.name)).toEqual([
      'c',
      'd',
      'e',
    ]);
    const last = await client.listPage('/p', { after: 'd', limit: 2 });
    expect(last).toMatchObject({ next: undefined });
    expect(last.entries.map((e) => e.name)).toEqual(['e']);
    await expect(client.rename('/p/a', '/p/b', { noReplace: true })).rejects.toMatchObject({
      code: 'NS_EXISTS',
    });
    await client.rename('/p/a', '/p/b'); // an empty directory is replaced without noReplace
    expect((await client.readdir('/p')).sort()).toEqual(['b', 'c', 'd', 'e']);
  });

  it('setLayout on a directory shows in getLayout and stat; creating a file without OSTs fails with a code', async () => {
    const ec = { pattern: 'ec', stripeSize: 1 << 20, k: 4, m: 2, failureDomain: 'host' } as const;
    await client.mkdir('/ec');
    await client.setLayout('/ec', ec);
    expect((await client.getLayout('/ec')).layout).toEqual(ec);
    expect((await client.stat('/ec')).layout).toEqual(ec);
    const err = await client.writeFile('/ec/x', Buffer.alloc(0)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: expect.stringMatching(/^(MAP_|LAYOUT_)/) });
  });
});
