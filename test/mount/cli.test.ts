// `stripefs mount` and `stripefs umount` as a user meets them: what each says
// when something it needs is missing (no /dev/fuse, a libfuse.so.2 that does
// not load, no mount point), a second mount on the same folder, Ctrl-C, and
// umount of a mount whose process was killed. Run by `npm run test:mount`.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { startProcess } from '../helpers/process.js';
import { CLI_SCRIPT, isMounted, MOUNT_HOOK_TIMEOUT_MS, mountCluster, mountSupport, sh } from './helpers.js';

const unsupported = mountSupport();
if (unsupported) console.warn(`SKIPPED test/mount/cli.test.ts: ${unsupported}`);

const LIBFUSE = ['/usr/lib/x86_64-linux-gnu/libfuse.so.2', '/lib/x86_64-linux-gnu/libfuse.so.2'].find((p) =>
  existsSync(p),
);

/** The CLI's exit and its stderr (a failure is an answer here, not an error). */
async function cli(command: string): Promise<string> {
  return sh(`${command} 2>&1; echo "exit $?"`, { timeoutMs: 120_000 });
}

describe.skipIf(unsupported !== undefined)('stripefs mount and umount on the command line', () => {
  let cluster: Cluster;
  let work: string;

  beforeAll(async () => {
    cluster = await startCluster();
    work = mkdtempSync(join(tmpdir(), 'stripefs-mount-cli-'));
  }, MOUNT_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, MOUNT_HOOK_TIMEOUT_MS);

  const mount = (mountpoint: string) =>
    `node ${CLI_SCRIPT} mount ${mountpoint} --mds ${cluster.mdsAddress} --run-dir ${work}/run`;

  it('names what is missing: no /dev/fuse, a libfuse.so.2 that does not load, no mount point', async () => {
    await sh(`mkdir -p ${work}/m`);
    // A private mount namespace hides /dev/fuse (an empty /dev) or the library (an empty file over it).
    const noDevice = await cli(`unshare -m sh -c 'mount -t tmpfs none /dev && ${mount(`${work}/m`)}'`);
    expect(noDevice).toContain('MOUNT_UNAVAILABLE (ENODEV): /dev/fuse is missing');
    expect(noDevice).toContain('exit 1');
    writeFileSync(join(work, 'empty.so'), '');
    const noLibrary = await cli(
      `unshare -m sh -c 'mount --bind ${work}/empty.so ${LIBFUSE} && ${mount(`${work}/m`)}'`,
    );
    expect(noLibrary).toMatch(
      /MOUNT_UNAVAILABLE \(ENODEV\): libfuse\.so\.2 did not load .*apt-get install --reinstall libfuse2/,
    );
    const noFolder = await cli(mount(`${work}/nowhere`));
    expect(noFolder).toContain(
      `MOUNT_POINT_INVALID (ENOTDIR): ${work}/nowhere does not exist: mkdir it first`,
    );
    // Nothing was left mounted by the failures.
    expect(isMounted(`${work}/m`)).toBe(false);
  });

  it('a second mount on the same folder is refused; Ctrl-C unmounts', async () => {
    const first = await mountCluster(cluster.mdsAddress);
    try {
      const second = await cli(
        `node ${CLI_SCRIPT} mount ${first.mountpoint} --mds ${cluster.mdsAddress} --run-dir ${first.runDir}`,
      );
      expect(second).toContain('MOUNT_POINT_INVALID (ENOTDIR)');
      expect(second).toContain('already a mount point');
      first.process.child.kill('SIGINT');
      expect((await first.process.exited).code).toBe(0);
      expect(isMounted(first.mountpoint)).toBe(false);
    } finally {
      await first.stop();
    }
  });

  it('umount of a mount whose process was SIGKILLed detaches it', async () => {
    const victim = await mountCluster(cluster.mdsAddress);
    try {
      await victim.process.kill('SIGKILL');
      // The kernel still has it mounted, with nobody answering.
      expect(isMounted(victim.mountpoint)).toBe(true);
      await expect(sh(`ls ${victim.mountpoint}`)).rejects.toThrow(/Transport endpoint is not connected/);
      expect(
        await cli(`node ${CLI_SCRIPT} umount --run-dir ${victim.runDir} ${victim.mountpoint}`),
      ).toContain('exit 0');
      expect(isMounted(victim.mountpoint)).toBe(false);
      // And it mounts again on the same folder.
      const again = await startProcess({
        script: CLI_SCRIPT,
        args: ['mount', victim.mountpoint, '--mds', cluster.mdsAddress, '--run-dir', victim.runDir, '--json'],
      });
      expect(isMounted(victim.mountpoint)).toBe(true);
      await again.stop(30_000);
    } finally {
      await victim.stop();
    }
  });
});
