// The attribute surface a mount and a gateway need, against a real MDS
// process over gRPC: setattr (chmod, chown, utimens), extended attributes
// with their limits and the layout attribute, symlinks, statfs counts; and
// that all of it survives an MDS restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, LIMITS } from '../../common/index.js';
import { codeOf } from '../helpers/errors.js';
import { type MdsUnderTest, registerOss, startMds, stopMds, tempDir } from './helpers.js';

let mds: MdsUnderTest;
const c = () => mds.client;
const xattr = (path: string, name: string) => call(c(), 'GetXattr', { path, name });
const names = async (path: string) => (await call(c(), 'ListXattrs', { path })).names;

beforeAll(async () => {
  mds = await startMds(tempDir('mds-attrs'));
  for (let h = 0; h < 6; h++) await registerOss(c(), { ossId: `oss-${h}`, host: `h${h}`, osts: 1 });
});
afterAll(async () => {
  await stopMds(mds);
});

describe('attributes at the MDS', () => {
  it('create and mkdir take mode and owner; setattr changes only what is flagged', async () => {
    const dir = await call(c(), 'Mkdir', { path: '/own', mode: 0o700, uid: 1000, gid: 100 });
    expect(dir.attr).toMatchObject({ mode: 0o040700, uid: 1000, gid: 100 });
    const file = await call(c(), 'Create', { path: '/own/f', mode: 0o600, uid: 1000, gid: 100 });
    expect(file.attr).toMatchObject({ mode: 0o100600, uid: 1000, gid: 100, type: 'FILE_TYPE_FILE' });
    const plain = await call(c(), 'Create', { path: '/own/plain' });
    expect(plain.attr).toMatchObject({ mode: 0o100644, uid: 0, gid: 0 });
    expect(plain.attr?.atimeMs).toBe(plain.attr?.mtimeMs);

    const chmod = await call(c(), 'SetAttr', { path: '/own/f', setMode: true, mode: 0o4755 });
    expect(chmod.attr).toMatchObject({ mode: 0o104755, uid: 1000, gid: 100 });
    const chmodZero = await call(c(), 'SetAttr', { path: '/own/f', setMode: true, mode: 0 });
    expect(chmodZero.attr?.mode).toBe(0o100000);
    const chown = await call(c(), 'SetAttr', { path: '/own/f', setUid: true, uid: 7, setGid: true, gid: 8 });
    expect(chown.attr).toMatchObject({ mode: 0o100000, uid: 7, gid: 8 });
    const times = await call(c(), 'SetAttr', {
      path: '/own/f',
      setMtime: true,
      mtimeMs: 1_500_000_000_123,
      setAtime: true,
      atimeMs: 1_400_000_000_456,
    });
    expect(times.attr).toMatchObject({ mtimeMs: 1_500_000_000_123, atimeMs: 1_400_000_000_456, uid: 7 });
    expect(times.attr!.ctimeMs).toBeGreaterThan(1_500_000_000_123);
    // A commit (a writer's close) keeps the owner, mode and atime.
    const committed = await call(c(), 'Commit', {
      inode: file.attr!.inode,
      size: 10,
      mtimeMs: 1_600_000_000_000,
    });
    expect(committed.attr).toMatchObject({
      size: 10,
      uid: 7,
      gid: 8,
      mode: 0o100000,
      atimeMs: 1_400_000_000_456,
    });
    // The listing carries the same attributes.
    const listed = await call(c(), 'Readdir', { path: '/own', withAttrs: true });
    expect(listed.entries.find((e) => e.name === 'f')?.attr).toMatchObject({ uid: 7, mode: 0o100000 });

    expect(await codeOf(call(c(), 'SetAttr', { path: '/own/missing', setMode: true, mode: 0o644 }))).toBe(
      'NS_NOT_FOUND',
    );
    expect(await codeOf(call(c(), 'SetAttr', { path: '/own/f', setUid: true, uid: 0xffff_ffff }))).toBe(
      'REQ_INVALID',
    );
    // The root can be changed too (a mount's chmod of its top).
    const root = await call(c(), 'SetAttr', { path: '/', setMode: true, mode: 0o1777 });
    expect(root.attr?.mode).toBe(0o041777);
  });

  it('extended attributes: set, get, list, remove, create/replace modes and every limit', async () => {
    await call(c(), 'Create', { path: '/x' });
    const value = Buffer.from([0, 1, 2, 255, 0]);
    await call(c(), 'SetXattr', { path: '/x', name: 'user.bin', value });
    expect((await xattr('/x', 'user.bin')).value).toEqual(value);
    await call(c(), 'SetXattr', { path: '/x', name: 'trusted.t', value: Buffer.from('t') });
    await call(c(), 'SetXattr', { path: '/x', name: 'security.s', value: Buffer.alloc(0) });
    expect((await xattr('/x', 'security.s')).value.length).toBe(0);
    expect(await names('/x')).toEqual(['security.s', 'trusted.t', 'user.bin']);

    expect(
      await codeOf(
        call(c(), 'SetXattr', { path: '/x', name: 'user.bin', value, mode: 'XATTR_SET_MODE_CREATE' }),
      ),
    ).toBe('XATTR_EXISTS');
    expect(
      await codeOf(
        call(c(), 'SetXattr', { path: '/x', name: 'user.no', value, mode: 'XATTR_SET_MODE_REPLACE' }),
      ),
    ).toBe('XATTR_NOT_FOUND');
    await call(c(), 'SetXattr', {
      path: '/x',
      name: 'user.bin',
      value: Buffer.from('new'),
      mode: 'XATTR_SET_MODE_REPLACE',
    });
    expect((await xattr('/x', 'user.bin')).value.toString()).toBe('new');

    expect(await codeOf(xattr('/x', 'user.none'))).toBe('XATTR_NOT_FOUND');
    expect(await codeOf(xattr('/nope', 'user.bin'))).toBe('NS_NOT_FOUND');
    expect(await codeOf(call(c(), 'SetXattr', { path: '/x', name: 'system.posix_acl_access', value }))).toBe(
      'XATTR_NOT_SUPPORTED',
    );
    expect(await codeOf(call(c(), 'SetXattr', { path: '/x', name: 'noprefix', value }))).toBe(
      'XATTR_NOT_SUPPORTED',
    );
    expect(await codeOf(call(c(), 'SetXattr', { path: '/x', name: 'user.stripefs.other', value }))).toBe(
      'XATTR_NOT_SUPPORTED',
    );
    expect(await codeOf(call(c(), 'SetXattr', { path: '/x', name: 'user.', value }))).toBe('REQ_INVALID');
    expect(await codeOf(call(c(), 'SetXattr', { path: '/x', name: '', value }))).toBe('REQ_INVALID');
    const longName = `user.${'n'.repeat(LIMITS.xattrNameBytesMax)}`;
    expect(await codeOf(call(c(), 'SetXattr', { path: '/x', name: longName, value }))).toBe(
      'XATTR_NAME_TOO_LONG',
    );
    const big = Buffer.alloc(LIMITS.xattrValueBytesMax + 1);
    expect(await codeOf(call(c(), 'SetXattr', { path: '/x', name: 'user.big', value: big }))).toBe(
      'XATTR_TOO_LARGE',
    );
    // The largest value is accepted; the entry's total is bounded too.
    const max = Buffer.alloc(LIMITS.xattrValueBytesMax, 7);
    const fit = Math.floor(LIMITS.xattrTotalBytesMax / (LIMITS.xattrValueBytesMax + 16));
    for (let i = 0; i < fit; i++) await call(c(), 'SetXattr', { path: '/x', name: `user.m${i}`, value: max });
    expect((await xattr('/x', 'user.m0')).value).toEqual(max);
    expect(await codeOf(call(c(), 'SetXattr', { path: '/x', name: `user.m${fit}`, value: max }))).toBe(
      'XATTR_TOO_LARGE',
    );
    // Count limit on another entry.
    await call(c(), 'Create', { path: '/many' });
    for (let i = 0; i < LIMITS.xattrCountMax; i++)
      await call(c(), 'SetXattr', { path: '/many', name: `user.a${i}`, value: Buffer.from('v') });
    expect(await codeOf(call(c(), 'SetXattr', { path: '/many', name: 'user.one-more', value }))).toBe(
      'XATTR_TOO_MANY',
    );
    // Nothing refused was stored.
    expect((await names('/x')).filter((n) => !n.startsWith('user.m'))).toEqual([
      'security.s',
      'trusted.t',
      'user.bin',
    ]);

    await call(c(), 'RemoveXattr', { path: '/x', name: 'trusted.t' });
    expect(await codeOf(xattr('/x', 'trusted.t'))).toBe('XATTR_NOT_FOUND');
    expect(await codeOf(call(c(), 'RemoveXattr', { path: '/x', name: 'trusted.t' }))).toBe('XATTR_NOT_FOUND');
    expect(await names('/x')).not.toContain('trusted.t');
  });

  it('attributes follow a rename and go with their entry: unlink, rename over, create truncate', async () => {
    await call(c(), 'Mkdir', { path: '/mv' });
    await call(c(), 'Create', { path: '/mv/a' });
    await call(c(), 'SetXattr', { path: '/mv/a', name: 'user.k', value: Buffer.from('a') });
    await call(c(), 'Rename', { fromPath: '/mv/a', toPath: '/mv/b' });
    expect((await xattr('/mv/b', 'user.k')).value.toString()).toBe('a');
    await call(c(), 'Create', { path: '/mv/c' });
    await call(c(), 'SetXattr', { path: '/mv/c', name: 'user.k', value: Buffer.from('c') });
    await call(c(), 'Rename', { fromPath: '/mv/b', toPath: '/mv/c' });
    expect((await xattr('/mv/c', 'user.k')).value.toString()).toBe('a');
    await call(c(), 'Unlink', { path: '/mv/c' });
    await call(c(), 'Create', { path: '/mv/c' });
    expect(await names('/mv/c')).toEqual([]);
    await call(c(), 'SetXattr', { path: '/mv/c', name: 'user.k', value: Buffer.from('c') });
    await call(c(), 'Create', { path: '/mv/c', truncate: true });
    expect(await names('/mv/c')).toEqual([]);
    // Directories hold attributes too, and rmdir takes them.
    await call(c(), 'Mkdir', { path: '/mv/d' });
    await call(c(), 'SetXattr', { path: '/mv/d', name: 'user.dir', value: Buffer.from('d') });
    expect(await names('/mv/d')).toEqual(['user.dir']);
    await call(c(), 'Rmdir', { path: '/mv/d' });
    await call(c(), 'Mkdir', { path: '/mv/d' });
    expect(await names('/mv/d')).toEqual([]);
  });

  it('create sets extended attributes on the file it makes, checked as SetXattr checks them', async () => {
    await call(c(), 'Mkdir', { path: '/cx' });
    const meta = Buffer.from('{"etag":"d41d8cd98f00b204e9800998ecf8427e"}');
    await call(c(), 'Create', {
      path: '/cx/a',
      exclusive: true,
      xattrs: [
        { name: 'user.s3.object', value: meta },
        { name: 'trusted.t', value: Buffer.alloc(0) },
      ],
    });
    expect((await xattr('/cx/a', 'user.s3.object')).value).toEqual(meta);
    expect((await xattr('/cx/a', 'trusted.t')).value.length).toBe(0);
    expect(await names('/cx/a')).toEqual(['trusted.t', 'user.s3.object']);
    // An existing file returned as it is keeps its own; truncate's replacement takes the new ones.
    await call(c(), 'Create', { path: '/cx/a', xattrs: [{ name: 'user.other', value: meta }] });
    expect(await names('/cx/a')).toEqual(['trusted.t', 'user.s3.object']);
    await call(c(), 'Create', {
      path: '/cx/a',
      truncate: true,
      xattrs: [{ name: 'user.other', value: meta }],
    });
    expect(await names('/cx/a')).toEqual(['user.other']);
    // CreateMany items carry theirs.
    const many = await call(c(), 'CreateMany', {
      items: [
        { path: '/cx/m1', xattrs: [{ name: 'user.k', value: Buffer.from('1') }] },
        { path: '/cx/m2', xattrs: [{ name: 'system.posix_acl_access', value: Buffer.from('x') }] },
      ],
    });
    expect(many.results[0]?.error).toBeNull();
    expect(many.results[1]?.error?.code).toBe('XATTR_NOT_SUPPORTED');
    expect((await xattr('/cx/m1', 'user.k')).value.toString()).toBe('1');

    // Every refusal has its registry code and creates nothing.
    const value = Buffer.from('v');
    const refused = async (xattrs: { name: string; value: Buffer }[]) => {
      const code = await codeOf(call(c(), 'Create', { path: '/cx/refused', xattrs }));
      expect(await codeOf(call(c(), 'Stat', { path: '/cx/refused' }))).toBe('NS_NOT_FOUND');
      return code;
    };
    expect(await refused([{ name: 'nospace', value }])).toBe('XATTR_NOT_SUPPORTED');
    expect(await refused([{ name: 'user.stripefs.mine', value }])).toBe('XATTR_NOT_SUPPORTED');
    expect(await refused([{ name: 'user.', value }])).toBe('REQ_INVALID');
    expect(await refused([{ name: '', value }])).toBe('REQ_INVALID');
    expect(await refused([{ name: 'user.stripefs.layout', value: Buffer.from('raid0:2:1M') }])).toBe(
      'REQ_INVALID',
    );
    expect(
      await refused([
        { name: 'user.twice', value },
        { name: 'user.twice', value },
      ]),
    ).toBe('REQ_INVALID');
    expect(await refused([{ name: `user.${'n'.repeat(LIMITS.xattrNameBytesMax)}`, value }])).toBe(
      'XATTR_NAME_TOO_LONG',
    );
    expect(await refused([{ name: 'user.big', value: Buffer.alloc(LIMITS.xattrValueBytesMax + 1) }])).toBe(
      'XATTR_TOO_LARGE',
    );
    const max = Buffer.alloc(LIMITS.xattrValueBytesMax);
    const fit = Math.floor(LIMITS.xattrTotalBytesMax / (LIMITS.xattrValueBytesMax + 8));
    expect(
      await refused(Array.from({ length: fit + 1 }, (_, i) => ({ name: `user.m${i}`, value: max }))),
    ).toBe('XATTR_TOO_LARGE');
    expect(
      await refused(
        Array.from({ length: LIMITS.xattrCountMax + 1 }, (_, i) => ({ name: `user.a${i}`, value })),
      ),
    ).toBe('XATTR_TOO_MANY');
    // At the count limit it is taken.
    await call(c(), 'Create', {
      path: '/cx/full',
      xattrs: Array.from({ length: LIMITS.xattrCountMax }, (_, i) => ({ name: `user.a${i}`, value })),
    });
    expect((await names('/cx/full')).length).toBe(LIMITS.xattrCountMax);
  });

  it('an open reads one extended attribute with the attributes: present, absent, refused names; OpenMany item by item', async () => {
    await call(c(), 'Mkdir', { path: '/ox' });
    const file = await call(c(), 'Create', { path: '/ox/f' });
    await call(c(), 'SetXattr', { path: '/ox/f', name: 'user.rec', value: Buffer.from('the record') });
    const opened = await call(c(), 'Open', { path: '/ox/f', xattrName: 'user.rec' });
    expect(opened.attr?.inode).toBe(file.attr?.inode);
    expect(opened.xattr?.name).toBe('user.rec');
    expect(opened.xattr?.value.toString()).toBe('the record');
    // Absent: the open answers without it; not asked: never sent.
    expect((await call(c(), 'Open', { path: '/ox/f', xattrName: 'user.none' })).xattr).toBeNull();
    expect((await call(c(), 'Open', { path: '/ox/f' })).xattr).toBeNull();
    // Names are checked as GetXattr checks them; the computed layout attribute is GetXattr's alone.
    expect(await codeOf(call(c(), 'Open', { path: '/ox/f', xattrName: 'system.acl' }))).toBe(
      'XATTR_NOT_SUPPORTED',
    );
    expect(await codeOf(call(c(), 'Open', { path: '/ox/f', xattrName: 'user.stripefs.layout' }))).toBe(
      'REQ_INVALID',
    );
    const many = await call(c(), 'OpenMany', {
      items: [
        { path: '/ox/f', xattrName: 'user.rec' },
        { path: '/ox/f', xattrName: 'user.none' },
        { path: '/ox/f' },
        { path: '/ox/f', xattrName: 'x' },
        { path: '/ox/missing', xattrName: 'user.rec' },
        { path: '/ox/f', inode: file.attr!.inode, xattrName: 'user.rec' },
      ],
    });
    expect(many.results.map((r) => r.error?.code ?? r.open?.xattr?.value.toString() ?? null)).toEqual([
      'the record',
      null,
      null,
      'XATTR_NOT_SUPPORTED',
      'NS_NOT_FOUND',
      'the record',
    ]);
    // Removed: the next open finds none.
    await call(c(), 'RemoveXattr', { path: '/ox/f', name: 'user.rec' });
    expect((await call(c(), 'Open', { path: '/ox/f', xattrName: 'user.rec' })).xattr).toBeNull();
  });

  it('user.stripefs.layout: a file reads its layout, a directory sets and clears its default', async () => {
    await call(c(), 'Mkdir', { path: '/lay' });
    const inherited = (await xattr('/lay', 'user.stripefs.layout')).value.toString();
    expect(inherited).toBe('raid0:1:1M');
    await call(c(), 'SetXattr', {
      path: '/lay',
      name: 'user.stripefs.layout',
      value: Buffer.from('ec:4+2:host'),
    });
    expect((await xattr('/lay', 'user.stripefs.layout')).value.toString()).toBe('ec:4+2:host:1M');
    const dirAttr = await call(c(), 'Stat', { path: '/lay' });
    expect(dirAttr.attr?.layout).toMatchObject({ pattern: 'LAYOUT_PATTERN_EC', k: 4, m: 2 });
    expect(dirAttr.attr?.layoutInherited).toBe(false);
    const file = await call(c(), 'Create', { path: '/lay/f' });
    expect(file.attr?.layout).toMatchObject({ pattern: 'LAYOUT_PATTERN_EC', k: 4, m: 2 });
    expect((await xattr('/lay/f', 'user.stripefs.layout')).value.toString()).toBe('ec:4+2:host:1M');
    // Not listed: copying tools would try to set it on files.
    expect(await names('/lay/f')).toEqual([]);
    // A file's layout is fixed; restating it is accepted.
    expect(
      await codeOf(
        call(c(), 'SetXattr', {
          path: '/lay/f',
          name: 'user.stripefs.layout',
          value: Buffer.from('raid0:2'),
        }),
      ),
    ).toBe('LAYOUT_FIXED');
    await call(c(), 'SetXattr', {
      path: '/lay/f',
      name: 'user.stripefs.layout',
      value: Buffer.from('ec:4+2:host'),
    });
    expect(await codeOf(call(c(), 'RemoveXattr', { path: '/lay/f', name: 'user.stripefs.layout' }))).toBe(
      'LAYOUT_FIXED',
    );
    expect(
      await codeOf(
        call(c(), 'SetXattr', {
          path: '/lay',
          name: 'user.stripefs.layout',
          value: Buffer.from('ec:banana'),
        }),
      ),
    ).toBe('LAYOUT_INVALID');
    // Removing it on a directory goes back to the parent's default.
    await call(c(), 'RemoveXattr', { path: '/lay', name: 'user.stripefs.layout' });
    expect((await xattr('/lay', 'user.stripefs.layout')).value.toString()).toBe('raid0:1:1M');
    expect((await call(c(), 'Stat', { path: '/lay' })).attr?.layoutInherited).toBe(true);
  });

  it('symlinks: stored as given, never followed, readlink and its errors', async () => {
    await call(c(), 'Mkdir', { path: '/ln' });
    const made = await call(c(), 'Symlink', { target: '../some/where', path: '/ln/s', uid: 5, gid: 6 });
    expect(made.attr).toMatchObject({
      type: 'FILE_TYPE_SYMLINK',
      mode: 0o120777,
      size: Buffer.byteLength('../some/where'),
      uid: 5,
      gid: 6,
      symlinkTarget: '../some/where',
    });
    expect((await call(c(), 'Readlink', { path: '/ln/s' })).target).toBe('../some/where');
    expect((await call(c(), 'Stat', { path: '/ln/s' })).attr?.type).toBe('FILE_TYPE_SYMLINK');
    const listed = await call(c(), 'Readdir', { path: '/ln', withAttrs: true });
    expect(listed.entries[0]).toMatchObject({ name: 's', type: 'FILE_TYPE_SYMLINK' });
    expect(await codeOf(call(c(), 'Symlink', { target: 'x', path: '/ln/s' }))).toBe('NS_EXISTS');
    expect(await codeOf(call(c(), 'Symlink', { target: '', path: '/ln/e' }))).toBe('NS_INVALID_NAME');
    expect(
      await codeOf(
        call(c(), 'Symlink', { target: 'a'.repeat(LIMITS.symlinkTargetBytesMax + 1), path: '/ln/e' }),
      ),
    ).toBe('NS_NAME_TOO_LONG');
    expect(await codeOf(call(c(), 'Readlink', { path: '/ln' }))).toBe('NS_NOT_SYMLINK');
    expect(await codeOf(call(c(), 'Create', { path: '/ln/s' }))).toBe('NS_IS_SYMLINK');
    expect(await codeOf(call(c(), 'Stat', { path: '/ln/s/x' }))).toBe('NS_NOT_DIR');
    expect(await codeOf(call(c(), 'Rmdir', { path: '/ln/s' }))).toBe('NS_NOT_DIR');
    await call(c(), 'Rename', { fromPath: '/ln/s', toPath: '/ln/t' });
    expect((await call(c(), 'Readlink', { path: '/ln/t' })).target).toBe('../some/where');
    await call(c(), 'Unlink', { path: '/ln/t' });
    expect(await codeOf(call(c(), 'Readlink', { path: '/ln/t' }))).toBe('NS_NOT_FOUND');
  });

  it('statfs counts entries as they come and go, and adds up the OSTs', async () => {
    const before = await call(c(), 'Statfs', {});
    expect(before.ostsIn).toBe(6);
    expect(before.totalBytes).toBe(6 * 2 ** 40);
    expect(before.availableBytes).toBe(before.totalBytes - before.usedBytes);
    await call(c(), 'Mkdir', { path: '/count/a/b', parents: true });
    await call(c(), 'Create', { path: '/count/a/f' });
    await call(c(), 'Symlink', { target: 'f', path: '/count/a/l' });
    await call(c(), 'CreateMany', { items: [{ path: '/count/m1' }, { path: '/count/m2' }] });
    expect((await call(c(), 'Statfs', {})).files).toBe(before.files + 7);
    await call(c(), 'Create', { path: '/count/a/f', truncate: true }); // replaced: still one entry
    await call(c(), 'Rename', { fromPath: '/count/m1', toPath: '/count/m2' }); // one replaced
    await call(c(), 'Unlink', { path: '/count/a/l' });
    await call(c(), 'Rmdir', { path: '/count/a/b' });
    expect((await call(c(), 'Statfs', {})).files).toBe(before.files + 4);
    expect(await codeOf(call(c(), 'Unlink', { path: '/count/a/l' }))).toBe('NS_NOT_FOUND');
    expect((await call(c(), 'Statfs', {})).files).toBe(before.files + 4);
  });

  it('everything above survives an MDS restart', async () => {
    const files = (await call(c(), 'Statfs', {})).files;
    const dir = mds.dataDir;
    await stopMds(mds, false);
    mds = await startMds(dir);
    expect((await call(c(), 'Statfs', {})).files).toBe(files);
    expect((await xattr('/x', 'user.bin')).value.toString()).toBe('new');
    expect((await call(c(), 'Stat', { path: '/own/f' })).attr).toMatchObject({
      uid: 7,
      gid: 8,
      atimeMs: 1_400_000_000_456,
    });
    expect((await call(c(), 'Readlink', { path: '/count/a/f' }).catch((e) => e)).code).toBe('NS_NOT_SYMLINK');
  });
});
