// Batched namespace calls against a real MDS process: CreateMany, UnlinkMany,
// CommitMany and StatMany answer per item, in item order, each failure exactly the error
// the single call raises; and the client's coalescing (MdsClient) keeps
// per-call errors and the order calls were issued in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MdsClient } from '../../client/mds-client.js';
import { call, LIMITS, StripeError } from '../../common/index.js';
import type { ItemError__Output } from '../../proto/index.js';
import { type MdsUnderTest, registerOss, startMds, stopMds, tempDir } from './helpers.js';

let mds: MdsUnderTest;
let address = '';
const c = () => mds.client;

beforeAll(async () => {
  mds = await startMds(tempDir('mds-batch'));
  address = `127.0.0.1:${mds.proc.ready.grpcPort}`;
  await registerOss(c(), { ossId: 'oss-a', host: 'h0', osts: 2 });
  await call(c(), 'Mkdir', { path: '/b' });
  await call(c(), 'Mkdir', { path: '/b/sub' });
  await call(c(), 'Create', { path: '/b/file' });
});
afterAll(async () => {
  await stopMds(mds);
});

/** The error a single call raises, as code, message and details. */
async function singleError(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details: unknown }> {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof StripeError)) throw err;
    return { code: err.code, message: err.message, details: { ...err.details } };
  }
  throw new Error('expected the call to fail');
}

function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('expected a value');
  return value;
}

function asError(e: ItemError__Output | null | undefined) {
  if (!e) throw new Error('expected an item error');
  return { code: e.code, message: e.message, details: e.detailsJson ? JSON.parse(e.detailsJson) : {} };
}

