// Everyday programs on a stripefs mount (1 MDS, 6 OSSs, `stripefs mount` as
// root): cp -a in and out, tar c/x, rsync (twice: the second run finds
// nothing to do, so sizes and times came through), python3 open/seek/read,
// os.walk and os.stat against the local files, git init/add/commit/fsck,
// rename and unlink semantics with their errnos, layouts through
// getfattr/setfattr, and df. Run by `npm run test:mount`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { MOUNT_HOOK_TIMEOUT_MS, type Mounted, mountCluster, mountSupport, sh } from './helpers.js';
import { fingerprint, makeTree } from './tree.js';

const SEED = seedFromEnv();
const PYTHON = '/usr/bin/python3';
const unsupported = mountSupport();
if (unsupported) console.warn(`SKIPPED test/mount/tools.test.ts: ${unsupported}`);
else console.log(`mount tools seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

describe.skipIf(unsupported !== undefined)('programs on a stripefs mount', () => {
  let cluster: Cluster;
  let mounted: Mounted;
  let mnt: string;
  let work: string;
  let src: string;

  beforeAll(async () => {
    cluster = await startCluster();
    mounted = await mountCluster(cluster.mdsAddress);
    mnt = mounted.mountpoint;
    work = mkdtempSync(join(tmpdir(), 'stripefs-mount-work-'));
    src = join(work, 'src');
    makeTree(src, SEED);
  }, MOUNT_HOOK_TIMEOUT_MS);
  /** Runs a python3 script (Debian's, the one python3-torch installs for) with arguments; its stdout. */
  async function python(script: string, ...args: string[]): Promise<string> {
    const file = join(work, `script-${Math.random().toString(36).slice(2)}.py`);
    writeFileSync(file, script);
    return sh(`${PYTHON} ${file} ${args.join(' ')}`);
  }

  afterAll(async () => {
    await mounted?.stop();
    await cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, MOUNT_HOOK_TIMEOUT_MS);

  it('cp -a in and out keeps every byte, mode, mtime and symlink', async () => {
    await sh(`cp -a ${src} ${mnt}/cp`);
    expect(fingerprint(join(mnt, 'cp'))).toEqual(fingerprint(src));
    await sh(`cp -a ${mnt}/cp ${work}/cp-out`);
    expect(fingerprint(join(work, 'cp-out'))).toEqual(fingerprint(src));
    // sha256sum reads through the mount as a program would, and agrees with the local copy.
    const local = await sh('find . -type f -print0 | sort -z | xargs -0 sha256sum', { cwd: src });
    expect(await sh('find . -type f -print0 | sort -z | xargs -0 sha256sum', { cwd: `${mnt}/cp` })).toBe(
      local,
    );
  });

  it('tar c/x through the mount', async () => {
    await sh(`mkdir ${mnt}/tar && tar -C ${src} -cf - . | tar -C ${mnt}/tar -xf -`);
    expect(fingerprint(join(mnt, 'tar'))).toEqual(fingerprint(src));
    await sh(
      `tar -C ${mnt}/tar -cf ${work}/back.tar . && mkdir ${work}/tar-out && tar -C ${work}/tar-out -xf ${work}/back.tar`,
    );
    expect(fingerprint(join(work, 'tar-out'))).toEqual(fingerprint(src));
  });

  it('rsync -a in, then again with nothing to do, then out with checksums', async () => {
    await sh(`rsync -a ${src}/ ${mnt}/rsync/`);
    expect(fingerprint(join(mnt, 'rsync'))).toEqual(fingerprint(src));
    // Sizes and mtimes came through exactly: the second run transfers nothing.
    const again = await sh(`rsync -a --itemize-changes ${src}/ ${mnt}/rsync/`);
    expect(again.trim()).toBe('');
    await sh(`rsync -a --checksum ${mnt}/rsync/ ${work}/rsync-out/`);
    expect(fingerprint(join(work, 'rsync-out'))).toEqual(fingerprint(src));
  });

  it('python3: open/seek/read at many offsets, os.walk and os.stat agree with the local tree', async () => {
    await sh(`cp -a ${src} ${mnt}/py`);
    const script = `
import os, sys, json, random
src, mnt, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(seed)
reads = mismatches = 0
walked = []
for root, dirs, files in os.walk(mnt):
    dirs.sort()
    rel = os.path.relpath(root, mnt)
    for name in sorted(files):
        a, b = os.path.join(src, rel, name), os.path.join(root, name)
        sa, sb = os.lstat(a), os.lstat(b)
        walked.append(os.path.normpath(os.path.join(rel, name)))
        if (sa.st_size, sa.st_mode, int(sa.st_mtime)) != (sb.st_size, sb.st_mode, int(sb.st_mtime)):
            mismatches += 1
        if os.path.islink(b):
            continue
        with open(a, 'rb') as fa, open(b, 'rb') as fb:
            for _ in range(20):
                pos = rng.randrange(0, sa.st_size + 10) if sa.st_size else 0
                n = rng.choice([1, 100, 4096, 65536, 1 << 20])
                fa.seek(pos); fb.seek(pos)
                reads += 1
                if fa.read(n) != fb.read(n):
                    mismatches += 1
local = sorted(os.path.normpath(os.path.join(os.path.relpath(r, src), f)) for r, d, fs in os.walk(src) for f in fs)
print(json.dumps({"reads": reads, "mismatches": mismatches, "walked": sorted(walked) == local, "files": len(walked)}))
`;
    const out = JSON.parse(await python(script, src, `${mnt}/py`, String(SEED))) as {
      reads: number;
      mismatches: number;
      walked: boolean;
      files: number;
    };
    expect(out).toMatchObject({ mismatches: 0, walked: true });
    expect(out.files).toBe(37); // 36 files and the symlink
    expect(out.reads).toBe(36 * 20);
  });

  it('git init, add, commit, fsck and a clean status on the mount', async () => {
    const repo = `${mnt}/repo`;
    await sh(
      `mkdir ${repo} && cd ${repo} && git init -q && cp -a ${src}/a ${src}/d . && echo readme > README`,
    );
    const git = 'git -c user.name=stripefs -c user.email=test@stripefs -c core.fsyncObjectFiles=true';
    await sh(
      `${git} add -A && ${git} commit -q -m first && echo change >> README && ${git} commit -q -am second`,
      {
        cwd: repo,
      },
    );
    expect((await sh('git log --oneline', { cwd: repo })).trim().split('\n')).toHaveLength(2);
    await sh('git fsck --full --strict', { cwd: repo });
    expect(await sh('git status --porcelain', { cwd: repo })).toBe('');
    await sh(`git clone -q ${repo} ${work}/clone`);
    expect(await sh('sha256sum README a/f0.bin d/e/f1.bin', { cwd: `${work}/clone` })).toBe(
      await sh('sha256sum README a/f0.bin d/e/f1.bin', { cwd: repo }),
    );
  });

  it('rename and unlink semantics, with the errno each failure must have', async () => {
    const script = `
import os, errno, json, sys, time
m = sys.argv[1]
os.makedirs(m + '/sem/full/x')
def code(fn):
    try:
        fn(); return 'OK'
    except OSError as e:
        return errno.errorcode[e.errno]
out = {}
open(m + '/sem/a', 'w').write('A')
open(m + '/sem/b', 'w').write('B')
os.rename(m + '/sem/a', m + '/sem/b')                      # over an existing file
out['over'] = open(m + '/sem/b').read()
out['gone'] = code(lambda: os.stat(m + '/sem/a'))
os.mkdir(m + '/sem/d1'); open(m + '/sem/d1/f', 'w').write('F')
os.mkdir(m + '/sem/d2')
os.rename(m + '/sem/d1', m + '/sem/d2')                    # a directory over an empty one
out['dir'] = open(m + '/sem/d2/f').read()
out['notempty'] = code(lambda: os.rename(m + '/sem/d2', m + '/sem/full'))
out['rmdir'] = code(lambda: os.rmdir(m + '/sem/full'))
out['mkdir'] = code(lambda: os.mkdir(m + '/sem/full'))
out['excl'] = code(lambda: os.open(m + '/sem/b', os.O_CREAT | os.O_EXCL | os.O_WRONLY))
out['missing'] = code(lambda: open(m + '/sem/nope'))
out['isdir'] = code(lambda: os.unlink(m + '/sem/full'))
out['notdir'] = code(lambda: os.listdir(m + '/sem/b'))
out['hardlink'] = code(lambda: os.link(m + '/sem/b', m + '/sem/c'))
out['into'] = code(lambda: os.rename(m + '/sem/full', m + '/sem/full/x/y'))
# An open file that is unlinked stays readable through its descriptor.
f = open(m + '/sem/b', 'rb')
os.unlink(m + '/sem/b')
out['unlinked_read'] = f.read().decode()
f.close()
# The kernel hid the open file under a .fuse_hidden name; it goes once the release (asynchronous) is done.
for _ in range(100):
    out['listing'] = sorted(os.listdir(m + '/sem'))
    if out['listing'] == ['d2', 'full']:
        break
    time.sleep(0.1)
print(json.dumps(out))
`;
    const out = JSON.parse(await python(script, mnt));
    expect(out).toEqual({
      over: 'A',
      gone: 'ENOENT',
      dir: 'F',
      notempty: 'ENOTEMPTY',
      rmdir: 'ENOTEMPTY',
      mkdir: 'EEXIST',
      excl: 'EEXIST',
      missing: 'ENOENT',
      isdir: 'EISDIR',
      notdir: 'ENOTDIR',
      hardlink: 'EPERM',
      into: 'EINVAL',
      unlinked_read: 'A',
      listing: ['d2', 'full'],
    });
  });

  it('layouts through getfattr/setfattr: a directory default, inherited by new files; errors as errno', async () => {
    await sh(`mkdir ${mnt}/ec && setfattr -n user.stripefs.layout -v ec:4+2:host ${mnt}/ec`);
    expect(await sh(`getfattr --only-values -n user.stripefs.layout ${mnt}/ec`)).toBe('ec:4+2:host:1M');
    await sh(`cp ${src}/a/b/f5.bin ${mnt}/ec/file`);
    expect(await sh(`getfattr --only-values -n user.stripefs.layout ${mnt}/ec/file`)).toBe('ec:4+2:host:1M');
    await sh(`cmp ${src}/a/b/f5.bin ${mnt}/ec/file`);
    // The library sees the same layout.
    const client = await StripeClient.connect({ mds: cluster.mdsAddress });
    try {
      expect((await client.stat('/ec/file')).layout).toMatchObject({ pattern: 'ec', k: 4, m: 2 });
    } finally {
      await client.close();
    }
    // Stored attributes are listed; the layout is not (cp -a would copy it onto fixed files).
    await sh(`setfattr -n user.note -v hello ${mnt}/ec/file`);
    expect(await sh(`getfattr -d --absolute-names ${mnt}/ec/file`)).toContain('user.note="hello"');
    expect(await sh(`getfattr -d --absolute-names ${mnt}/ec/file`)).not.toContain('user.stripefs');
    await expect(sh(`setfattr -n user.stripefs.layout -v raid0:2 ${mnt}/ec/file`)).rejects.toThrow(
      /Operation not permitted/,
    );
    await expect(sh(`setfattr -n user.stripefs.layout -v nonsense ${mnt}/ec`)).rejects.toThrow(
      /Invalid argument/,
    );
    await expect(sh(`getfattr -n user.missing ${mnt}/ec/file`)).rejects.toThrow(/No such attribute/);
    // An ec file takes no overwrite in the middle: EROFS, and its bytes stay.
    await expect(sh(`printf x | dd of=${mnt}/ec/file bs=1 seek=10 conv=notrunc status=none`)).rejects.toThrow(
      /Read-only file system/,
    );
    await sh(`cmp ${src}/a/b/f5.bin ${mnt}/ec/file`);
  });

  it('df shows the cluster capacity; chmod, chown and touch -d land', async () => {
    const client = await StripeClient.connect({ mds: cluster.mdsAddress });
    try {
      const fs = await client.statfs();
      const [blocks, frsize] = (await sh(`stat -f -c '%b %S' ${mnt}`)).trim().split(' ').map(Number);
      // The OSTs' totals come with their heartbeats and move with the disk: within 1%.
      expect(Math.abs((blocks as number) * (frsize as number) - fs.totalBytes)).toBeLessThan(
        fs.totalBytes / 100,
      );
      expect(await sh(`df --output=target ${mnt}`)).toContain(mnt);
      // df -i: the entries in use are the MDS's count.
      const [inodes, free] = (await sh(`stat -f -c '%c %d' ${mnt}`)).trim().split(' ').map(Number);
      expect((inodes as number) - (free as number)).toBe((await client.statfs()).files);
    } finally {
      await client.close();
    }
    // chown before chmod: a chown clears the set-user-ID bit, as on any Linux file system.
    await sh(
      `touch ${mnt}/t && chown 123:456 ${mnt}/t && chmod 4750 ${mnt}/t && touch -m -d '2003-04-05 06:07:08' ${mnt}/t`,
    );
    expect((await sh(`stat -c '%a %u %g %Y' ${mnt}/t`)).trim()).toBe(
      `4750 123 456 ${Date.parse('2003-04-05T06:07:08') / 1000}`,
    );
    await sh(`ln -s t ${mnt}/t-link && test "$(readlink ${mnt}/t-link)" = t && test -L ${mnt}/t-link`);
  });

  it('the mount counts what it did (stripefs mount --stats)', async () => {
    const text = await sh(`node dist/cli/main.js mount --stats --run-dir ${mounted.runDir} ${mnt}`, {
      cwd: process.cwd(),
    });
    expect(text).toMatch(/read \d/);
    const json = JSON.parse(
      await sh(`node dist/cli/main.js mount --stats --json --run-dir ${mounted.runDir} ${mnt}`),
    ) as { ops: Record<string, { count: number }>; errnos: Record<string, number>; bytesWritten: number };
    for (const op of [
      'getattr',
      'readdir',
      'create',
      'write',
      'read',
      'flush',
      'rename',
      'unlink',
      'setxattr',
    ])
      expect(json.ops[op]?.count, op).toBeGreaterThan(0);
    expect(json.errnos.EROFS).toBeGreaterThanOrEqual(1);
    expect(json.bytesWritten).toBeGreaterThan(0);
    const metrics = await (await fetch(`${mounted.adminUrl}/metrics`)).text();
    expect(metrics).toMatch(/stripefs_mount_ops_total\{mountpoint="[^"]+",op="write"\} \d+/);
  });
});
