// .ci/run must run exactly the test command that README.md gives users
// (after building the native crc32c addon as a step that fails loudly).
import { readFileSync } from 'node:fs';
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
    'npm run test:compose',
    'npm run test:mount',
  ]);
});
