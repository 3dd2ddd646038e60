// Every CLI command against a running cluster (started by `stripefs cluster
// up`), with --json where it prints data, and the error exits: 1 with a coded
// one-line reason for a failed operation, 2 for bad usage.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, stopLauncher } from '../helpers/cli.js';
import { fetchedBytes } from '../helpers/clients.js';
import { freePortRange } from '../helpers/ports.js';

describe('stripefs CLI against a running cluster', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stripefs-cli-'));
  let launcher: ChildProcess;
  let env: Record<string, string>;
  const cli = (args: string[], input?: Buffer) => runCli(args, { env, ...(input ? { input } : {}) });
  const json = async <T>(args: string[]): Promise<T> => {
    const result = await cli([...args, '--json']);
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  beforeAll(async () => {
    const basePort = await freePortRange(3 + 3 * 6);
    env = { STRIPEFS_MDS: `127.0.0.1:${basePort}` };
    launcher = spawn(
      process.execPath,
      [
        'dist/cli/main.js',
        'cluster',
        'up',
        '--data',
        join(dataDir, 'cluster'),
        '--base-port',
        String(basePort),
        '--ost-capacity',
        String(256 * 1024 * 1024),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    await new Promise<void>((resolve, reject) => {
      let out = '';
      launcher.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ctrl-C')) resolve();
      });
      launcher.once('exit', (code) => reject(new Error(`launcher exited ${code}`)));
    });
  });

  afterAll(async () => {
    await stopLauncher(launcher);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('df lists every OST with the documented JSON fields', async () => {
    const rows = await json<
      { id: number; host: string; rack: string; state: string; usedBytes: number; totalBytes: number }[]
    >(['df']);
    expect(rows).toHaveLength(12);
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(
        expect.arrayContaining(['id', 'host', 'rack', 'state', 'usedBytes', 'totalBytes']),
      );
      expect(row.state).toBe('up/in');
      expect(row.totalBytes).toBe(256 * 1024 * 1024);
    }
    expect(new Set(rows.map((r) => r.rack))).toEqual(new Set(['rack0', 'rack1', 'rack2']));
    const text = await cli(['df']);
    expect(text.stdout).toContain('USE%');
  });

  it('mkdir, setstripe, put, ls, stat, getstripe, get, mv, rm', async () => {
    expect((await cli(['mkdir', '-p', '/a/b'])).code).toBe(0);
    const set = await json<{ layout: { pattern: string; replicas: number } }>([
      'setstripe',
      '--replicas',
      '3',
      '--failure-domain',
      'rack',
      '/a',
    ]);
    expect(set.layout).toMatchObject({ pattern: 'replicated', replicas: 3, failureDomain: 'rack' });
    const local = join(dataDir, 'in.bin');
    const payload = randomBytes(2 * 1024 * 1024 + 5);
    writeFileSync(local, payload);
    expect((await cli(['put', local, '/a/file.bin'])).code).toBe(0);
    const listing = await json<{ name: string; type: string; size: number; layout: { pattern: string } }[]>([
      'ls',
      '/a',
    ]);
    expect(listing.map((e) => e.name)).toEqual(['b', 'file.bin']);
    expect(listing[1]).toMatchObject({
      type: 'file',
      size: payload.length,
      layout: { pattern: 'replicated' },
    });
    const stat = await json<{ size: number; type: string }>(['stat', '/a/file.bin']);
    expect(stat).toMatchObject({ size: payload.length, type: 'file' });
    const stripe = await json<{
      layout: { replicas: number };
      objects: { objectId: string; pg: number; osts: number[] }[];
    }>(['getstripe', '/a/file.bin']);
    expect(stripe.objects.length).toBeGreaterThan(0);
    for (const object of stripe.objects) expect(object.osts).toHaveLength(3);
    const out = join(dataDir, 'out.bin');
    const got = await cli(['get', '/a/file.bin', out]);
    expect(got.code, got.stderr).toBe(0);
    expect(readFileSync(out).equals(payload)).toBe(true);
    // --stats: the client's own numbers after the copy, as JSON and as a report on stderr.
    const measured = await json<{
      bytes: number;
      stats: {
        bytesRead: number;
        bytesReadPerOst: Record<string, number>;
        latency: Record<string, { count: number; p50Ms: number; p99Ms: number }>;
        cache: { hitRate: number };
      };
    }>(['get', '--stats', '/a/file.bin', join(dataDir, 'again.bin')]);
    expect(measured.bytes).toBe(payload.length);
    expect(measured.stats.bytesRead).toBe(payload.length);
    const perOst = fetchedBytes(measured.stats);
    expect(perOst).toBeGreaterThanOrEqual(payload.length);
    expect(measured.stats.latency.read?.count).toBeGreaterThan(0);
    const report = await cli(['get', '--stats', '/a/file.bin', join(dataDir, 'again.bin')]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stderr).toMatch(new RegExp(`read ${(payload.length / 1024 ** 2).toFixed(1)} MiB`));
    expect(report.stderr).toMatch(/LATENCY +COUNT +P50 MS +P99 MS/);
    expect(report.stderr).toMatch(/cache: hit rate [\d.]+%/);
    expect(report.stderr).toMatch(/OST +READ +WRITTEN +ANSWER MS +STATE/);
    expect(report.stderr).toMatch(/\nost\d+ +[\d.]+ \w+ +[\d.]+ \w+ +[\d.]+ +ok/);
    expect(report.stderr).toMatch(
      /bad chunks reported 0, checksum rechecks 0, slow OST verdicts 0, timeouts 0, requests given up on OSTs marked down 0/,
    );
    const piped = await cli(['get', '/a/file.bin', '-']);
    expect(Buffer.from(piped.stdout, 'binary').length).toBeGreaterThan(0);
    expect((await cli(['put', '-', '/a/stdin.txt'], Buffer.from('from stdin\n'))).code).toBe(0);
    expect((await cli(['get', '/a/stdin.txt', '-'])).stdout).toBe('from stdin\n');
    expect((await cli(['mv', '/a/file.bin', '/a/b/moved.bin'])).code).toBe(0);
    expect((await json<{ name: string }[]>(['ls', '/a/b'])).map((e) => e.name)).toEqual(['moved.bin']);
    const folder = join(dataDir, 'tree');
    mkdirSync(join(folder, 'sub'), { recursive: true });
    writeFileSync(join(folder, 'one.txt'), 'one');
    writeFileSync(join(folder, 'sub', 'two.txt'), 'two');
    expect(await json<{ files: number }>(['put', folder, '/tree'])).toMatchObject({ files: 2 });
    expect(await json<{ files: number }>(['get', '/tree', join(dataDir, 'tree-back')])).toMatchObject({
      files: 2,
    });
    expect(readFileSync(join(dataDir, 'tree-back', 'sub', 'two.txt'), 'utf8')).toBe('two');
    expect((await cli(['rm', '-r', '/a'])).code).toBe(0);
    expect((await json<{ name: string }[]>(['ls', '/'])).map((e) => e.name)).toEqual(['tree']);
  });

  it('put and get copy large files piece by piece and folders several files at once, byte for byte', async () => {
    const MiB = 1024 * 1024;
    // Larger than a put's pieces (whole stripe rows of 4 MiB and more) and a get's (8 MiB).
    const big = randomBytes(13 * MiB + 5);
    const local = join(dataDir, 'big.bin');
    writeFileSync(local, big);
    for (const layout of [
      ['--replicas', '2'],
      ['--ec', '4+2'],
    ]) {
      const remote = `/big${layout[1]}.bin`;
      expect((await cli(['put', ...layout, local, remote])).code).toBe(0);
      const back = join(dataDir, 'big-back.bin');
      const got = await cli(['get', remote, back]);
      expect(got.code, got.stderr).toBe(0);
      expect(readFileSync(back).equals(big), layout.join(' ')).toBe(true);
      expect((await cli(['rm', remote])).code).toBe(0);
    }
    // A folder of files of many sizes (empty, tiny, across piece boundaries) in nested folders.
    const folder = join(dataDir, 'many');
    const sizes = [0, 1, 4096, 100_000, MiB, 4 * MiB + 3, 9 * MiB + 77, 3, 65_536, 2 * MiB - 1, 12, 777_777];
    const files = sizes.map((size, i) => ({ path: join(`d${i % 3}`, `f${i}.bin`), data: randomBytes(size) }));
    for (const f of files) {
      mkdirSync(join(folder, f.path, '..'), { recursive: true });
      writeFileSync(join(folder, f.path), f.data);
    }
    expect(await json<{ files: number }>(['put', '--ec', '4+2', folder, '/many'])).toMatchObject({
      files: files.length,
    });
    const back = join(dataDir, 'many-back');
    expect(await json<{ files: number; bytes: number }>(['get', '/many', back])).toEqual({
      files: files.length,
      bytes: sizes.reduce((a, b) => a + b, 0),
    });
    for (const f of files) expect(readFileSync(join(back, f.path)).equals(f.data), f.path).toBe(true);
    expect((await cli(['rm', '-r', '/many'])).code).toBe(0);
  });

  it('--layout takes the layout text form, and every command prints layouts in it', async () => {
    // The pool of replicated:3:rack exists already (the test above): no new pool to recover later.
    const local = join(dataDir, 'laid.bin');
    writeFileSync(local, randomBytes(300 * 1024));
    const put = await cli(['put', '--layout', 'replicated:3:rack:2:64K', local, '/laid.bin']);
    expect(put.code, put.stderr).toBe(0);
    expect((await cli(['getstripe', '/laid.bin'])).stdout).toContain('layout: replicated:3:rack:2:64K');
    expect((await cli(['ls', '-l', '/'])).stdout).toMatch(/replicated:3:rack:2:64K +laid\.bin/);
    expect((await cli(['stat', '/laid.bin'])).stdout).toContain('layout: replicated:3:rack:2:64K');
    expect((await cli(['setstripe', '--layout', 'replicated:2:rack:4', '/'])).stdout).toBe(
      '/: replicated:2:rack:4:1M\n',
    );
    const ambiguous = await cli(['setstripe', '--layout', 'raid0:4:65536', '/']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr.trim()).toMatch(/^stripefs: LAYOUT_AMBIGUOUS \(EINVAL\): .*write 64K/);
    expect((await cli(['setstripe', '--layout', 'raid0:4', '-c', '2', '/'])).code).not.toBe(0);
    expect((await cli(['setstripe', '--layout', 'raid0:1', '/'])).code).toBe(0);
    expect((await cli(['rm', '/laid.bin'])).code).toBe(0);
  });

  it('fails with a coded one-line reason and a non-zero exit', async () => {
    const missing = await cli(['stat', '/nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr.trim()).toMatch(/^stripefs: NS_NOT_FOUND \(ENOENT\): /);
    const notEmpty = await cli(['mkdir', '/x/y']);
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.stderr).toContain('ENOENT');
    const badLayout = await cli(['setstripe', '-S', '12345', '/']);
    expect(badLayout.code).not.toBe(0);
    expect(badLayout.stderr).toMatch(/LAYOUT_INVALID|REQ_INVALID/);
    const badEc = await cli(['put', '--ec', 'four', join(dataDir, 'in.bin'), '/x']);
    expect(badEc.code).toBe(2);
    expect(badEc.stderr).toContain('--ec expects K+M');
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).not.toBe(0);
    const noCluster = await runCli(['df'], { env: { STRIPEFS_MDS: '127.0.0.1:1' } });
    expect(noCluster.code).toBe(1);
    expect(noCluster.stderr).toMatch(/^stripefs: REQ_/);
  });

  it('ost out|in|reweight change the map and health reports them', async () => {
    const before = await json<{ mapEpoch: number }>(['ost', 'out', 'ost3']);
    let health = await cli(['health', '--json']);
    expect(health.code).toBe(1);
    const outList = (JSON.parse(health.stdout) as { osts: { out: string[] } }).osts.out;
    expect(outList).toHaveLength(1);
    expect(outList[0]).toMatch(/^ost3 /);
    const after = await json<{ mapEpoch: number }>(['ost', 'in', '3']);
    expect(after.mapEpoch).toBeGreaterThan(before.mapEpoch);
    const reweighted = await json<{ mapEpoch: number }>(['ost', 'reweight', '3', '0.5']);
    expect(reweighted.mapEpoch).toBeGreaterThan(after.mapEpoch);
    const rows = await json<{ id: number; weight: number }[]>(['df']);
    expect(rows.find((r) => r.id === 3)?.weight).toBe(0.5);
    expect((await cli(['ost', 'reweight', '3', '-1'])).code).toBe(2);
    expect((await cli(['ost', 'out', 'ost999'])).stderr).toContain('MAP_UNKNOWN_OST');
    // Backfill after the reweight takes seconds when idle and minutes at load 30; the deadline
    // only bounds a hang (the cli helper kills at 180 s).
    health = await cli(['health', '--wait', '150']);
    expect(health.code, health.stdout).toBe(0);
    expect(health.stdout).toContain('HEALTH_OK');
  });

  it('a put that fails leaves no empty file behind', async () => {
    const osts = Array.from({ length: 12 }, (_, i) => `ost${i}`);
    for (const ost of osts) expect((await cli(['fault', 'set', ost, '--write-fail-rate', '1'])).code).toBe(0);
    try {
      const local = join(dataDir, 'fails.bin');
      writeFileSync(local, randomBytes(64 * 1024));
      const put = await cli(['put', local, '/fails.bin']);
      expect(put.code).toBe(1);
      expect(put.stderr).toMatch(/IO_FAILED|FAULT_INJECTED/);
      const gone = await cli(['stat', '/fails.bin']);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain('NS_NOT_FOUND');
    } finally {
      for (const ost of osts) await cli(['fault', 'clear', ost]);
    }
  });

  it('fault set|clear reach the OSS that hosts the OST', async () => {
    const set = await cli([
      'fault',
      'set',
      'ost2',
      '--latency-ms',
      '5',
      '--read-fail-rate',
      '0.5',
      '--seed',
      '7',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect((await cli(['fault', 'clear', 'ost2'])).code).toBe(0);
    const bad = await cli(['fault', 'set', 'ost2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('name at least one knob');
  });

  it('ends quietly when the reader of its output goes away (stripefs health | head -1)', async () => {
    const child = spawn(process.execPath, ['dist/cli/main.js', 'health'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reader is gone before the answer comes back: every write to stdout fails with EPIPE.
    child.stdout?.destroy();
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  });

  it('placement test runs the simulator', async () => {
    const sim = await json<{ maxOverExpected: number; unplaced: number }>([
      'placement',
      'test',
      '--topology',
      'rack=3,host=2,ost=2',
      '--rule',
      'replicated:3:rack',
      '--inputs',
      '2000',
    ]);
    expect(sim.unplaced).toBe(0);
    expect(sim.maxOverExpected).toBeGreaterThan(1);
  });
});
