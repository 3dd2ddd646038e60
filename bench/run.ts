// `npm run bench [-- --quick] [-- --only placement,oss]`: runs every benchmark
// of the project, each beside its same-run baseline, and writes
// bench/results/latest.json, bench/results/latest.md, the SVG charts, and the
// Performance section of README.md.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { localDisk, localMetadata, memoryCopy, rawSocketPump } from './baselines.js';
import { renderCharts } from './charts.js';
import { type BenchResult, GB, result } from './types.js';

type Suite = (opts: { quick: boolean }) => Promise<BenchResult[]>;

const SUITES: Record<string, () => Promise<Suite>> = {
  baselines: async () => runBaselines,
  placement: async () => (await import('./placement.js')).runPlacementBench,
  oss: async () => (await import('./oss.js')).runOssBench,
  mds: async () => (await import('./mds.js')).runMdsBench,
  client: async () => (await import('./client.js')).runClientBench,
  recovery: async () => (await import('./recovery.js')).runRecoveryBench,
};

const MiB = 1024 * 1024;

async function runBaselines({ quick }: { quick: boolean }): Promise<BenchResult[]> {
  const bytes = (quick ? 256 : 1024) * MiB;
  const cmd = `npm run bench -- --only baselines${quick ? ' --quick' : ''}`;
  const socket = await rawSocketPump(bytes);
  const disk = await localDisk('data/bench', bytes);
  const meta = await localMetadata('data/bench', quick ? 2_000 : 10_000, 16);
  return [
    result('baseline.raw-socket', socket / GB, 'GB/s', cmd),
    result('baseline.disk-write-new', disk.writeNew / GB, 'GB/s', cmd),
    result('baseline.disk-read', disk.read / GB, 'GB/s', cmd),
    result('baseline.fs-creates', meta.createsPerSec, 'ops/s', cmd),
    result('baseline.fs-stats', meta.statsPerSec, 'ops/s', cmd),
    result('baseline.fs-readdir-stat', meta.listPerSec, 'entries/s', cmd),
    result('baseline.fs-unlinks', meta.unlinksPerSec, 'ops/s', cmd),
    result('baseline.memcpy', memoryCopy(bytes * 4) / GB, 'GB/s', cmd),
  ];
}

function markdown(results: BenchResult[], machine: string): string {
  const fmt = (n: number | null) =>
    n === null ? '' : n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(3);
  const rows = results.map(
    (r) =>
      `| ${r.id} | ${fmt(r.value)} ${r.unit} | ${r.baseline === null ? '' : `${fmt(r.baseline)} (${r.baselineName ?? ''})`} | ${fmt(r.ratio)} | \`${r.command}\` |`,
  );
  return [
    `Measured on ${machine}.`,
    '',
    '| figure | value | baseline | ratio | command |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

function updateReadme(table: string): void {
  const readme = readFileSync('README.md', 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) return;
  writeFileSync('README.md', `${readme.slice(0, from + start.length)}\n${table}\n${readme.slice(to)}`);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const onlyIndex = args.indexOf('--only');
  const only = onlyIndex >= 0 ? (args[onlyIndex + 1] ?? '').split(',') : Object.keys(SUITES);
  const results: BenchResult[] = [];
  const failed: string[] = [];
  for (const name of only) {
    const load = SUITES[name];
    if (!load) throw new Error(`unknown suite ${name}; suites: ${Object.keys(SUITES).join(', ')}`);
    process.stderr.write(`bench: ${name}${quick ? ' (quick)' : ''}...\n`);
    const started = Date.now();
    try {
      const suite = await load();
      const suiteResults = await suite({ quick });
      results.push(...suiteResults);
      process.stderr.write(
        `bench: ${name} done in ${((Date.now() - started) / 1000).toFixed(1)} s (${suiteResults.length} figures)\n`,
      );
    } catch (err) {
      // One failing suite must not lose the others' figures: report it and go on.
      failed.push(name);
      process.stderr.write(
        `bench: ${name} FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
    }
  }
  const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}${quick ? ', --quick' : ''}`;
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(join('bench/results', 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  const table = markdown(results, machine);
  writeFileSync(join('bench/results', 'latest.md'), table);
  renderCharts(results, 'bench/results');
  if (only.length === Object.keys(SUITES).length && failed.length === 0) updateReadme(table);
  process.stdout.write(`${table}\n`);
  if (failed.length > 0) {
    process.stderr.write(`bench: suites that failed: ${failed.join(', ')}\n`);
    process.exitCode = 1;
  }
}

await main();
