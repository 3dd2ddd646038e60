// The suite refuses to run on a missing or stale build (test/global-setup.ts):
// tests spawn the built servers, so an old dist/ would test old code, and a
// missing one used to skip whole files into a green run.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { staleBuildFiles } from '../global-setup.js';

const root = mkdtempSync(join(tmpdir(), 'stripefs-build-check-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function file(path: string, ageSeconds: number): void {
  const full = join(root, path);
  mkdirSync(join(full, '..'), { recursive: true });
  writeFileSync(full, '');
  const at = Date.now() / 1000 - ageSeconds;
  utimesSync(full, at, at);
}

it('names every source whose build is missing or older, and nothing else', () => {
  file('mds/fresh.ts', 100);
  file('dist/mds/fresh.js', 50);
  file('mds/edited.ts', 10);
  file('dist/mds/edited.js', 50);
  file('oss/new.ts', 10);
  file('mds/skip.test.ts', 1);
  file('test/helpers/built.ts', 10);
  file('dist/test/helpers/built.js', 50);
  file('test/helpers/unbuilt.ts', 10);
  expect(staleBuildFiles(root).sort()).toEqual([
    'dist/oss/new.js is missing',
    'mds/edited.ts is newer than dist/mds/edited.js',
    'test/helpers/built.ts is newer than dist/test/helpers/built.js',
  ]);
});
