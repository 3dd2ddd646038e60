// Runs every `test:<name>` npm script of package.json, one after another, after
// `npm test` in .ci/run: the suites that need outside programs (docker, FUSE,
// S3 clients, a browser) live there, each installing what it needs or saying
// loudly why it skips. Every suite runs even when one fails; the summary names
// each with its result and time, and the exit code is 1 if any failed.
//
//   node scripts/run-test-suites.mjs            every test:* script
//   node scripts/run-test-suites.mjs --list     only print their names
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts ?? {};
const suites = Object.keys(scripts).filter((name) => name.startsWith('test:'));
if (process.argv.includes('--list')) {
  for (const name of suites) console.log(name);
  process.exit(0);
}
if (suites.length === 0) console.log('ci: no test:* scripts in package.json');
const results = [];
for (const name of suites) {
  console.log(`ci: npm run ${name} (${results.length + 1} of ${suites.length})`);
  const started = performance.now();
  const run = spawnSync('npm', ['run', name], { stdio: 'inherit' });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const code = run.status ?? (run.signal ? `signal ${run.signal}` : `error ${run.error?.message}`);
  results.push({ name, ok: run.status === 0, code, seconds });
}
for (const r of results)
  console.log(`ci: ${r.ok ? 'ok    ' : 'FAILED'} ${r.name} (exit ${r.code}, ${r.seconds} s)`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
