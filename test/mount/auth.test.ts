// A mount signs as the keyring it is given, and the caps of that identity
// bound what programs see through it: a keyring for /a reads and writes /a,
// and cannot list, read, write, remove or rename into /b, nor list the root
// (EACCES, the MDS's AUTH_DENIED); nothing stored changes and each refusal is
// in the audit log. A rotated key stops the mount's next call without a
// restart. Run by `npm run test:mount` (root and /dev/fuse).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeClient } from '../../client/index.js';
import { MdsClient } from '../../client/mds-client.js';
import { call } from '../../common/grpc.js';
import { runCli } from '../helpers/cli.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { tempDir } from '../mds/helpers.js';
import { MOUNT_HOOK_TIMEOUT_MS, type Mounted, mountCluster, mountSupport, sh } from './helpers.js';

const unsupported = mountSupport();
if (unsupported) console.warn(`SKIPPED test/mount/auth.test.ts: ${unsupported}`);

/** A command's exit and output (a refusal is an answer here, not an error). */
function tried(command: string): Promise<string> {
  return sh(`(${command}) 2>&1; echo "exit $?"`, { timeoutMs: 120_000 });
}

describe.skipIf(unsupported !== undefined)('a mount with a keyring for /a', () => {
  let cluster: Cluster;
  let admin: StripeClient;
  let mounted: Mounted;
  const dir = tempDir('mount-auth');
  const keyring = join(dir, 'mnt-a.keyring');

  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(2, 1, 1) });
    admin = await StripeClient.connect({ mds: cluster.mdsAddress });
    await admin.mkdir('/a');
    await admin.mkdir('/b');
    await admin.writeFile('/a/mine.txt', Buffer.from('mine\n'));
    await admin.writeFile('/b/secret.txt', Buffer.from('secret\n'));
    const added = await runCli([
      'auth',
      'add',
      'mnt-a',
      '--caps',
      'rw /a',
      '-o',
      keyring,
      '--mds',
      cluster.mdsAddress,
    ]);
    expect(added.code, added.stderr).toBe(0);
    mounted = await mountCluster(cluster.mdsAddress, [], { STRIPEFS_KEYRING: keyring });
  }, MOUNT_HOOK_TIMEOUT_MS);

  afterAll(async () => {
    await mounted?.stop();
    await admin?.close();
    await cluster?.stop();
  }, MOUNT_HOOK_TIMEOUT_MS);

  it('reads and writes /a, and cannot see or touch /b or list the root', async () => {
    const m = mounted.mountpoint;
    expect(await sh(`cat ${m}/a/mine.txt`)).toBe('mine\n');
    await sh(`echo written > ${m}/a/new.txt && ls ${m}/a`);
    expect((await admin.readFile('/a/new.txt')).toString()).toBe('written\n');
    const refused: [string, string][] = [
      ['list the root', `ls ${m}`],
      ['list /b', `ls ${m}/b`],
      ['read /b', `cat ${m}/b/secret.txt`],
      ['write into /b', `echo planted > ${m}/b/planted.txt`],
      ['remove from /b', `rm -f ${m}/b/secret.txt`],
      ['move into /b', `mv ${m}/a/mine.txt ${m}/b/mine.txt`],
      ['make /c', `mkdir ${m}/c`],
    ];
    for (const [what, command] of refused) {
      const out = await tried(command);
      expect(`${what}: ${/Permission denied/.test(out) && !out.endsWith('exit 0\n')}`, out).toBe(
        `${what}: true`,
      );
    }
    // Nothing stored changed.
    expect((await admin.readdir('/b')).sort()).toEqual(['secret.txt']);
    expect((await admin.readFile('/b/secret.txt')).toString()).toBe('secret\n');
    expect((await admin.readdir('/a')).sort()).toEqual(['mine.txt', 'new.txt']);
    expect((await admin.readdir('/')).sort()).not.toContain('c');
    // Each refusal is in the audit log under the mount's identity.
    const mds = new MdsClient(cluster.mdsAddress);
    try {
      const { lines } = await call(mds.grpc, 'ReadAudit', {
        limit: 1_000,
        contains: '',
        identity: 'mnt-a',
        op: '',
        result: 'AUTH_DENIED',
      });
      const paths = lines.flatMap((line) => (JSON.parse(line) as { paths: string[] }).paths);
      expect(paths).toEqual(expect.arrayContaining(['/', '/b', '/c']));
    } finally {
      mds.close();
    }
  });

  it("a rotated key stops the mount's next call, without a restart", async () => {
    const m = mounted.mountpoint;
    expect(await sh(`cat ${m}/a/mine.txt`)).toBe('mine\n');
    const rotated = await runCli([
      'auth',
      'rotate',
      'mnt-a',
      '-o',
      `${keyring}.rotated`,
      '--mds',
      cluster.mdsAddress,
    ]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const out = await tried(`cat ${m}/a/mine.txt`);
    expect(out).toMatch(/Permission denied/);
    expect(out.endsWith('exit 0\n')).toBe(false);
  });
});
