// The bench runner as a real process (the built dist/bench/run.js), writing to
// a temporary folder: a suite that fails costs only its own figures, every
// suite's seconds land in bench/results/latest.json (here the one under
// --out) as results, the shared cluster is started only when a suite asks for
// it and stopped before the suites that do not use it, and an unknown suite
// name is refused before anything runs or is written; an opt-in suite (peer-ceph) run alone
// writes its own files.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { radosFigure } from '../../bench/peer-ceph.js';
import type { BenchResult } from '../../bench/types.js';

const RUNNER = 'dist/bench/run.js';
const dir = mkdtempSync(join(tmpdir(), 'stripefs-bench-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runBench(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [RUNNER, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
}

describe('bench runner', () => {
  it('keeps the other suites figures when one fails, with seconds per suite', () => {
    const out = join(dir, 'partial');
    const run = runBench(['--quick', '--only', 'smallfiles,erasure', '--out', out], {
      STRIPEFS_BENCH_FAIL_SUITE: 'smallfiles',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('bench: smallfiles FAILED');
    // It failed before asking for the shared cluster, so none was started.
    expect(run.stderr).not.toContain('shared cluster');
    const results = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as BenchResult[];
    const erasure = results.filter((r) => r.command.startsWith('node dist/bench/erasure.js'));
    expect(erasure.length).toBeGreaterThan(0);
    expect(erasure.every((r) => r.id.startsWith('ec.') || r.id.startsWith('baseline.ec.'))).toBe(true);
    expect(run.stderr).toMatch(
      new RegExp(`bench: erasure done in [\\d.]+ s \\(${erasure.length} figures\\)`),
    );
    expect(results.some((r) => r.id.startsWith('smallfiles.'))).toBe(false);
    const seconds = results.filter((r) => r.id.startsWith('bench.seconds.'));
    expect(seconds.map((r) => [r.id, r.unit, r.note])).toEqual([
      ['bench.seconds.smallfiles', 's', 'FAILED'],
      ['bench.seconds.erasure', 's', `${erasure.length} figures`],
      ['bench.seconds.total', 's', undefined],
    ]);
    for (const r of seconds) expect(r.value).toBeGreaterThanOrEqual(0);
    expect(readFileSync(join(out, 'latest.md'), 'utf8')).toContain('| ec.encode-4+2 |');
  });

  it('starts the shared cluster when a cluster suite asks and stops it before the next suite', () => {
    const out = join(dir, 'shared');
    const run = runBench(['--quick', '--only', 'smallfiles,erasure', '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    const at = (line: RegExp): number => {
      const lines = run.stderr.split('\n');
      expect(lines.filter((l) => line.test(l)).length, String(line)).toBe(1);
      return lines.findIndex((l) => line.test(l));
    };
    const order = [
      at(/^bench: smallfiles \(quick\)\.\.\./),
      at(/^bench: shared cluster for ([\w-]+, )*smallfiles(, [\w-]+)* up in [\d.]+ s$/),
      at(/^bench: shared cluster for ([\w-]+, )*smallfiles(, [\w-]+)* stopped in [\d.]+ s$/),
      at(/^bench: smallfiles done in /),
      at(/^bench: erasure \(quick\)\.\.\./),
    ];
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    const results = JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as BenchResult[];
    expect(results.filter((r) => r.id.startsWith('smallfiles.')).length).toBe(15);
  });

  it('runs the OSS suite end to end: its OSSs register with a stand-in MDS before they serve reads', () => {
    // An OSS refuses reads until an MDS has told it which copies missed writes; a bench OSS
    // started without one failed every read (REQ_UNAVAILABLE) and the suite lost its figures.
    const out = join(dir, 'oss');
    const run = runBench(['--quick', '--only', 'oss', '--out', out]);
    expect(run.status, run.stderr).toBe(0);
    const ids = (JSON.parse(readFileSync(join(out, 'latest.json'), 'utf8')) as BenchResult[]).map(
      (r) => r.id,
    );
    for (const id of [
      'oss.bulk.write',
      'oss.bulk.read',
      'oss.bulk.read.cpu-2mib-spans',
      'oss.grpc-default.read',
    ])
      expect(ids).toContain(id);
  });

  it('writes an opt-in suite run alone to its own files, never over latest.json', () => {
    const out = join(dir, 'opt-in');
    const run = runBench(['--only', 'peer-ceph', '--out', out], { STRIPEFS_BENCH_FAIL_SUITE: 'peer-ceph' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('bench: peer-ceph FAILED');
    const results = JSON.parse(readFileSync(join(out, 'peer-ceph.json'), 'utf8')) as BenchResult[];
    expect(results.map((r) => [r.id, r.note])).toEqual([
      ['bench.seconds.peer-ceph', 'FAILED'],
      ['bench.seconds.total', undefined],
    ]);
    expect(existsSync(join(out, 'peer-ceph.md'))).toBe(true);
    expect(existsSync(join(out, 'latest.json'))).toBe(false);
  });

  it('reads the figures of a rados bench summary, and refuses one without them', () => {
    const summary = [
      'Total time run:         20.0973',
      'Total writes made:      1703',
      'Bandwidth (MB/sec):     338.95',
      'Average IOPS:           84',
    ].join('\n');
    expect(radosFigure(summary, 'Bandwidth (MB/sec)')).toBe(338.95);
    expect(radosFigure(summary, 'Average IOPS')).toBe(84);
    expect(() => radosFigure('error connecting to the cluster', 'Bandwidth (MB/sec)')).toThrow(
      /printed no "Bandwidth \(MB\/sec\)" line/,
    );
  });

  it('refuses an unknown suite before running or writing anything', () => {
    const out = join(dir, 'unknown');
    const run = runBench(['--quick', '--only', 'erasure,nosuch', '--out', out]);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('unknown suite nosuch');
    expect(run.stderr).not.toContain('bench: erasure');
    expect(existsSync(join(out, 'latest.json'))).toBe(false);
  });
});
