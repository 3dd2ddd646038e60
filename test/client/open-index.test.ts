// The open answers a client keeps on its disk in the open cache's TTL mode
// (client/open-index.ts). On a real cluster (1 MDS, 2 OSSs): a client started
// again on the same disk cache folder within the TTL reads every file without
// one MDS open and without one OSS byte; a client in the default
// close-to-open mode asks the MDS as before; a file this client rewrote, and a
// file one of whose blocks left the disk, are opened at the MDS again. The log
// itself with an injected clock: an answer older than the TTL is never used
// after a restart, a line torn by a crash is skipped, each identity has a log
// of its own, and the log is written anew once mostly dead lines.
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLayout, StripeClient } from '../../client/index.js';
import { DiskOpenIndex } from '../../client/open-index.js';
import { seedFromEnv } from '../../common/random.js';
import type { Attr__Output } from '../../proto/index.js';
import { mdsCalls } from '../helpers/admin-http.js';
import { fetchedBytes, seededBytes } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';

const SEED = seedFromEnv();
console.log(`client open index seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const KiB = 1024;
const MiB = 1024 * KiB;
const SMALL = 12;
const SMALL_BYTES = 40 * KiB;
const BIG_BYTES = 2 * MiB + 7;
/** One block per small file, three 1 MiB blocks of the big one. */
const BLOCKS = SMALL + 3;
const TTL_MS = 10 * 60_000;

/** Every file under a folder, recursively. */
function filesUnder(root: string): { path: string; name: string }[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => ({ path: join(e.parentPath, e.name), name: e.name }));
}

describe('open answers kept on the disk (TTL mode)', () => {
  let cluster: Cluster;
  let writer: StripeClient;
  let root: string;
  const files = new Map<string, Buffer>();
  const opens = async () =>
    (await mdsCalls(cluster.mdsAdminUrl, 'open')) + (await mdsCalls(cluster.mdsAdminUrl, 'openMany'));

  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(2, 1), pgCount: 16 });
    writer = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED, diskCache: null });
    root = mkdtempSync(join(tmpdir(), 'stripefs-open-index-'));
    await writer.mkdir('/oi', { layout: parseLayout('raid0:2:1M') });
    for (let i = 0; i < SMALL; i++) files.set(`/oi/s${i}`, seededBytes(SMALL_BYTES, SEED + i));
    files.set('/oi/big', seededBytes(BIG_BYTES, SEED + 100));
    for (const [path, data] of files) await writer.writeFile(path, data);
  });
  afterAll(async () => {
    await writer?.close();
    await cluster?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const connect = (dir: string, ttlMs = TTL_MS) =>
    StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      diskCache: { dir, bytesMax: 64 * MiB },
      limits: { openCacheTtlMs: ttlMs },
    });
  /** Reads every file, checks its bytes; the OSS bytes and MDS opens it cost. */
  async function readAll(client: StripeClient): Promise<{ ossBytes: number; opens: number }> {
    const [bytesBefore, opensBefore] = [fetchedBytes(client.stats()), await opens()];
    for (const [path, data] of files) expect((await client.readFile(path)).equals(data), path).toBe(true);
    return { ossBytes: fetchedBytes(client.stats()) - bytesBefore, opens: (await opens()) - opensBefore };
  }

  it('a client started again within the TTL reads every cached file with no MDS open and no OSS byte', async () => {
    const dir = join(root, 'main');
    const first = await connect(dir);
    try {
      const cost = await readAll(first);
      expect(cost.ossBytes).toBe(SMALL * SMALL_BYTES + BIG_BYTES);
      expect(cost.opens).toBeGreaterThan(0);
      await eventually(() => first.stats().diskCache?.writes === BLOCKS, {
        timeoutMs: 60_000,
        what: `${BLOCKS} blocks written to the disk cache`,
      });
      expect(first.stats().diskCache?.opens).toEqual({ hits: 0, expired: 0, entries: files.size });
    } finally {
      await first.close();
    }
    const again = await connect(dir);
    try {
      expect(again.stats().diskCache?.opens?.entries).toBe(files.size);
      expect(await readAll(again)).toEqual({ ossBytes: 0, opens: 0 });
      expect(again.stats().diskCache).toMatchObject({ hits: BLOCKS, opens: { hits: files.size } });
    } finally {
      await again.close();
    }
  });

  it('the default close-to-open mode keeps no answers and asks the MDS at every open', async () => {
    const dir = join(root, 'main');
    const plain = await connect(dir, 0);
    try {
      const cost = await readAll(plain);
      expect(cost.ossBytes).toBe(0);
      expect(cost.opens).toBeGreaterThan(0);
      expect(plain.stats().diskCache?.opens).toBeUndefined();
    } finally {
      await plain.close();
    }
  });

  it('a file this client rewrote, and a file with a block gone from the disk, are opened at the MDS', async () => {
    const dir = join(root, 'main');
    const rewriter = await connect(dir);
    const fresh = seededBytes(SMALL_BYTES, SEED + 1000);
    try {
      await rewriter.writeFile('/oi/s0', fresh);
      files.set('/oi/s0', fresh);
    } finally {
      await rewriter.close();
    }
    const bigInode = (await writer.stat('/oi/big')).inode;
    const block = filesUnder(dir).find((f) => f.name.startsWith(`${bigInode}.`) && f.name.endsWith('.1'));
    if (!block) throw new Error(`no second block of /oi/big (inode ${bigInode}) under ${dir}`);
    unlinkSync(block.path);
    const reader = await connect(dir);
    try {
      const [opensBefore, bytesBefore] = [await opens(), fetchedBytes(reader.stats())];
      expect((await reader.readFile('/oi/s0')).equals(fresh)).toBe(true);
      expect((await reader.readFile('/oi/big')).equals(files.get('/oi/big') as Buffer)).toBe(true);
      expect((await opens()) - opensBefore).toBe(2);
      // s0 from the OSSs (its new version was never on the disk); of big only the missing block.
      expect(fetchedBytes(reader.stats()) - bytesBefore).toBe(SMALL_BYTES + MiB);
      // The other files are still answered from the disk.
      const others = [...files.keys()].filter((p) => p !== '/oi/s0' && p !== '/oi/big');
      for (const path of others)
        expect((await reader.readFile(path)).equals(files.get(path) as Buffer), path).toBe(true);
      expect((await opens()) - opensBefore).toBe(2);
      expect(reader.stats().diskCache?.opens?.hits).toBe(others.length);
    } finally {
      await reader.close();
    }
  });
});

describe('the open answers log', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'stripefs-open-log-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const attr = (inode: number, ticket = ''): Attr__Output =>
    ({ inode, type: 'FILE_TYPE_FILE', size: 10, change: 1, mtimeMs: 5, ticket }) as unknown as Attr__Output;

  it('an answer older than the TTL is not used after a restart; a torn line is skipped', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const sub = join(dir, 'ttl');
    mkdirSync(sub);
    const a = await DiskOpenIndex.open(sub, 'alice', 60_000, 100, clock);
    a.put('/old', attr(1));
    now += 50_000;
    a.put('/new', attr(2, 'a-ticket'));
    await a.flush();
    appendFileSync(a.file, '{"p":"/torn","t":10'); // a crash mid-append
    now += 20_000; // /old is 70 s old, /new 20 s
    const b = await DiskOpenIndex.open(sub, 'alice', 60_000, 100, clock);
    expect([b.get('/old'), b.get('/torn'), b.get('/new')?.inode]).toEqual([undefined, undefined, 2]);
    // No ticket is written to the disk.
    expect(readFileSync(a.file, 'utf8')).not.toContain('a-ticket');
    expect(b.get('/new')?.ticket).toBe('');
    // Another identity reads a log of its own.
    const c = await DiskOpenIndex.open(sub, 'bob', 60_000, 100, clock);
    expect([c.size, c.get('/new')]).toEqual([0, undefined]);
    expect(c.file).not.toBe(b.file);
  });

  it('a dropped path stays dropped after a restart, and the log is written anew once mostly dead lines', async () => {
    const sub = join(dir, 'drops');
    mkdirSync(sub);
    const a = await DiskOpenIndex.open(sub, undefined, 60_000, 100, () => 1);
    for (let round = 0; round < 30; round++)
      for (let i = 0; i < 100; i++) a.put(`/d/f${i}`, attr(round * 100 + i));
    a.forgetTree('/d');
    a.put('/kept', attr(7));
    await a.flush();
    // 3,000 answers and 100 drops were asked for; the log holds far fewer lines.
    const lines = readFileSync(a.file, 'utf8').split('\n').filter(Boolean).length;
    expect(lines).toBeLessThan(1_500);
    const b = await DiskOpenIndex.open(sub, undefined, 60_000, 100, () => 1);
    expect([b.size, b.get('/d/f3'), b.get('/kept')?.inode]).toEqual([1, undefined, 7]);
  });
});
