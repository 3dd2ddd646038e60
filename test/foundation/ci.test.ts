// .ci/run must run exactly the test command that README.md gives users
// (after building the native crc32c addon as a step that fails loudly), then
// every test:* script (the suites that need outside programs).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

it('.ci/run installs with npm ci, lints, type-checks and runs the README test command', () => {
  const readme = readFileSync('README.md', 'utf8');
  const quickStart = readme.slice(readme.indexOf('## Quick start'));
  const commands = [...quickStart.matchAll(/```(?:sh|bash)?\n([\s\S]*?)```/g)].map((m) =>
    (m[1] as string).trim(),
  );
  expect(commands.slice(0, 2)).toEqual(['npm install && npm start', 'npm test']);
  const ci = readFileSync('.ci/run', 'utf8')
    .split('\n')
    .filter(
      (line) =>
        line.trim() !== '' && !line.startsWith('#') && !line.startsWith('set ') && !line.startsWith('cd '),
    );
  expect(ci).toEqual([
    'npm ci --no-audit --no-fund',
    'npm run lint',
    'npm run typecheck',
    'npm run build:native',
    'npm test',
    'node scripts/run-test-suites.mjs',
  ]);
});

it('runs every test:* script of package.json after npm test, all of them even when one fails', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-ci-'));
  try {
    const scripts = {
      test: 'echo never',
      'test:a': 'echo ran-a',
      'test:b': 'echo ran-b && exit 3',
      'test:c': 'echo ran-c',
      'bench:x': 'echo never',
    };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'ci-probe', scripts }));
    const run = spawnSync(process.execPath, [join(process.cwd(), 'scripts/run-test-suites.mjs')], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    for (const ran of ['ran-a', 'ran-b', 'ran-c']) expect(run.stdout).toContain(ran);
    expect(run.stdout).not.toContain('never');
    expect(run.stdout).toMatch(/ok +test:a/);
    expect(run.stdout).toMatch(/FAILED test:b \(exit 3/);
    expect(run.stdout).toMatch(/ok +test:c/);
    const list = spawnSync(process.execPath, [join(process.cwd(), 'scripts/run-test-suites.mjs'), '--list'], {
      cwd: process.cwd(),
      encoding: 'utf8',
    });
    const mine = Object.keys(JSON.parse(readFileSync('package.json', 'utf8')).scripts).filter((s) =>
      s.startsWith('test:'),
    );
    expect(list.stdout.split('\n').filter(Boolean)).toEqual(mine);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
