// npm run test:mount: the mount tests (test/mount/) with the real programs
// people use on a mount: cp, tar, rsync, python3, git, fio, getfattr/setfattr
// and PyTorch. They need root and /dev/fuse; without them this says so loudly
// and exits 0 (nothing is tested). Missing programs are installed from
// Debian's packages with apt-get; one that cannot be installed fails its test.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Waits for another apt-get or dpkg (another suite, unattended upgrades) instead of failing at once. */
const APT_LOCK_WAIT = ['-o', 'DPkg::Lock::Timeout=600'];
const PACKAGES = [
  { pkg: 'fuse3', has: () => existsSync('/usr/bin/fusermount3') || existsSync('/usr/bin/fusermount') },
  {
    pkg: 'libfuse2',
    has: () =>
      ['/usr/lib/x86_64-linux-gnu/libfuse.so.2', '/lib/x86_64-linux-gnu/libfuse.so.2'].some(existsSync),
  },
  { pkg: 'fio', has: () => existsSync('/usr/bin/fio') },
  { pkg: 'rsync', has: () => existsSync('/usr/bin/rsync') },
  { pkg: 'git', has: () => existsSync('/usr/bin/git') },
  { pkg: 'attr', has: () => existsSync('/usr/bin/getfattr') },
  {
    pkg: 'python3-torch',
    has: () => spawnSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore' }).status === 0,
  },
];

function skip(why) {
  const line = '='.repeat(78);
  console.error(`${line}\nSKIPPED: npm run test:mount did not run: ${why}\n${line}`);
  process.exit(0);
}

if (process.platform !== 'linux') skip(`FUSE mounts need Linux, this is ${process.platform}`);
if (process.getuid?.() !== 0) skip('the mount tests need root (sudo npm run test:mount)');
if (!existsSync('/dev/fuse'))
  skip('/dev/fuse is missing (modprobe fuse; in a container: --device /dev/fuse --cap-add SYS_ADMIN)');

const missing = PACKAGES.filter((p) => !p.has()).map((p) => p.pkg);
if (missing.length > 0) {
  console.error(`test:mount: installing ${missing.join(' ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', [...APT_LOCK_WAIT, 'update', '-qq'], { stdio: 'inherit', env });
  const install = spawnSync('apt-get', [...APT_LOCK_WAIT, 'install', '-y', '-qq', ...missing], {
    stdio: 'inherit',
    env,
  });
  if (update.status !== 0 || install.status !== 0)
    console.error(
      `test:mount: apt-get could not install ${missing.join(' ')}: the tests that need them will fail`,
    );
}
// The binding needs libfuse2 at build time (scripts/build-fuse.mjs): build again now it is there.
execFileSync('node', ['scripts/build-fuse.mjs', '--require'], { stdio: 'inherit' });
// Real programs moving real data on a shared machine: a test may take minutes (speed is benched, not tested).
const TEST_TIMEOUT_MS = 900_000;
const result = spawnSync(
  'npx',
  ['vitest', 'run', 'test/mount', `--testTimeout=${TEST_TIMEOUT_MS}`, ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    env: { ...process.env, STRIPEFS_TEST_MOUNT: '1' },
  },
);
process.exit(result.status ?? 1);
