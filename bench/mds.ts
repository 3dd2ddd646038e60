// MDS benchmark: a real MDS process over loopback gRPC, 16 concurrent
// callers through the client library (MdsClient: coalesced stats, creates and
// unlinks over a few connections), beside the same operations on the local
// file system (node:fs) in the same run and on the same disk: creates/s,
// stats/s, StatMany entries/s, a listing with attributes (readdir pages vs
// readdir + stat), unlinks/s; and the CPU each side spends per operation.
// `node dist/bench/mds.js [--quick]` prints a table.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { nodeFlagsOf } from '../cli/process.js';
import { MdsClient } from '../client/mds-client.js';
import { CLIENT_OPTIONS, call } from '../common/index.js';
import { contract } from '../proto/index.js';
import { ensureRunKeyring } from '../test/helpers/cluster.js';
import { localMetadata } from './baselines.js';
import { cpuTotalMs } from './cpu.js';
import { type BenchResult, result } from './types.js';

const CALLERS = 16;
const STAT_MANY_BATCH = 100;
const LIST_PAGE_ENTRIES = 10_000;
/** Operations of the ceiling figures (Ping, and stats with one RPC each): each runs at about 1,000/s here. */
const CEILING_OPS_MAX = 20_000;
const QUICK_CEILING_OPS_MAX = 1_000;
const BENCH_DIR = 'data/bench';

/** A real MDS process on port 0 (`env` added to its environment, e.g. STRIPEFS_MDS_AUTH). */
export async function startMdsProcess(dataDir: string, env: Record<string, string> = {}) {
  ensureRunKeyring();
  const script = fileURLToPath(new URL('../mds/main.js', import.meta.url));
  // e.g. STRIPEFS_BENCH_MDS_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the MDS.
  const nodeArgs = (process.env.STRIPEFS_BENCH_MDS_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeFlagsOf(script), ...nodeArgs, script], {
    env: {
      ...process.env,
      STRIPEFS_MDS_DATA_DIR: dataDir,
      STRIPEFS_MDS_GRPC_PORT: '0',
      STRIPEFS_MDS_ADMIN_PORT: '0',
      STRIPEFS_LOG_LEVEL: 'warn',
      // The bench registers one OSS that never heartbeats (no data moves):
      // keep it in for the whole run so a long run can still create files.
      STRIPEFS_MDS_OUT_GRACE_MS: '86400000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"ready"')) resolve((JSON.parse(line) as { grpcPort: number }).grpcPort);
    });
    child.once('exit', (code) => reject(new Error(`mds exited ${code}`)));
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { port, pid: child.pid!, stop };
}

function seconds(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}

/** CPU microseconds a process has used (user + system), from /proc. */
function processCpuUs(pid: number): number {
  return cpuTotalMs(pid) * 1000;
}

export interface Timed {
  perSec: number;
  clientCpuUsPerOp: number;
  mdsCpuUsPerOp: number;
}

/**
 * CALLERS loops, each running op(i) for the next i < count and waiting for it
 * before taking another: operations per second and CPU per operation.
 */
export async function timed(
  mdsPid: number,
  count: number,
  op: (i: number) => Promise<unknown>,
): Promise<Timed> {
  const start = process.hrtime.bigint();
  const clientCpu = process.cpuUsage();
  const mdsCpuUs = processCpuUs(mdsPid);
  let next = 0;
  const caller = async (): Promise<void> => {
    while (next < count) await op(next++);
  };
  await Promise.all(Array.from({ length: CALLERS }, caller));
  const used = process.cpuUsage(clientCpu);
  return {
    perSec: count / seconds(start),
    clientCpuUsPerOp: (used.user + used.system) / count,
    mdsCpuUsPerOp: (processCpuUs(mdsPid) - mdsCpuUs) / count,
  };
}

