// The local-disk cache tier on a real cluster (1 MDS, 2 OSSs): a second read
// of small files and of a multi-block file is served from the client's disk
// folder (no OSS byte), also by a client started again on the same folder and
// by the CLI configured with STRIPEFS_CLIENT_DISK_CACHE_DIR; a file another
// client rewrote is read from the OSSs, never from its old blocks; a cache
// file altered on disk is caught by its crc32c, dropped and read again; the
// folder stays within its bound, the least recently used blocks going first.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISK_BLOCK_HEADER_BYTES } from '../../client/disk-cache.js';
import { parseLayout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { runCli } from '../helpers/cli.js';
import { fetchedBytes, seededBytes } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { codeOf } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';

const SEED = seedFromEnv();
console.log(`client disk cache seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const KiB = 1024;
const MiB = 1024 * KiB;
const SMALL = 20;
const SMALL_BYTES = 40 * KiB;
const BIG_BYTES = 3 * MiB + 5;
/** Blocks of the files: one per small file, four 1 MiB blocks of the big one. */
const BLOCKS = SMALL + 4;

/** Every block file under a cache folder, with its size. */
function cacheFiles(root: string): { path: string; name: string; bytes: number }[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => ({
      path: join(e.parentPath, e.name),
      name: e.name,
      bytes: statSync(join(e.parentPath, e.name)).size,
    }));
}

describe('the local-disk cache tier', () => {
  let cluster: Cluster;
  let writer: StripeClient;
  let root: string;
  const files = new Map<string, Buffer>();

  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(2, 1), pgCount: 16 });
    writer = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED, diskCache: null });
    root = mkdtempSync(join(tmpdir(), 'stripefs-disk-cache-'));
    await writer.mkdir('/dc', { layout: parseLayout('raid0:2:1M') });
    for (let i = 0; i < SMALL; i++) files.set(`/dc/s${i}`, seededBytes(SMALL_BYTES, SEED + i));
    files.set('/dc/big', seededBytes(BIG_BYTES, SEED + 100));
    for (const [path, data] of files) await writer.writeFile(path, data);
  });
  afterAll(async () => {
    await writer?.close();
    await cluster?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const connect = (dir: string, bytesMax = 64 * MiB) =>
    StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED, diskCache: { dir, bytesMax } });
  /** Reads every file and checks its bytes; returns the OSS bytes the reads cost. */
  async function readAll(client: StripeClient): Promise<number> {
    const before = fetchedBytes(client.stats());
    for (const [path, data] of files) expect((await client.readFile(path)).equals(data), path).toBe(true);
    return fetchedBytes(client.stats()) - before;
  }
  const total = SMALL * SMALL_BYTES + BIG_BYTES;

  it('a second read is served from the disk, and so is a client started again on the folder', async () => {
    const dir = join(root, 'main');
    const reader = await connect(dir);
    try {
      expect(await readAll(reader)).toBe(total);
      await eventually(() => reader.stats().diskCache?.writes === BLOCKS, {
        timeoutMs: 60_000,
        what: `${BLOCKS} blocks written to the disk cache`,
      });
      await reader.dropCache();
      expect(await readAll(reader)).toBe(0);
      expect(reader.stats().diskCache).toMatchObject({
        hits: BLOCKS,
        hitBytes: total,
        corrupt: 0,
        evictions: 0,
      });
    } finally {
      await reader.close();
    }
    const again = await connect(dir);
    try {
      expect(again.stats().diskCache).toMatchObject({
        files: BLOCKS,
        sizeBytes: total + BLOCKS * DISK_BLOCK_HEADER_BYTES,
      });
      expect(await readAll(again)).toBe(0);
      expect(again.stats().diskCache?.hits).toBe(BLOCKS);
    } finally {
      await again.close();
    }
  });

  it('a file another client rewrote is read from the OSSs, never from its old blocks', async () => {
    const dir = join(root, 'main');
    const reader = await connect(dir);
    try {
      const fresh = seededBytes(SMALL_BYTES, SEED + 1000);
      await writer.writeFile('/dc/s0', fresh);
      files.set('/dc/s0', fresh);
      const before = fetchedBytes(reader.stats());
      expect((await reader.readFile('/dc/s0')).equals(fresh)).toBe(true);
      expect(fetchedBytes(reader.stats()) - before).toBe(SMALL_BYTES);
      expect(reader.stats().diskCache?.hits).toBe(0);
      // The other files did not change: still from the disk.
      expect(await readAll(reader)).toBe(0);
    } finally {
      await reader.close();
    }
  });

  it('a cache file altered on disk fails its crc32c: dropped, read again from the OSSs, kept again', async () => {
    const dir = join(root, 'main');
    const inode = (await writer.stat('/dc/s1')).inode;
    const victim = cacheFiles(dir).find((f) => f.name.startsWith(`${inode}.`));
    if (!victim) throw new Error(`no cache file of /dc/s1 (inode ${inode}) under ${dir}`);
    const bytes = readFileSync(victim.path);
    bytes[bytes.length - 100] = (bytes[bytes.length - 100] as number) ^ 0xff;
    writeFileSync(victim.path, bytes);
    const reader = await connect(dir);
    try {
      const before = fetchedBytes(reader.stats());
      expect((await reader.readFile('/dc/s1')).equals(files.get('/dc/s1') as Buffer)).toBe(true);
      expect(fetchedBytes(reader.stats()) - before).toBe(SMALL_BYTES);
      expect(reader.stats().diskCache?.corrupt).toBe(1);
      await eventually(() => reader.stats().diskCache?.writes === 1, {
        timeoutMs: 60_000,
        what: 'the block kept again',
      });
      await reader.dropCache();
      expect((await reader.readFile('/dc/s1')).equals(files.get('/dc/s1') as Buffer)).toBe(true);
      expect(reader.stats().diskCache?.hits).toBe(1);
    } finally {
      await reader.close();
    }
  });

  it('the folder stays within its bound, the least recently used blocks going first', async () => {
    const dir = join(root, 'bounded');
    const keep = 8;
    const bytesMax = keep * (SMALL_BYTES + DISK_BLOCK_HEADER_BYTES);
    const reader = await connect(dir, bytesMax);
    try {
      for (let i = 0; i < SMALL; i++) {
        await reader.readFile(`/dc/s${i}`);
        // One at a time, so each block is written before the next read (none skipped while busy).
        await eventually(() => reader.stats().diskCache?.writes === i + 1, {
          timeoutMs: 60_000,
          what: `block ${i} written`,
        });
      }
      const stats = reader.stats().diskCache;
      expect(stats).toMatchObject({ files: keep, evictions: SMALL - keep, sizeBytes: bytesMax });
      const onDisk = await eventually(
        () => {
          const found = cacheFiles(dir);
          return found.length === keep ? found : undefined;
        },
        { timeoutMs: 60_000, what: `${keep} files left in ${dir}` },
      );
      expect(onDisk.reduce((n, f) => n + f.bytes, 0)).toBeLessThanOrEqual(bytesMax);
      // The last eight read are the ones kept: reading them again costs no OSS byte.
      await reader.dropCache();
      const before = fetchedBytes(reader.stats());
      for (let i = SMALL - keep; i < SMALL; i++) await reader.readFile(`/dc/s${i}`);
      expect(fetchedBytes(reader.stats()) - before).toBe(0);
    } finally {
      await reader.close();
    }
  });

  it('the CLI takes the folder from STRIPEFS_CLIENT_DISK_CACHE_DIR; a folder that cannot be made is CONFIG_INVALID', async () => {
    const env = { STRIPEFS_CLIENT_DISK_CACHE_DIR: join(root, 'cli') };
    const get = () =>
      runCli(['get', '/dc/s2', join(root, 's2.bin'), '--stats', '--json', '--mds', cluster.mdsAddress], {
        env,
      });
    const first = await get();
    expect(first.code).toBe(0);
    const second = await get();
    expect(second.code).toBe(0);
    const stats = (run: { stdout: string }) => JSON.parse(run.stdout).stats;
    expect(stats(first).diskCache).toMatchObject({ hits: 0, misses: 1 });
    expect(stats(second).diskCache).toMatchObject({ hits: 1, hitBytes: SMALL_BYTES });
    expect(fetchedBytes(stats(second))).toBe(0);
    expect(readFileSync(join(root, 's2.bin')).equals(files.get('/dc/s2') as Buffer)).toBe(true);
    const blocker = join(root, 'a-file');
    writeFileSync(blocker, 'x');
    expect(await codeOf(connect(join(blocker, 'cache')))).toBe('CONFIG_INVALID');
  });
});