describe('batched calls on the wire', () => {
  it('CreateMany: one result per item, in item order, errors as Create raises them', async () => {
    const absurd = { pattern: 'LAYOUT_PATTERN_REPLICATED', replicas: 9, failureDomain: 'host' } as const;
    const items = [
      { path: '/b/x' },
      { path: '/b/x', exclusive: true }, // applied after the first item: the name exists
      { path: '/nope/f' },
      { path: '/b/sub' },
      { path: '/b/file/g' },
      { path: 'relative' },
      { path: '/b/y', layout: absurd },
      { path: '/b/z' },
    ];
    const res = await call(c(), 'CreateMany', { items });
    expect(res.results).toHaveLength(items.length);
    expect(res.mapEpoch).toBeGreaterThan(0);
    const [x, dup, ...rest] = res.results;
    expect(x!.error).toBeNull();
    expect(x!.attr?.type).toBe('FILE_TYPE_FILE');
    expect(x!.attr?.layout?.poolId).toBeGreaterThan(0);
    expect(res.results[7]!.error).toBeNull();
    expect(res.results[7]!.attr!.inode).toBeGreaterThan(x!.attr!.inode); // allocated in item order
    expect(asError(dup!.error)).toEqual(await singleError(call(c(), 'Create', items[1]!)));
    for (const [i, r] of rest.slice(0, 5).entries()) {
      const item = items[i + 2]!;
      expect(r.attr, item.path).toBeNull();
      expect(asError(r.error), item.path).toEqual(await singleError(call(c(), 'Create', item)));
    }
    expect(res.results.map((r) => r.error?.code ?? 'OK')).toEqual([
      'OK',
      'NS_EXISTS',
      'NS_NOT_FOUND',
      'NS_IS_DIR',
      'NS_NOT_DIR',
      'NS_INVALID_NAME',
      'LAYOUT_INVALID',
      'OK',
    ]);
    const st = await call(c(), 'Stat', { path: '/b/x' });
    expect(st.attr?.inode).toBe(x!.attr!.inode);
  });

  it('UnlinkMany: items apply in order and fail alone', async () => {
    await call(c(), 'Create', { path: '/b/u1' });
    await call(c(), 'Create', { path: '/b/u2' });
    const items = [
      { path: '/b/u1' },
      { path: '/b/u1' },
      { path: '/b/sub' },
      { path: '/' },
      { path: '/b/u2' },
    ];
    const res = await call(c(), 'UnlinkMany', { items });
    expect(res.results.map((r) => r.error?.code ?? 'OK')).toEqual([
      'OK',
      'NS_NOT_FOUND',
      'NS_IS_DIR',
      'NS_IS_DIR',
      'OK',
    ]);
    for (const i of [1, 2, 3])
      expect(asError(res.results[i]!.error)).toEqual(await singleError(call(c(), 'Unlink', items[i]!)));
    const after = await call(c(), 'StatMany', { paths: ['/b/u1', '/b/u2'] });
    expect(after.results.map((r) => r.found)).toEqual([false, false]);
  });

  it('CommitMany: one result per item, in item order, errors as Commit raises them', async () => {
    const a = must((await call(c(), 'Create', { path: '/b/c1' })).attr).inode;
    const b = must((await call(c(), 'Create', { path: '/b/c2' })).attr).inode;
    const dir = must((await call(c(), 'Stat', { path: '/b/sub' })).attr).inode;
    const items = [
      { inode: a, size: 10, mtimeMs: 1_000 },
      { inode: a, size: 4, mtimeMs: 2_000 }, // applied after the first: the file ends at 4
      { inode: 999_999, size: 1, mtimeMs: 1 },
      { inode: dir, size: 1, mtimeMs: 1 },
      { inode: b, size: 7, mtimeMs: 3_000, growOnly: true },
      { inode: 0, size: 1, mtimeMs: 1 },
    ];
    const res = await call(c(), 'CommitMany', { items });
    expect(res.results.map((r) => r.error?.code ?? 'OK')).toEqual([
      'OK',
      'OK',
      'NS_NOT_FOUND',
      'NS_IS_DIR',
      'OK',
      'REQ_INVALID',
    ]);
    for (const i of [2, 3, 5])
      expect(asError(res.results[i]!.error)).toEqual(await singleError(call(c(), 'Commit', items[i]!)));
    expect(res.results[1]!.attr).toMatchObject({ inode: a, size: 4, mtimeMs: 2_000 });
    const after = await call(c(), 'StatMany', { paths: ['/b/c1', '/b/c2'] });
    expect(after.results.map((r) => [r.attr?.size, r.attr?.change])).toEqual([
      [4, 2],
      [7, 1],
    ]);
  });

  it('commits issued together go out as one CommitMany, each answer or error its own', async () => {
    const client = new MdsClient(address);
    try {
      const inode = must((await call(c(), 'Create', { path: '/b/c3' })).attr).inode;
      const answers = await Promise.all([
        client.commit(inode, 5, 1_000),
        client.commit(inode, 9, 2_000),
        client.commit(999_998, 1, 1).then(
          () => 'OK',
          (e: unknown) => (e instanceof StripeError ? e.code : String(e)),
        ),
      ]);
      expect(answers.map((x) => (typeof x === 'string' ? x : x.size))).toEqual([5, 9, 'NS_NOT_FOUND']);
      expect(client.commitBatcher.batchesSent).toBe(1);
      expect(client.commitBatcher.itemsBatched).toBe(3);
      expect(must((await call(c(), 'Stat', { path: '/b/c3' })).attr).size).toBe(9);
    } finally {
      client.close();
    }
  });

  it('refuses more items than the limit as a whole, and an empty batch answers nothing', async () => {
    const tooMany = Array.from({ length: LIMITS.namespaceBatchItemsMax + 1 }, (_, i) => ({
      path: `/b/m${i}`,
    }));
    expect((await singleError(call(c(), 'CreateMany', { items: tooMany }))).code).toBe('REQ_INVALID');
    expect((await singleError(call(c(), 'UnlinkMany', { items: tooMany }))).code).toBe('REQ_INVALID');
    const commits = tooMany.map(() => ({ inode: 1, size: 0, mtimeMs: 0 }));
    expect((await singleError(call(c(), 'CommitMany', { items: commits }))).code).toBe('REQ_INVALID');
    expect((await call(c(), 'StatMany', { paths: ['/b/m0'] })).results[0]!.found).toBe(false);
    expect((await call(c(), 'CreateMany', { items: [] })).results).toEqual([]);
  });

  it('StatMany items fail with the error Stat raises', async () => {
    const paths = [
      '/b/missing',
      '/nope/f',
      '/b/file/g',
      '/b//x',
      'rel',
      `/b/${'n'.repeat(300)}`,
      '/',
      '/b/x',
    ];
    const res = await call(c(), 'StatMany', { paths });
    expect(res.results.map((r) => r.found)).toEqual([false, false, false, false, false, false, true, true]);
    for (const [i, r] of res.results.entries()) {
      if (r.found) continue;
      const expected = await singleError(call(c(), 'Stat', { path: paths[i]! }));
      expect(r.errorCode, paths[i]).toBe(expected.code);
      expect(asError(r.error), paths[i]).toEqual(expected);
    }
  });
});

