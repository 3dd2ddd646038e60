// What auth costs. At the MDS: two real MDS processes in the same run, one with
// auth (every call signed and checked against caps, tickets stamped on file
// attributes) and one without, the same 16 callers through MdsClient on each:
// creates/s and stats/s, measured in alternating rounds (on, off, on, off ...)
// so load on the machine falls on both alike; the median round of each. On
// the data path: sequential writeFile and readFile with and without tickets
// (bench/auth-data.ts). `node dist/bench/auth.js [--quick]` prints a table.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MdsClient } from '../client/mds-client.js';
import { call } from '../common/index.js';
import { runAuthDataBench } from './auth-data.js';
import { startMdsProcess, timed } from './mds.js';
import { type BenchResult, result } from './types.js';

const ROUNDS = 5;
const BENCH_DIR = 'data/bench';

interface Side {
  name: 'on' | 'off';
  client: MdsClient;
  mds: Awaited<ReturnType<typeof startMdsProcess>>;
  dataDir: string;
}

async function startSide(name: 'on' | 'off'): Promise<Side> {
  const dataDir = join(BENCH_DIR, `auth-${name}-${process.pid}`);
  const mds = await startMdsProcess(dataDir, { STRIPEFS_MDS_AUTH: name === 'on' ? 'true' : 'false' });
  const client = new MdsClient(`127.0.0.1:${mds.port}`);
  await call(client.grpc, 'RegisterOss', {
    ossId: 'bench',
    host: 'h0',
    rack: 'r0',
    grpcAddress: '127.0.0.1:1',
    osts: [{ name: 'ost0', totalBytes: 2 ** 40 }],
  });
  await client.mkdir('/bench', false);
  return { name, client, mds, dataDir };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

export async function runAuthBench(opts: { quick: boolean }): Promise<BenchResult[]> {
  const files = opts.quick ? 2_000 : 10_000;
  const cmd = `node dist/bench/auth.js${opts.quick ? ' --quick' : ''}`;
  const sides = [await startSide('on'), await startSide('off')];
  const series = () => ({
    on: { creates: [] as number[], stats: [] as number[] },
    off: { creates: [] as number[], stats: [] as number[] },
  });
  const rates = series();
  const cpu = series();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const name = (i: number) => `/bench/r${round}-${i}`;
        const creates = await timed(side.mds.pid, files, (i) =>
          side.client.create(name(i), { exclusive: false, truncate: false }),
        );
        const stats = await timed(side.mds.pid, files, (i) => side.client.stat(name(i)));
        rates[side.name].creates.push(creates.perSec);
        rates[side.name].stats.push(stats.perSec);
        cpu[side.name].creates.push(creates.mdsCpuUsPerOp);
        cpu[side.name].stats.push(stats.mdsCpuUsPerOp);
      }
    }
  } finally {
    for (const side of sides) {
      side.client.close();
      await side.mds.stop();
      rmSync(side.dataDir, { recursive: true, force: true });
    }
  }
  const off = (what: 'creates' | 'stats') => ({
    value: median(rates.off[what]),
    name: `the same ${what} on an MDS without auth, same run`,
  });
  const note = `median of ${ROUNDS} alternating rounds of ${files}, 16 callers`;
  const offCpu = (what: 'creates' | 'stats') => ({
    value: median(cpu.off[what]),
    name: `MDS CPU per ${what.slice(0, -1)} without auth, same run`,
  });
  const data = await runAuthDataBench({ quick: opts.quick, command: cmd });
  return [
    ...data,
    result('auth.mds-creates', median(rates.on.creates), 'ops/s', cmd, off('creates'), note),
    result('auth.mds-stats', median(rates.on.stats), 'ops/s', cmd, off('stats'), note),
    result('auth.mds-creates.cpu-mds', median(cpu.on.creates), 'CPU us/op', cmd, offCpu('creates'), note),
    result('auth.mds-stats.cpu-mds', median(cpu.on.stats), 'CPU us/op', cmd, offCpu('stats'), note),
  ];
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = await runAuthBench({ quick: process.argv.includes('--quick') });
  process.stdout.write('| figure | auth on | auth off | on/off |\n|---|---|---|---|\n');
  for (const r of results)
    process.stdout.write(
      `| ${r.id} | ${r.value.toFixed(r.unit === 'GB/s' ? 3 : 0)} ${r.unit} | ${r.baseline?.toFixed(r.unit === 'GB/s' ? 3 : 0)} | ${r.ratio?.toFixed(3)} |\n`,
    );
}
