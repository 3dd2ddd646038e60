// Namespace calls and layouts through the client against a real MDS process
// (no OSS needed: empty files have no objects).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeClient } from '../../client/index.js';
import { type StartedProcess, startProcess } from '../helpers/process.js';
import { MDS_SCRIPT } from './cluster.js';

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
