// The MDS database in test/fixtures/disk/, written by an earlier commit (see
// test/fixtures/disk/manifest.json and scripts/make-disk-fixtures.mjs), opens with today's code:
// the MDS serves every namespace record as that commit served it, keeps its
// pools, and with the OSSs started on the fixture's OST folders every file
// reads back byte for byte through the client. A change to the database's
// records or keys fails here: it needs a migration.
import { createHash } from 'node:crypto';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeClient } from '../../client/index.js';
import { call } from '../../common/index.js';
import { adminFetch } from '../helpers/admin-http.js';
import { type StartedProcess, startProcess } from '../helpers/process.js';
import { type MdsUnderTest, startMds, stopMds, tempDir } from './helpers.js';

const FIXTURES = 'test/fixtures/disk';
const READY_TIMEOUT_MS = 30_000;

interface Manifest {
  writtenBy: { commit: string };
  pools: { id: number; pgCount: number; rule: unknown }[];
  namespace: { path: string; attr: { type: string } }[];
  files: { path: string; sha256: string }[];
  osts: { oss: string; host: string; id: number }[];
}

const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as Manifest;

describe(`the MDS database written by ${manifest.writtenBy.commit.slice(0, 12)}`, () => {
  const dir = tempDir('disk-fixtures');
  let mds: MdsUnderTest;
  const osss: StartedProcess[] = [];

  beforeAll(async () => {
    // Copies: opening a database rewrites its log.
    cpSync(FIXTURES, dir, { recursive: true });
    mds = await startMds(join(dir, 'mds'), {
      STRIPEFS_MDS_HEARTBEAT_INTERVAL_MS: '200',
      STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: '1000',
    });
    for (const [i, ost] of manifest.osts.entries()) {
      const env = {
        STRIPEFS_MDS: `127.0.0.1:${mds.proc.ready.grpcPort}`,
        STRIPEFS_OSS_ID: ost.oss,
        STRIPEFS_OSS_HOST: ost.host,
        STRIPEFS_OSS_RACK: `r${i}`,
        STRIPEFS_OSS_DATA_DIR: join(dir, ost.oss),
        STRIPEFS_OSS_OSTS: '1',
        STRIPEFS_MDS_HEARTBEAT_INTERVAL_MS: '200',
      };
      osss.push(await startProcess({ script: 'dist/oss/main.js', env }));
    }
  });

  afterAll(async () => {
    for (const p of osss) await p.stop();
    if (mds) await stopMds(mds, false);
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves every namespace record as it was written', async () => {
    const served: { path: string; attr: unknown }[] = [];
    served.push({ path: '/', attr: (await call(mds.client, 'Stat', { path: '/' })).attr });
    const walk = async (path: string): Promise<void> => {
      let cursor = '';
      do {
        const page = await call(mds.client, 'Readdir', { path, cursor, limit: 0, withAttrs: true });
        for (const entry of page.entries) {
          const child = path === '/' ? `/${entry.name}` : `${path}/${entry.name}`;
          served.push({ path: child, attr: entry.attr });
          // Stat by path answers the same record as the listing (a stat carries no data-path ticket).
          const stat = (await call(mds.client, 'Stat', { path: child })).attr;
          expect(stat, child).toEqual(entry.attr);
          if (entry.type === 'FILE_TYPE_DIRECTORY') await walk(child);
        }
        cursor = page.nextCursor;
      } while (cursor);
    };
    await walk('/');
    // Every field the old commit served, with the same value (Attr fields added since carry their defaults).
    expect(served).toMatchObject(manifest.namespace);
  });

  it('keeps its pools and OSTs, and the files read back byte for byte', async () => {
    const adminUrl = mds.adminUrl;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    let cluster: { counts: { up: number }; map: { pools: { id: number; pgCount: number; rule: unknown }[] } };
    for (;;) {
      cluster = (await (await adminFetch(`${adminUrl}/api/cluster`)).json()) as typeof cluster;
      if (cluster.counts.up === manifest.osts.length) break;
      if (Date.now() > deadline) throw new Error(`OSTs not up: ${JSON.stringify(cluster.counts)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Every field written then is served the same; fields added to the answer since may be there too.
    expect(cluster.map.pools.map((p) => ({ id: p.id, pgCount: p.pgCount, rule: p.rule }))).toMatchObject(
      manifest.pools,
    );
    expect(osss.map((p) => (p.ready.osts as { id: number }[])[0]?.id)).toEqual(
      manifest.osts.map((o) => o.id),
    );
    const client = await StripeClient.connect({ mds: `127.0.0.1:${mds.proc.ready.grpcPort}`, seed: 1 });
    try {
      expect(manifest.files.length).toBeGreaterThan(5);
      for (const file of manifest.files) {
        const data = await client.readFile(file.path);
        expect(createHash('sha256').update(data).digest('hex'), file.path).toBe(file.sha256);
      }
    } finally {
      await client.close();
    }
  });
});
