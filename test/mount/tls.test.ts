// A mount of a cluster that serves TLS only: `stripefs mount` given the CA
// (STRIPEFS_TLS_CA, as the CLI and library take it) carries every call and
// every data request over TLS, so shell tools read and write through it and
// the library reads the same bytes back; without the CA the mount refuses to
// start with TLS_REQUIRED and says what to set. Run by `npm run test:mount`
// (root and /dev/fuse).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { DEFAULT_TLS_CA_PATH } from '../../common/tls.js';
import { ensureTlsFiles } from '../../common/tls-files.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { tempDir } from '../mds/helpers.js';
import { MOUNT_HOOK_TIMEOUT_MS, type Mounted, mountCluster, mountSupport, sh } from './helpers.js';

const unsupported = mountSupport();
if (unsupported) console.warn(`SKIPPED test/mount/tls.test.ts: ${unsupported}`);
const SEED = seedFromEnv();
const MiB = 1024 * 1024;

describe.skipIf(unsupported !== undefined)('a mount of a TLS-only cluster', () => {
  let cluster: Cluster;
  let client: StripeClient;
  let mounted: Mounted;
  const dir = tempDir('mount-tls');
  const files = ensureTlsFiles(join(dir, 'tls'));

  beforeAll(async () => {
    cluster = await startCluster({ tls: files, oss: rackLayout(2, 1, 1) });
    client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED, tls: cluster.tls });
    mounted = await mountCluster(cluster.mdsAddress, [], { STRIPEFS_TLS_CA: files.caFile });
  }, MOUNT_HOOK_TIMEOUT_MS);

  afterAll(async () => {
    await mounted?.stop();
    await client?.close();
    await cluster?.stop();
  }, MOUNT_HOOK_TIMEOUT_MS);

  it('moves bytes both ways between shell tools and the library', async () => {
    const m = mounted.mountpoint;
    const source = join(dir, 'source.bin');
    const data = seededBytes(9 * MiB + 123, SEED);
    await client.writeFile('/from-library.bin', data, {
      layout: { pattern: 'replicated', stripeSize: MiB, stripeCount: 2, replicas: 2, failureDomain: 'host' },
    });
    const sha = createHash('sha256').update(data).digest('hex');
    expect((await sh(`sha256sum ${m}/from-library.bin`)).split(' ')[0]).toBe(sha);
    await sh(`cp ${m}/from-library.bin ${source} && cp ${source} ${m}/from-shell.bin && sync`);
    expect((await client.readFile('/from-shell.bin')).equals(data)).toBe(true);
    expect((await sh(`ls ${m}`)).split('\n').filter(Boolean).sort()).toEqual([
      'from-library.bin',
      'from-shell.bin',
    ]);
  });

  it('without the CA the mount does not start, and says TLS_REQUIRED', async () => {
    // No CA setting: the mount speaks plain TCP to the TLS ports, unless this folder holds the CA
    // of a cluster started here with --tls, which is not this cluster's (then TLS_UNTRUSTED).
    const expected = existsSync(DEFAULT_TLS_CA_PATH) ? 'TLS_UNTRUSTED' : 'TLS_REQUIRED';
    const refused = await mountCluster(cluster.mdsAddress, [], { STRIPEFS_TLS_CA: '' }).then(
      async (m) => {
        await m.stop();
        return 'mounted';
      },
      (err: Error) => err.message,
    );
    expect(refused).toContain(expected);
  });
});
