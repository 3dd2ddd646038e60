// `npm run bench [-- --quick] [-- --only placement,oss] [-- --out dir]`: runs
// every benchmark of the project, each beside its same-run baseline, and writes
// bench/results/latest.json, bench/results/latest.md and the SVG charts (or
// the same under `--out`, to keep a branch's run beside main's), and the Performance section of
// README.md after a full run into bench/results. The suites that only read and
// write a cluster (CLUSTER_SUITES) share one, started when the first of them
// asks and stopped after the last. STRIPEFS_BENCH_FAIL_SUITE=name makes that
// suite throw at its start (the runner's own test uses it).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { localDisk, localMetadata, memoryCopy, rawSocketPump } from './baselines.js';
import { renderCharts } from './charts.js';
import { sharedCluster } from './cluster.js';
import { type BenchResult, GB, result, type SuiteOptions } from './types.js';

type Suite = (opts: SuiteOptions) => Promise<BenchResult[]>;

const SUITES: Record<string, () => Promise<Suite>> = {
  baselines: async () => runBaselines,
  placement: async () => (await import('./placement.js')).runPlacementBench,
  oss: async () => (await import('./oss.js')).runOssBench,
  ostsmall: async () => (await import('./ost-small.js')).runOstSmallBench,
  mds: async () => (await import('./mds.js')).runMdsBench,
  auth: async () => (await import('./auth.js')).runAuthBench,
  tls: async () => (await import('./tls.js')).runTlsBench,
  client: async () => (await import('./client.js')).runClientBench,
  smallfiles: async () => (await import('./smallfiles.js')).runSmallFilesBench,
  smallops: async () => (await import('./smallops.js')).runSmallOpsBench,
  versions: async () => (await import('./versions.js')).runVersionsBench,
  checkpoint: async () => (await import('./checkpoint.js')).runCheckpointBench,
  s3: async () => (await import('./s3.js')).runS3Bench,
  cli: async () => (await import('./cli.js')).runCliBench,
  shapes: async () => (await import('./shapes.js')).runShapesBench,
  // Needs root, /dev/fuse and fio; without them it says so and adds no figures.
  mount: async () => (await import('./mount.js')).runMountBench,
  // After the shared cluster's users: it starts its own (it kills hosts, with its own timers).
  recovery: async () => (await import('./recovery.js')).runRecoveryBench,
  erasure: async () => (await import('./erasure.js')).runErasureBench,
};

/**
 * Suites run only when named with --only: they install and start another
 * system (peer-ceph: Ceph from Debian) or work at a scale (smallfiles-scale:
 * 100,000 files and a 1,000,000-entry directory) and take minutes to an hour. Their table goes to
 * bench/results/<name>.md and the README's <!-- <name>:start --> section.
 */
const OPT_IN_SUITES: Record<string, () => Promise<Suite>> = {
  'peer-ceph': async () => (await import('./peer-ceph.js')).runPeerCephBench,
  'smallfiles-scale': async () => (await import('./smallfiles-scale.js')).runSmallFilesScaleBench,
  // Data-on-MDS reads by how many are in flight, in alternating rounds: CPU per sample by process.
  domshapes: async () => (await import('./dom-shapes.js')).runDomShapesBench,
};

/** Suites handed the run's shared cluster (each starts its own when run alone from its file). */
const CLUSTER_SUITES = new Set([
  'client',
  'smallfiles',
  'smallops',
  'versions',
  'checkpoint',
  'mount',
  's3',
  'cli',
  'shapes',
]);
const MiB = 1024 * 1024;
const RESULTS_DIR = 'bench/results';

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

function suiteCommand(names: string, quick: boolean): string {
  return `npm run bench -- --only ${names}${quick ? ' --quick' : ''}`;
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

function updateReadme(table: string, section = 'bench'): void {
  const readme = readFileSync('README.md', 'utf8');
  const start = `<!-- ${section}:start -->`;
  const end = `<!-- ${section}:end -->`;
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) return;
  writeFileSync('README.md', `${readme.slice(0, from + start.length)}\n${table}\n${readme.slice(to)}`);
}