describe('client coalescing (MdsClient)', () => {
  /** An answer (an attribute, or an open's) with its ticket blanked: each client has its own. */
  const untick = (v: unknown): unknown => {
    if (!v || typeof v !== 'object') return v;
    if ('attr' in v) return { ...v, attr: untick((v as { attr: unknown }).attr) };
    return 'ticket' in v ? { ...v, ticket: '' } : v;
  };

  it('stats issued together go out as one StatMany, each answer or error its own', async () => {
    const batched = new MdsClient(address);
    const single = new MdsClient(address, { batching: false });
    try {
      const names = Array.from({ length: 40 }, (_, i) => `/b/s${i}`);
      for (const name of names.slice(0, 30)) await single.create(name, { exclusive: false, truncate: false });
      const paths = [...names, '/b/file/g', 'rel', '/'];
      // Compared apart from any data-path ticket (each session has its own; a stat carries none).
      const settle = (p: Promise<unknown>) =>
        p.then(
          (v) => ({ ok: untick(v) }),
          (e: unknown) => ({ err: e }),
        );
      const before = batched.statBatcher.batchesSent;
      const got = await Promise.all(paths.map((p) => settle(batched.stat(p))));
      expect(batched.statBatcher.batchesSent - before).toBeGreaterThanOrEqual(1);
      expect(batched.statBatcher.itemsBatched).toBe(paths.length);
      const want = await Promise.all(paths.map((p) => settle(single.stat(p))));
      for (const [i, g] of got.entries()) {
        const w = want[i]!;
        if ('ok' in w) expect(g, paths[i]).toEqual(w);
        else {
          expect('err' in g && g.err instanceof StripeError, paths[i]).toBe(true);
          const e = (g as { err: StripeError }).err;
          const we = w.err as StripeError;
          expect({ code: e.code, message: e.message, details: e.details }, paths[i]).toEqual({
            code: we.code,
            message: we.message,
            details: we.details,
          });
        }
      }
      // Opens issued together go as one OpenMany (read-on-open) and fail as Open does.
      const opened = await Promise.all([
        batched.open('/b/s1'),
        settle(batched.open('/b/none')),
        batched.stat('/b/s2'),
      ]);
      expect(untick(opened[0])).toEqual(untick(await single.open('/b/s1')));
      const openErr = (opened[1] as { err: StripeError }).err;
      const singleOpenErr = (await settle(single.open('/b/none'))) as { err: StripeError };
      expect([openErr.code, openErr.message, openErr.details]).toEqual([
        singleOpenErr.err.code,
        singleOpenErr.err.message,
        singleOpenErr.err.details,
      ]);
      expect(batched.openBatcher.itemsBatched).toBe(2);
      expect(batched.statBatcher.itemsBatched).toBe(paths.length);
      // A lone call is the plain single RPC.
      const sentBefore = batched.statBatcher.batchesSent;
      expect((await batched.stat('/b/s0')).type).toBe('FILE_TYPE_FILE');
      expect(batched.statBatcher.batchesSent).toBe(sentBefore);
    } finally {
      batched.close();
      single.close();
    }
  });

  it('creates and unlinks issued together apply in the order they were issued', async () => {
    const client = new MdsClient(address);
    try {
      const opts = { exclusive: true, truncate: false };
      const settle = (p: Promise<unknown>) =>
        p.then(
          () => 'OK',
          (e: unknown) => (e instanceof StripeError ? e.code : String(e)),
        );
      // Same tick: the first exclusive create of each name wins, the second finds it.
      const creates = await Promise.all([
        settle(client.create('/b/o1', opts)),
        settle(client.create('/b/o1', opts)),
        settle(client.create('/b/o2', opts)),
        settle(client.create('/nope/o3', opts)),
        settle(client.create('/b/o2', opts)),
      ]);
      expect(creates).toEqual(['OK', 'NS_EXISTS', 'OK', 'NS_NOT_FOUND', 'NS_EXISTS']);
      expect(client.createBatcher.itemsBatched).toBe(5);
      const first = await client.stat('/b/o1');
      const unlinks = await Promise.all([
        settle(client.unlink('/b/o1')),
        settle(client.unlink('/b/o1')),
        settle(client.unlink('/b/sub')),
      ]);
      expect(unlinks).toEqual(['OK', 'NS_NOT_FOUND', 'NS_IS_DIR']);
      // Issued after the unlink resolved: a later batch, which sees it.
      const again = await Promise.all([client.create('/b/o1', opts), settle(client.stat('/b/o2'))]);
      expect(again[0].attr.inode).not.toBe(first.inode);
      expect(again[1]).toBe('OK');
    } finally {
      client.close();
    }
  });

  it('a failed batch fails every call in it with the transport error', async () => {
    const dead = new MdsClient('127.0.0.1:1', { channels: 1 });
    try {
      const codes = await Promise.all(
        ['/a', '/b', '/c'].map((p) =>
          dead.stat(p).then(
            () => 'OK',
            (e: unknown) => (e instanceof StripeError ? e.code : String(e)),
          ),
        ),
      );
      expect(codes).toEqual(['REQ_UNAVAILABLE', 'REQ_UNAVAILABLE', 'REQ_UNAVAILABLE']);
      expect(dead.statBatcher.batchesSent).toBe(1);
    } finally {
      dead.close();
    }
  });

  it('rejects a channel count outside 1..MDS_CHANNELS_MAX', () => {
    expect(() => new MdsClient(address, { channels: 0 })).toThrow(StripeError);
    expect(() => new MdsClient(address, { channels: 99 })).toThrow(StripeError);
  });
});
