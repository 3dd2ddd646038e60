// npm run chaos -- --seed S --minutes M [--hosts N] [--writers N] [--readers N]
//   [--history FILE] [--logs DIR] [--no-partition] [--faults KIND,...]
// A seeded chaos run on a real local cluster (test/chaos/run.ts); exits 1 and
// prints each violation with the smallest history slice that shows it, and the
// command that replays the same schedule.
import { parseArgs } from 'node:util';
import { seedFromEnv } from '../../common/random.js';
import { ensureRunKeyring } from '../helpers/cluster.js';
import { runChaos } from './run.js';
import { FAULT_KINDS, type FaultAction } from './schedule.js';

const USAGE =
  'usage: npm run chaos -- [--seed S] [--minutes M] [--hosts 4|6|...] [--writers N] [--readers N] [--history FILE] [--logs DIR] [--no-partition] [--faults KIND,...]';

function count(text: string | undefined, fallback: number, name: string, min: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n < min)
    throw new Error(`--${name} ${text}: expected a number >= ${min}\n${USAGE}`);
  return n;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      minutes: { type: 'string' },
      hosts: { type: 'string' },
      writers: { type: 'string' },
      readers: { type: 'string' },
      history: { type: 'string' },
      logs: { type: 'string' },
      'no-partition': { type: 'boolean' },
      faults: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const seed = values.seed === undefined ? seedFromEnv() : count(values.seed, 0, 'seed', 0) >>> 0;
  const minutes = count(values.minutes, 1, 'minutes', 0.1);
  const hosts = Math.floor(count(values.hosts, 4, 'hosts', 4));
  const only = values.faults?.split(',').map((k) => k.trim());
  const unknown = only?.filter((k) => !(FAULT_KINDS as string[]).includes(k));
  if (unknown?.length)
    throw new Error(`--faults: unknown ${unknown.join(', ')} (kinds: ${FAULT_KINDS.join(', ')})`);
  const replay =
    `npm run chaos -- --seed ${seed} --minutes ${minutes} --hosts ${hosts}` +
    (only ? ` --faults ${only.join(',')}` : '') +
    (values['no-partition'] ? ' --no-partition' : '');
  console.log(`chaos seed=${seed} minutes=${minutes} hosts=${hosts} (replay: ${replay})`);
  ensureRunKeyring();
  const started = performance.now();
  const result = await runChaos({
    seed,
    durationMs: Math.round(minutes * 60_000),
    hosts,
    writers: Math.floor(count(values.writers, 3, 'writers', 1)),
    readers: Math.floor(count(values.readers, 2, 'readers', 1)),
    partition: !values['no-partition'],
    ...(only ? { only: only as FaultAction['kind'][] } : {}),
    ...(values.history ? { historyPath: values.history } : {}),
    ...(values.logs ? { logDir: values.logs } : {}),
    log: (line) => console.log(line),
  });
  const c = result.counts;
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.log(
    `chaos seed=${seed}: ${c.writesOk} writes acknowledged, ${c.writesFailed} failed; ${c.readsOk} reads checked ` +
      `(${c.unitsChecked} stripe units), ${c.readsFailed} failed; ${result.faultsApplied} faults applied; ` +
      `${seconds} s in all; history ${result.historyPath}`,
  );
  if (result.report.length === 0) {
    console.log(`chaos seed=${seed}: PASS`);
    return 0;
  }
  for (const line of result.report) console.log(line);
  console.log(
    `chaos seed=${seed}: FAIL, ${result.violations.length} violations, ${result.report.length - result.violations.length} convergence or scrub findings (replay: ${replay})`,
  );
  return 1;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err instanceof Error ? err.stack : err);
    process.exit(2);
  },
);
