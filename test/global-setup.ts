// Runs once before the suite (vitest.config.ts globalSetup). Tests spawn the
// built servers and the built CLI from dist/, so a missing or stale build would
// test yesterday's code, or skip into a green run. Refuse to start instead.
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ensureKeyring } from '../common/auth/keyring.js';

/** The folders tsconfig.build.json compiles into dist/ (tests run from their sources). */
const BUILT_FOLDERS = ['common', 'proto', 'placement', 'mds', 'oss', 'client', 's3', 'cli', 'bench'];
/** Test helpers the bench imports, and the chaos runner (npm run chaos), are built too (those only, so only their age is checked). */
const BUILT_TEST_FOLDERS = ['test/helpers', 'test/chaos'];

function* sourcesUnder(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourcesUnder(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.test.ts'))
      yield path;
  }
}

/** Every source whose compiled file is missing or older than it, relative to `root`. */
export function staleBuildFiles(root: string): string[] {
  const stale: string[] = [];
  for (const folder of [...BUILT_FOLDERS, ...BUILT_TEST_FOLDERS]) {
    const dir = join(root, folder);
    if (!existsSync(dir)) continue;
    for (const source of sourcesUnder(dir)) {
      const built = join(root, 'dist', relative(root, source).replace(/\.ts$/, '.js'));
      if (!existsSync(built)) {
        if (BUILT_FOLDERS.includes(folder)) stale.push(`${relative(root, built)} is missing`);
      } else if (statSync(built).mtimeMs < statSync(source).mtimeMs)
        stale.push(`${relative(root, source)} is newer than ${relative(root, built)}`);
    }
  }
  return stale;
}

/**
 * One admin keyring for the run, named by STRIPEFS_KEYRING before the workers start: every
 * MDS a test starts makes it its first admin, and every OSS, CLI run and client signs with it,
 * so the suite runs with auth on. Returns the clean-up.
 */
function runKeyring(): () => void {
  if (process.env.STRIPEFS_KEYRING) return () => {};
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-keyring-'));
  const path = join(dir, 'admin.keyring');
  ensureKeyring(path, 'admin');
  process.env.STRIPEFS_KEYRING = path;
  return () => rmSync(dir, { recursive: true, force: true });
}

export function setup(): () => void {
  checkBuild();
  return runKeyring();
}

function checkBuild(): void {
  const stale = staleBuildFiles(process.cwd());
  if (stale.length === 0) return;
  const shown = stale.slice(0, 5).join('\n  ');
  const more = stale.length > 5 ? `\n  ... and ${stale.length - 5} more` : '';
  throw new Error(
    `the build in dist/ is missing or older than the sources, so the tests would run old servers:\n  ${shown}${more}\n` +
      'Run `npm run build` first (`npm test` builds, then tests).',
  );
}
