// The bench runner as a real process (the built dist/bench/run.js), writing to
// a temporary folder: a suite that fails costs only its own figures, every
// suite's seconds land in bench/results/latest.json (here the one under
// --out) as results, the shared cluster is started only when a suite asks for
// it and stopped before the suites that do not use it, and an unknown suite
// name is refused before anything runs or is written.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
    expect(results.filter((r) => r.id.startsWith('smallfiles.')).length).toBe(11);
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