/** Runs the suites in order; one failing suite is reported and the others still run. */
async function runSuites(
  only: string[],
  quick: boolean,
): Promise<{ results: BenchResult[]; failed: string[] }> {
  const results: BenchResult[] = [];
  const failed: string[] = [];
  // Wall-clock seconds per suite, as results too, so a budget overrun shows in latest.json.
  const timings: BenchResult[] = [];
  const runStarted = performance.now();
  const since = (started: number) => (performance.now() - started) / 1000;
  const unknown = only.filter((name) => !SUITES[name] && !OPT_IN_SUITES[name]);
  if (unknown.length > 0)
    throw new Error(
      `unknown suite ${unknown.join(', ')}; suites: ${Object.keys(SUITES).join(', ')}; only when named: ${Object.keys(OPT_IN_SUITES).join(', ')}`,
    );
  const shared = sharedCluster((event, seconds) =>
    process.stderr.write(
      `bench: shared cluster for ${[...CLUSTER_SUITES].join(', ')} ${event} in ${seconds.toFixed(1)} s\n`,
    ),
  );
  for (const [index, name] of only.entries()) {
    const load = (SUITES[name] ?? OPT_IN_SUITES[name]) as () => Promise<Suite>;
    process.stderr.write(
      `bench: ${name}${quick ? ' (quick)' : ''}... (${since(runStarted).toFixed(0)} s so far)\n`,
    );
    const started = performance.now();
    let outcome: string;
    try {
      if (process.env.STRIPEFS_BENCH_FAIL_SUITE === name)
        throw new Error('failed on purpose (STRIPEFS_BENCH_FAIL_SUITE)');
      const suite = await load();
      const suiteResults = await suite({
        quick,
        ...(CLUSTER_SUITES.has(name) ? { cluster: shared.get } : {}),
      });
      results.push(...suiteResults);
      outcome = `${suiteResults.length} figures`;
    } catch (err) {
      // One failing suite must not lose the others' figures: report it and go on.
      failed.push(name);
      outcome = 'FAILED';
      // It may have left the shared cluster broken: a later suite gets a fresh one.
      if (CLUSTER_SUITES.has(name)) await shared.stop();
      process.stderr.write(
        `bench: ${name} FAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
    }
    // The last suite that uses the shared cluster pays for stopping it.
    if (!only.slice(index + 1).some((later) => CLUSTER_SUITES.has(later))) await shared.stop();
    const seconds = since(started);
    process.stderr.write(`bench: ${name} done in ${seconds.toFixed(1)} s (${outcome})\n`);
    timings.push(
      result(`bench.seconds.${name}`, seconds, 's', suiteCommand(name, quick), undefined, outcome),
    );
  }
  const total = since(runStarted);
  const all = only.length === Object.keys(SUITES).length;
  const totalCommand = all
    ? `npm run bench${quick ? ' -- --quick' : ''}`
    : suiteCommand(only.join(','), quick);
  timings.push(result('bench.seconds.total', total, 's', totalCommand));
  process.stderr.write(`bench: ${only.length} suites in ${total.toFixed(1)} s\n`);
  return { results: [...results, ...timings], failed };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const onlyIndex = args.indexOf('--only');
  const only = onlyIndex >= 0 ? (args[onlyIndex + 1] ?? '').split(',') : Object.keys(SUITES);
  const outIndex = args.indexOf('--out');
  const out = outIndex >= 0 ? (args[outIndex + 1] ?? RESULTS_DIR) : RESULTS_DIR;
  const { results, failed } = await runSuites(only, quick);
  const machine = `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}${quick ? ', --quick' : ''}`;
  mkdirSync(out, { recursive: true });
  // An opt-in suite run alone keeps its own files (<name>.json, <name>.md) and README section, so
  // it never overwrites the main table; a run of several suites writes latest.* as always.
  const optIn = only.length === 1 && OPT_IN_SUITES[only[0] as string] ? (only[0] as string) : undefined;
  const stem = optIn ?? 'latest';
  writeFileSync(join(out, `${stem}.json`), `${JSON.stringify(results, null, 2)}\n`);
  const table = markdown(results, machine);
  writeFileSync(join(out, `${stem}.md`), table);
  if (!optIn) renderCharts(results, out);
  const complete = only.length === Object.keys(SUITES).length && failed.length === 0;
  if (complete && out === RESULTS_DIR) updateReadme(table);
  if (optIn && out === RESULTS_DIR && failed.length === 0 && results.some((r) => r.baseline !== null))
    updateReadme(table, optIn);
  process.stdout.write(`${table}\n`);
  if (failed.length > 0) {
    process.stderr.write(`bench: suites that failed: ${failed.join(', ')}\n`);
    process.exitCode = 1;
  }
}

await main();
