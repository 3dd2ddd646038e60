// Packed datasets on a real cluster (1 MDS, 3 OSSs on three hosts): `stripefs
// pack` run from another folder packs 2,000 local files of 10-100 KiB into
// replicated shards plus an index, and the library reads every sample back
// byte-identical by index and by key; getMany keeps the caller's order,
// answers duplicates, and reads neighbours as one range. Bad input is refused
// with its code (a missing, empty or odd source, an existing DEST) and leaves
// what is stored alone. A sample overwritten through the library is named by
// `stripefs dataset verify` (exit 1) and refused by get; the Python reference
// reader reads what pack wrote; an OSS killed during getMany costs nothing.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLayout, StripeClient, type StripeDataset } from '../../client/index.js';
import { seededRandom, seedFromEnv } from '../../common/random.js';
import { runCli } from '../helpers/cli.js';
import { connectReader, seededBytes } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { codeOf } from '../helpers/errors.js';

const SEED = seedFromEnv();
console.log(`client dataset seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const KiB = 1024;
const SAMPLES = 2_000;
/** A client verdict on the killed OSS that outlasts the test (it pays for the OSS once). */
const FOREVER_MS = 3_600_000;

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('packed datasets', () => {
  let cluster: Cluster;
  let client: StripeClient;
  let work: string;
  /** The local samples: key -> bytes, in key order. */
  const local = new Map<string, Buffer>();

  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(3, 1), pgCount: 16 });
    client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    work = mkdtempSync(join(tmpdir(), 'stripefs-dataset-'));
    const random = seededRandom(SEED);
    for (let i = 0; i < SAMPLES; i++) {
      const key = `class${i % 4}/img_${String(i).padStart(5, '0')}.jpg`;
      local.set(key, seededBytes(10 * KiB + random.int(90 * KiB + 1), SEED + i));
    }
    for (const [key, data] of local) {
      mkdirSync(join(work, 'src', key, '..'), { recursive: true });
      writeFileSync(join(work, 'src', key), data);
    }
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  const cli = (args: string[]) => runCli([...args, '--mds', cluster.mdsAddress], { cwd: work });
  const keysInOrder = () => [...local.keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

  it('stripefs pack from another folder: progress, shards plus an index, every sample back byte-identical by index and key', async () => {
    await client.mkdir('/datasets');
    const packed = await cli([
      'pack',
      'src',
      '/datasets/train',
      '--shard-size',
      '16M',
      '--layout',
      'replicated:2:host:4:1M',
      '--json',
    ]);
    expect(packed.stderr).toContain(`pack: ${SAMPLES}/${SAMPLES} samples`);
    expect(packed.code).toBe(0);
    const report = JSON.parse(packed.stdout);
    const totalBytes = [...local.values()].reduce((n, b) => n + b.length, 0);
    expect(report).toMatchObject({ path: '/datasets/train', samples: SAMPLES, bytes: totalBytes });
    expect(report.shards).toBeGreaterThanOrEqual(Math.ceil(totalBytes / (16 * 1024 * 1024)));
    const names = await client.readdir('/datasets/train');
    expect(names).toContain('index.sfds');
    expect(names.filter((n) => n.startsWith('shard-'))).toHaveLength(report.shards);
    expect(await client.readdir('/datasets')).toEqual(['train']);

    const dataset = await client.openDataset('/datasets/train');
    try {
      expect(dataset.length).toBe(SAMPLES);
      const keys = keysInOrder();
      expect(Array.from({ length: SAMPLES }, (_, i) => dataset.key(i))).toEqual(keys);
      const order = Array.from({ length: SAMPLES }, (_, i) => i);
      const random = seededRandom(SEED + 1);
      for (let i = order.length - 1; i > 0; i--) {
        const j = random.int(i + 1);
        [order[i], order[j]] = [order[j] as number, order[i] as number];
      }
      for (let at = 0; at < SAMPLES; at += 64) {
        const batch = order.slice(at, at + 64);
        const got = await dataset.getMany(batch);
        batch.forEach((i, n) => {
          expect(sha256(got[n] as Buffer), keys[i]).toBe(sha256(local.get(keys[i] as string) as Buffer));
        });
      }
      expect(
        (await dataset.getByKey('class3/img_01999.jpg')).equals(local.get('class3/img_01999.jpg') as Buffer),
      ).toBe(true);
      expect((await dataset.get(0)).equals(local.get(keys[0] as string) as Buffer)).toBe(true);
      const stat = await cli(['dataset', 'stat', '/datasets/train', '--json']);
      expect(JSON.parse(stat.stdout)).toMatchObject({
        formatVersion: 1,
        samples: SAMPLES,
        shards: report.shards,
        bytes: totalBytes,
      });
    } finally {
      await dataset.close();
    }
  });

  it('getMany keeps the order asked for, answers duplicates, reads neighbours as one range; bad indices and keys are refused', async () => {
    const dataset = await client.openDataset('/datasets/train');
    try {
      const keys = keysInOrder();
      const wanted = [5, 3, 5, SAMPLES - 1, 0, 3, 3];
      const got = await dataset.getMany(wanted);
      expect(got.map((b) => sha256(b))).toEqual(
        wanted.map((i) => sha256(local.get(keys[i] as string) as Buffer)),
      );
      // Samples 0..15 lie back to back in shard 0 (16 x at most 100 KiB, under the 4 MiB range bound).
      const before = dataset.stats.ranges;
      const run = Array.from({ length: 16 }, (_, i) => 15 - i);
      const backToBack = await dataset.getMany(run);
      expect(dataset.stats.ranges - before).toBe(1);
      expect(backToBack.map((b) => sha256(b))).toEqual(
        run.map((i) => sha256(local.get(keys[i] as string) as Buffer)),
      );
      expect(await dataset.getMany([])).toEqual([]);
      expect(await codeOf(dataset.get(SAMPLES))).toBe('REQ_INVALID');
      expect(await codeOf(dataset.getMany([0, -1]))).toBe('REQ_INVALID');
      expect(await codeOf(dataset.get(1.5))).toBe('REQ_INVALID');
      expect(await codeOf(dataset.getByKey('class9/none.jpg'))).toBe('DATASET_KEY_NOT_FOUND');
      expect(dataset.indexOf('class1/img_00001.jpg')).toBe(keys.indexOf('class1/img_00001.jpg'));
    } finally {
      await dataset.close();
    }
    expect(await codeOf(client.openDataset('/datasets'))).toBe('DATASET_INDEX_INVALID');
  });

  it('refuses a missing, empty or odd source and an existing DEST with their codes, storing nothing', async () => {
    mkdirSync(join(work, 'empty'));
    mkdirSync(join(work, 'odd/sub'), { recursive: true });
    writeFileSync(join(work, 'odd/sub/a.bin'), 'a');
    symlinkSync('a.bin', join(work, 'odd/sub/link.bin'));
    mkdirSync(join(work, 'fifo'));
    mkfifo(join(work, 'fifo/pipe'));
    const refusals = [
      { args: ['pack', 'nowhere', '/datasets/x'], code: 'DATASET_SOURCE_INVALID', says: 'no such folder' },
      { args: ['pack', 'empty', '/datasets/x'], code: 'DATASET_SOURCE_INVALID', says: 'holds no files' },
      {
        args: ['pack', 'odd', '/datasets/x'],
        code: 'DATASET_SOURCE_INVALID',
        says: 'sub/link.bin is a symlink',
      },
      { args: ['pack', 'fifo', '/datasets/x'], code: 'DATASET_SOURCE_INVALID', says: 'pipe is a FIFO' },
      { args: ['pack', 'src', '/datasets/train'], code: 'NS_EXISTS', says: '/datasets/train exists' },
      {
        args: ['pack', 'src/class0/img_00000.jpg', '/datasets/x'],
        code: 'DATASET_SOURCE_INVALID',
        says: 'is not a folder',
      },
    ];
    for (const r of refusals) {
      const run = await cli(r.args);
      expect(run.code, r.args.join(' ')).toBe(1);
      expect(run.stderr).toContain(`stripefs: ${r.code}`);
      expect(run.stderr).toContain(r.says);
    }
    expect(await client.readdir('/datasets')).toEqual(['train']);
    const verify = await cli(['dataset', 'verify', '/datasets/train']);
    expect(verify.stdout).toContain(`${SAMPLES} samples`);
    expect(verify.code).toBe(0);
  });

  it('the Python reference reader reads what pack wrote (the files copied out, as a mount would show them)', async () => {
    const random = seededRandom(SEED + 2);
    const samples = Array.from({ length: 120 }, (_, i) => {
      const data = seededBytes(100 + random.int(4 * KiB), SEED + 10_000 + i);
      return { key: `p/${i}-ü.bin`, sizeBytes: data.length, read: async () => data, data };
    });
    await client.packDataset('/datasets/py', samples, {
      shardBytes: 100 * KiB,
      layout: parseLayout('raid0:2:64K'),
    });
    const copy = join(work, 'py');
    mkdirSync(copy);
    for (const name of await client.readdir('/datasets/py'))
      writeFileSync(join(copy, name), await client.readFile(`/datasets/py/${name}`));
    const python = spawnSync('python3', [resolve('scripts/stripefs_dataset.py'), copy], { encoding: 'utf8' });
    expect(python.error, 'python3 must be on PATH').toBeUndefined();
    expect(python.stderr).toBe('');
    expect(python.status).toBe(0);
    const sorted = [...samples].sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
    expect(python.stdout.trim().split('\n')).toEqual(
      sorted.map(
        (s, i) => `${i} ${JSON.stringify(s.key).replace(/ü/g, '\\u00fc')} ${s.data.length} ${sha256(s.data)}`,
      ),
    );
  });

  it('a sample overwritten through the library is named by dataset verify (exit 1) and refused by get', async () => {
    const dataset: StripeDataset = await client.openDataset('/datasets/py');
    const victim = dataset.sample(17);
    await dataset.close();
    const handle = await client.open(`/datasets/py/shard-${String(victim.shard).padStart(6, '0')}.bin`, 'r+');
    await handle.write(Buffer.from('garbage!'), 0, 8, victim.offsetBytes + 1);
    await handle.close();
    const verify = await cli(['dataset', 'verify', '/datasets/py']);
    expect(verify.code).toBe(1);
    expect(verify.stdout).toContain(`sample 17 ${victim.key} (shard ${victim.shard}): crc32c mismatch`);
    const json = JSON.parse((await cli(['dataset', 'verify', '/datasets/py', '--json'])).stdout);
    expect(json).toMatchObject({ ok: false, badCount: 1, samples: 120 });
    expect(json.bad.map((b: { index: number }) => b.index)).toEqual([17]);
    const fresh = await connectReader(cluster.mdsAddress, SEED);
    try {
      const reread = await fresh.openDataset('/datasets/py');
      expect(await codeOf(reread.get(17))).toBe('DATASET_SAMPLE_CORRUPT');
      expect(await codeOf(reread.getMany([16, 18]))).toBe('OK');
      expect(reread.stats.corrupt).toBe(1);
      await reread.close();
    } finally {
      await fresh.close();
    }
  });

  it('an OSS killed during getMany: every sample still arrives whole, read from the other copy', async () => {
    const keys = keysInOrder();
    const lastShard = `/datasets/train/shard-${String((await client.readdir('/datasets/train')).filter((n) => n.startsWith('shard-')).length - 1).padStart(6, '0')}.bin`;
    const primary = (await client.getLayout(lastShard)).objects[0]?.osts[0] as number;
    const victim = cluster.ossOfOst(primary).id;
    const deadOsts = cluster.ostsOf(victim);
    const reader = await connectReader(cluster.mdsAddress, SEED, {
      requestTimeoutMs: 2_000,
      ostSuspectMs: FOREVER_MS,
    });
    try {
      // One small range at a time, so the kill lands while most of the batch (the last shard's ranges) is still to read.
      const dataset = await reader.openDataset('/datasets/train', {
        rangesInFlightMax: 1,
        rangeBytesMax: 256 * KiB,
      });
      // The samples of the last two shards: the batch ends with the shard whose first object's primary is killed.
      const wanted = Array.from({ length: SAMPLES }, (_, i) => i).filter(
        (i) => dataset.sample(i).shard >= dataset.shardCount - 2,
      );
      const reading = dataset.getMany(wanted);
      while (dataset.stats.ranges < 1) await new Promise((r) => setImmediate(r));
      await cluster.killOss(victim);
      const readBeforeKill = Object.fromEntries(
        deadOsts.map((o) => [o, reader.stats().bytesReadPerOst[o] ?? 0]),
      );
      const rangesAtKill = dataset.stats.ranges;
      const got = await reading;
      expect(rangesAtKill).toBeLessThan(dataset.stats.ranges / 2);
      expect(got).toHaveLength(wanted.length);
      got.forEach((b, n) => {
        const key = keys[wanted[n] as number] as string;
        expect(sha256(b), key).toBe(sha256(local.get(key) as Buffer));
      });
      for (const o of deadOsts) expect(reader.stats().bytesReadPerOst[o] ?? 0).toBe(readBeforeKill[o]);
      await dataset.close();
    } finally {
      await reader.close();
    }
  });
});

/** A FIFO in the source folder (mkfifo(1): node:fs has no mkfifo). */
function mkfifo(path: string): void {
  const made = spawnSync('mkfifo', [path]);
  if (made.status !== 0) throw new Error(`mkfifo ${path} failed: ${made.stderr}`);
}