export async function runMdsBench(opts: { quick: boolean }): Promise<BenchResult[]> {
  const files = opts.quick ? 3_000 : 100_000;
  const cmd = `node dist/bench/mds.js${opts.quick ? ' --quick' : ''}`;
  mkdirSync(BENCH_DIR, { recursive: true });
  const local = await localMetadata(BENCH_DIR, files, CALLERS);
  const dataDir = join(BENCH_DIR, `mds-${process.pid}`);
  const mds = await startMdsProcess(dataDir);
  const address = `127.0.0.1:${mds.port}`;
  const client = new MdsClient(address);
  const single = new MdsClient(address, { batching: false });
  const health = new (contract().HealthService)(address, grpc.credentials.createInsecure(), CLIENT_OPTIONS);
  try {
    await call(client.grpc, 'RegisterOss', {
      ossId: 'bench',
      host: 'h0',
      rack: 'r0',
      grpcAddress: '127.0.0.1:1',
      osts: [{ name: 'ost0', totalBytes: 2 ** 40 }],
    });
    await client.mkdir('/bench', false);
    const name = (i: number) => `/bench/f${i}`;
    const ceilingOps = Math.min(files, opts.quick ? QUICK_CEILING_OPS_MAX : CEILING_OPS_MAX);
    // The ceiling on this machine right now: a unary call that touches no metadata, to the same process.
    const ping = await timed(mds.pid, ceilingOps, () => call(health, 'Ping', { payload: '' }));
    const creates = await timed(mds.pid, files, (i) =>
      client.create(name(i), { exclusive: false, truncate: false }),
    );
    const stats = await timed(mds.pid, files, (i) => client.stat(name(i)));
    const statsSingle = await timed(mds.pid, ceilingOps, (i) => single.stat(name(i)));
    const statMany = await timed(mds.pid, files / STAT_MANY_BATCH, (b) =>
      call(client.grpc, 'StatMany', {
        paths: Array.from({ length: STAT_MANY_BATCH }, (_, j) => name(b * STAT_MANY_BATCH + j)),
      }),
    );
    const listStart = process.hrtime.bigint();
    const listed = (await client.readdir('/bench', true, LIST_PAGE_ENTRIES)).length;
    if (listed !== files) throw new Error(`listed ${listed} of ${files}`);
    const listing = listed / seconds(listStart);
    const unlinks = await timed(mds.pid, files, (i) => client.unlink(name(i)));
    const fs = (value: number, what: string) => ({
      value,
      name: `node:fs ${what}, ${CALLERS} concurrent, same disk`,
    });
    const pingBaseline = { value: ping.perSec, name: `bare gRPC Ping to the MDS, ${CALLERS} concurrent` };
    const cpu = (id: string, t: Timed): BenchResult[] => [
      result(`${id}.cpu-client`, t.clientCpuUsPerOp, 'CPU us/op', cmd),
      result(`${id}.cpu-mds`, t.mdsCpuUsPerOp, 'CPU us/op', cmd),
    ];
    return [
      result('mds.creates', creates.perSec, 'ops/s', cmd, fs(local.createsPerSec, 'writeFile')),
      ...cpu('mds.creates', creates),
      result('mds.stats', stats.perSec, 'ops/s', cmd, fs(local.statsPerSec, 'stat')),
      ...cpu('mds.stats', stats),
      result(
        'mds.stats-single-rpc',
        statsSingle.perSec,
        'ops/s',
        cmd,
        pingBaseline,
        'MdsClient without batching: one Stat RPC per call',
      ),
      result(
        'mds.statmany',
        statMany.perSec * STAT_MANY_BATCH,
        'entries/s',
        cmd,
        fs(local.statsPerSec, 'stat'),
        `StatMany of ${STAT_MANY_BATCH} paths`,
      ),
      result(
        `mds.list-${files}-with-attrs`,
        listing,
        'entries/s',
        cmd,
        fs(local.listPerSec, 'readdir + stat'),
        `Readdir pages of ${LIST_PAGE_ENTRIES} with attributes, one caller`,
      ),
      result('mds.unlinks', unlinks.perSec, 'ops/s', cmd, fs(local.unlinksPerSec, 'unlink')),
      ...cpu('mds.unlinks', unlinks),
      result(
        'mds.ping',
        ping.perSec,
        'ops/s',
        cmd,
        undefined,
        'no metadata: the unary gRPC ceiling in this run',
      ),
      ...cpu('mds.ping', ping),
      result('mds.stats-vs-ping', stats.perSec, 'ops/s', cmd, pingBaseline),
      result('mds.creates-vs-ping', creates.perSec, 'ops/s', cmd, pingBaseline),
    ];
  } finally {
    client.close();
    single.close();
    health.close();
    await mds.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = await runMdsBench({ quick: process.argv.includes('--quick') });
  const fmt = (n: number | null) => (n === null ? '' : n >= 100 ? n.toFixed(0) : n.toFixed(2));
  process.stdout.write('| figure | value | baseline | ratio |\n|---|---|---|---|\n');
  for (const r of results)
    process.stdout.write(
      `| ${r.id} | ${fmt(r.value)} ${r.unit} | ${fmt(r.baseline)} (${r.baselineName}) | ${fmt(r.ratio)} |\n`,
    );
}
