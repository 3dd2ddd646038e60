// Every namespace call against a real MDS process over gRPC, and every error
// code they can raise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../common/index.js';
import { codeOf } from '../helpers/errors.js';
import { type MdsUnderTest, registerOss, startMds, stopMds, tempDir } from './helpers.js';

let mds: MdsUnderTest;
let dirInode = 0;
const c = () => mds.client;

beforeAll(async () => {
  mds = await startMds(tempDir('mds-ns'));
  await registerOss(c(), { ossId: 'oss-a', host: 'h0', rack: 'r0', osts: 2 });
  await registerOss(c(), { ossId: 'oss-b', host: 'h1', rack: 'r1', osts: 2 });
});
afterAll(async () => {
  await stopMds(mds);
});

describe('namespace over gRPC', () => {
  it('mkdir, with parents, and its errors', async () => {
    const made = await call(c(), 'Mkdir', { path: '/a' });
    expect(made.attr?.type).toBe('FILE_TYPE_DIRECTORY');
    expect(made.attr?.inode).toBeGreaterThan(1);
    dirInode = made.attr!.inode;
    expect(await codeOf(call(c(), 'Mkdir', { path: '/a' }))).toBe('NS_EXISTS');
    expect(await codeOf(call(c(), 'Mkdir', { path: '/x/y/z' }))).toBe('NS_NOT_FOUND');
    const deep = await call(c(), 'Mkdir', { path: '/x/y/z', parents: true });
    expect(deep.attr?.type).toBe('FILE_TYPE_DIRECTORY');
    await call(c(), 'Mkdir', { path: '/x/y/z', parents: true }); // mkdir -p is idempotent
    expect(await codeOf(call(c(), 'Mkdir', { path: '/' }))).toBe('NS_EXISTS');
  });

  it('create, open, stat and commit', async () => {
    const created = await call(c(), 'Create', { path: '/a/f1' });
    expect(created.attr?.type).toBe('FILE_TYPE_FILE');
    expect(created.mapEpoch).toBeGreaterThan(0);
    expect(created.attr?.layout?.pattern).toBe('LAYOUT_PATTERN_RAID0');
    expect(created.attr?.layout?.poolId).toBeGreaterThan(0);
    const again = await call(c(), 'Create', { path: '/a/f1' });
    expect(again.attr?.inode).toBe(created.attr?.inode);
    expect(await codeOf(call(c(), 'Create', { path: '/a/f1', exclusive: true }))).toBe('NS_EXISTS');
    expect(await codeOf(call(c(), 'Create', { path: '/a' }))).toBe('NS_IS_DIR');
    expect(await codeOf(call(c(), 'Create', { path: '/nope/f' }))).toBe('NS_NOT_FOUND');
    expect(await codeOf(call(c(), 'Create', { path: '/a/f1/g' }))).toBe('NS_NOT_DIR');
    const truncated = await call(c(), 'Create', { path: '/a/f1', truncate: true });
    expect(truncated.attr?.inode).not.toBe(created.attr?.inode);

    const opened = await call(c(), 'Open', { path: '/a/f1' });
    expect(opened.attr?.inode).toBe(truncated.attr?.inode);
    expect(opened.mapEpoch).toBeGreaterThan(0);
    expect(await codeOf(call(c(), 'Open', { path: '/a/missing' }))).toBe('NS_NOT_FOUND');

    const committed = await call(c(), 'Commit', {
      inode: opened.attr!.inode,
      size: 12345,
      mtimeMs: 1_700_000_000_000,
    });
    expect(committed.attr?.size).toBe(12345);
    const st = await call(c(), 'Stat', { path: '/a/f1' });
    expect(st.attr?.size).toBe(12345);
    expect(st.attr?.mtimeMs).toBe(1_700_000_000_000);
    // Every commit counts, even one that changes neither size nor mtime (clients key their cache on it).
    expect(opened.attr?.change).toBe(0);
    expect(committed.attr?.change).toBe(1);
    const again2 = await call(c(), 'Commit', {
      inode: opened.attr!.inode,
      size: 12345,
      mtimeMs: 1_700_000_000_000,
    });
    expect(again2.attr?.change).toBe(2);
    expect((await call(c(), 'Open', { path: '/a/f1' })).attr?.change).toBe(2);
    expect((await call(c(), 'Stat', { path: '/' })).attr?.inode).toBe(1);
    // Grow-only commits keep the largest size, whatever their order; a plain commit may shrink.
    const inode = opened.attr!.inode;
    expect((await call(c(), 'Commit', { inode, size: 20_000, growOnly: true })).attr?.size).toBe(20_000);
    expect((await call(c(), 'Commit', { inode, size: 15_000, growOnly: true })).attr?.size).toBe(20_000);
    expect((await call(c(), 'Commit', { inode, size: 12345 })).attr?.size).toBe(12345);
    expect(await codeOf(call(c(), 'Commit', { inode: 999_999, size: 1 }))).toBe('NS_NOT_FOUND');
    expect(await codeOf(call(c(), 'Commit', { inode: dirInode, size: 1 }))).toBe('NS_IS_DIR');
  });

  it('readdir is sorted, paginated, and carries attributes on request', async () => {
    await call(c(), 'Mkdir', { path: '/list' });
    const names = ['b', 'a', 'é', 'Z', 'a0', 'c', 'aa'];
    for (const name of names) await call(c(), 'Create', { path: `/list/${name}` });
    await call(c(), 'Mkdir', { path: '/list/sub' });
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    do {
      const page = await call(c(), 'Readdir', { path: '/list', cursor, limit: 3, withAttrs: true });
      for (const e of page.entries) {
        seen.push(e.name);
        expect(e.attr?.inode).toBe(e.inode);
      }
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    const expected = [...names, 'sub'].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);
    const bare = await call(c(), 'Readdir', { path: '/list' });
    expect(bare.entries.every((e) => e.attr === null)).toBe(true);
    expect(bare.entries.find((e) => e.name === 'sub')?.type).toBe('FILE_TYPE_DIRECTORY');
    expect(await codeOf(call(c(), 'Readdir', { path: '/list/a' }))).toBe('NS_NOT_DIR');
    expect(await codeOf(call(c(), 'Readdir', { path: '/nope' }))).toBe('NS_NOT_FOUND');
  });

  it('StatMany answers found and missing paths in one call', async () => {
    const res = await call(c(), 'StatMany', {
      paths: ['/list/a', '/list/missing', '/list/b', '/', '/nope/x', 'bad'],
    });
    expect(res.results.map((r) => r.found)).toEqual([true, false, true, true, false, false]);
    expect(res.results.map((r) => r.errorCode)).toEqual([
      '',
      'NS_NOT_FOUND',
      '',
      '',
      'NS_NOT_FOUND',
      'NS_INVALID_NAME',
    ]);
  });

  it('rename: across directories, replacing files, and its errors', async () => {
    await call(c(), 'Mkdir', { path: '/r1' });
    await call(c(), 'Mkdir', { path: '/r2' });
    const f = await call(c(), 'Create', { path: '/r1/f' });
    await call(c(), 'Rename', { fromPath: '/r1/f', toPath: '/r2/g' });
    expect(await codeOf(call(c(), 'Stat', { path: '/r1/f' }))).toBe('NS_NOT_FOUND');
    expect((await call(c(), 'Stat', { path: '/r2/g' })).attr?.inode).toBe(f.attr?.inode);
    // Commit by inode still finds the file after the move.
    await call(c(), 'Commit', { inode: f.attr!.inode, size: 7 });
    expect((await call(c(), 'Stat', { path: '/r2/g' })).attr?.size).toBe(7);
    const h = await call(c(), 'Create', { path: '/r2/h' });
    await call(c(), 'Rename', { fromPath: '/r2/h', toPath: '/r2/g' }); // replaces g
    expect((await call(c(), 'Stat', { path: '/r2/g' })).attr?.inode).toBe(h.attr?.inode);
    await call(c(), 'Rename', { fromPath: '/r2/g', toPath: '/r2/g' }); // same name: no-op
    expect(await codeOf(call(c(), 'Rename', { fromPath: '/r2/missing', toPath: '/r2/x' }))).toBe(
      'NS_NOT_FOUND',
    );
    expect(await codeOf(call(c(), 'Rename', { fromPath: '/r2/g', toPath: '/r1' }))).toBe('NS_IS_DIR');
    expect(await codeOf(call(c(), 'Rename', { fromPath: '/r1', toPath: '/r2/g' }))).toBe('NS_NOT_DIR');
    expect(await codeOf(call(c(), 'Rename', { fromPath: '/r1', toPath: '/r1/inner' }))).toBe(
      'NS_INVALID_RENAME',
    );
    expect(await codeOf(call(c(), 'Rename', { fromPath: '/', toPath: '/r9' }))).toBe('NS_BUSY');
    await call(c(), 'Mkdir', { path: '/r3/full', parents: true });
    await call(c(), 'Create', { path: '/r3/full/x' });
    expect(await codeOf(call(c(), 'Rename', { fromPath: '/r1', toPath: '/r3/full' }))).toBe('NS_NOT_EMPTY');
    await call(c(), 'Mkdir', { path: '/r3/empty' });
    await call(c(), 'Rename', { fromPath: '/r1', toPath: '/r3/empty' }); // replaces the empty directory
    expect(await codeOf(call(c(), 'Stat', { path: '/r1' }))).toBe('NS_NOT_FOUND');
    await call(c(), 'Rename', { fromPath: '/r3', toPath: '/r2/r3' }); // a directory with contents moves whole
    expect((await call(c(), 'Stat', { path: '/r2/r3/full/x' })).attr?.type).toBe('FILE_TYPE_FILE');
  });

  it('rename with noReplace: NS_EXISTS and nothing moves; racing renames into one name, one wins', async () => {
    await call(c(), 'Mkdir', { path: '/nr' });
    const a = await call(c(), 'Create', { path: '/nr/a' });
    const b = await call(c(), 'Create', { path: '/nr/b' });
    expect(await codeOf(call(c(), 'Rename', { fromPath: '/nr/a', toPath: '/nr/b', noReplace: true }))).toBe(
      'NS_EXISTS',
    );
    expect((await call(c(), 'Stat', { path: '/nr/a' })).attr?.inode).toBe(a.attr?.inode);
    expect((await call(c(), 'Stat', { path: '/nr/b' })).attr?.inode).toBe(b.attr?.inode);
    await call(c(), 'Rename', { fromPath: '/nr/a', toPath: '/nr/c', noReplace: true });
    expect((await call(c(), 'Stat', { path: '/nr/c' })).attr?.inode).toBe(a.attr?.inode);
    // Eight sources race into one free name: exactly one lands, the rest stay where they were.
    const sources = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(c(), 'Create', { path: `/nr/s${i}` })),
    );
    const results = await Promise.allSettled(
      sources.map((_, i) =>
        call(c(), 'Rename', { fromPath: `/nr/s${i}`, toPath: '/nr/won', noReplace: true }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const won = (await call(c(), 'Stat', { path: '/nr/won' })).attr?.inode;
    const left = await Promise.all(sources.map((_, i) => codeOf(call(c(), 'Stat', { path: `/nr/s${i}` }))));
    expect(left.filter((code) => code === 'NS_NOT_FOUND')).toHaveLength(1);
    expect(sources.map((s) => s.attr?.inode)).toContain(won);
  });

  it('unlink and rmdir, and their errors', async () => {
    await call(c(), 'Mkdir', { path: '/u/d', parents: true });
    await call(c(), 'Create', { path: '/u/f' });
    expect(await codeOf(call(c(), 'Unlink', { path: '/u/d' }))).toBe('NS_IS_DIR');
    expect(await codeOf(call(c(), 'Rmdir', { path: '/u/f' }))).toBe('NS_NOT_DIR');
    expect(await codeOf(call(c(), 'Rmdir', { path: '/u' }))).toBe('NS_NOT_EMPTY');
    expect(await codeOf(call(c(), 'Rmdir', { path: '/' }))).toBe('NS_BUSY');
    await call(c(), 'Unlink', { path: '/u/f' });
    expect(await codeOf(call(c(), 'Unlink', { path: '/u/f' }))).toBe('NS_NOT_FOUND');
    await call(c(), 'Rmdir', { path: '/u/d' });
    await call(c(), 'Rmdir', { path: '/u' });
    expect(await codeOf(call(c(), 'Stat', { path: '/u' }))).toBe('NS_NOT_FOUND');
    expect(await codeOf(call(c(), 'Rmdir', { path: '/u' }))).toBe('NS_NOT_FOUND');
  });

  it('bad names get coded errors and the server stays up', async () => {
    const cases: [string, string][] = [
      ['', 'NS_INVALID_NAME'],
      ['relative', 'NS_INVALID_NAME'],
      ['/a//b', 'NS_INVALID_NAME'],
      ['/a/', 'NS_INVALID_NAME'],
      ['/a/./b', 'NS_INVALID_NAME'],
      ['/a/../b', 'NS_INVALID_NAME'],
      ['/a/b\0c', 'NS_INVALID_NAME'],
      [`/${'n'.repeat(256)}`, 'NS_NAME_TOO_LONG'],
      [`/${'é'.repeat(128)}`, 'NS_NAME_TOO_LONG'], // 256 bytes of UTF-8
      [`/${Array.from({ length: 20 }, () => 'd'.repeat(250)).join('/')}`, 'NS_NAME_TOO_LONG'],
    ];
    for (const [path, code] of cases) {
      for (const op of ['Create', 'Mkdir', 'Stat', 'Unlink', 'Rmdir'] as const) {
        expect(`${op} ${JSON.stringify(path.slice(0, 20))} ${await codeOf(call(c(), op, { path }))}`).toBe(
          `${op} ${JSON.stringify(path.slice(0, 20))} ${code}`,
        );
      }
    }
    expect(await codeOf(call(c(), 'Create', { path: `/${'n'.repeat(255)}` }))).toBe('OK');
    expect(await codeOf(call(c(), 'Readdir', { path: '/', cursor: 'a/b' }))).toBe('REQ_INVALID');
    expect(await codeOf(call(c(), 'Commit', { inode: 0, size: 1 }))).toBe('REQ_INVALID');
    expect((await call(c(), 'Stat', { path: '/' })).attr?.inode).toBe(1);
  });
});
