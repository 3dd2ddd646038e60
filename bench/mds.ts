// MDS benchmark: a real MDS process over loopback gRPC, 16 concurrent
// callers, beside the same operations on the local file system (node:fs) in
// the same run and on the same disk: creates/s, stats/s, StatMany entries/s,
// a listing with attributes (readdir pages vs readdir + stat), unlinks/s.
// `node dist/bench/mds.js [--quick]` prints a table.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { CLIENT_OPTIONS, call, Semaphore } from '../common/index.js';
import type { MdsServiceClient } from '../proto/gen/stripefs/v1/MdsService.js';
import { contract } from '../proto/index.js';
import { localMetadata } from './baselines.js';
import { type BenchResult, result } from './types.js';

const CALLERS = 16;
const CHANNELS = 4;
const STAT_MANY_BATCH = 100;
const LIST_PAGE_ENTRIES = 10_000;
const BENCH_DIR = 'data/bench';

async function startMdsProcess(dataDir: string) {
  const script = fileURLToPath(new URL('../mds/main.js', import.meta.url));
  const child = spawn(process.execPath, [script], {
    env: {
      ...process.env,
      STRIPEFS_MDS_DATA_DIR: dataDir,
      STRIPEFS_MDS_GRPC_PORT: '0',
      STRIPEFS_MDS_ADMIN_PORT: '0',
      STRIPEFS_LOG_LEVEL: 'warn',
      // The bench registers one OSS that never heartbeats (no data moves):
      // keep it in for the whole run so a long run can still create files.
      STRIPEFS_MDS_OUT_GRACE_MS: '86400000',
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
  return { port, stop };
}

function seconds(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}

/** Runs op(i) for i < count with CALLERS in flight; returns operations per second. */
async function timed(count: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const gate = new Semaphore(CALLERS);
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: count }, (_, i) => gate.run(() => op(i))));
  return count / seconds(start);
}

async function listWithAttrs(client: MdsServiceClient, path: string): Promise<number> {
  let cursor = '';
  let entries = 0;
  do {
    const page = await call(client, 'Readdir', { path, cursor, limit: LIST_PAGE_ENTRIES, withAttrs: true });
    entries += page.entries.length;
    cursor = page.nextCursor;
  } while (cursor);
  return entries;
}

export async function runMdsBench(opts: { quick: boolean }): Promise<BenchResult[]> {
  const files = opts.quick ? 10_000 : 100_000;
  const cmd = `node dist/bench/mds.js${opts.quick ? ' --quick' : ''}`;
  mkdirSync(BENCH_DIR, { recursive: true });
  const local = await localMetadata(BENCH_DIR, files, CALLERS);
  const dataDir = join(BENCH_DIR, `mds-${process.pid}`);
  const mds = await startMdsProcess(dataDir);
  const clients = Array.from(
    { length: CHANNELS },
    (_, i) =>
      new (contract().MdsService)(`127.0.0.1:${mds.port}`, grpc.credentials.createInsecure(), {
        ...CLIENT_OPTIONS,
        'grpc.use_local_subchannel_pool': 1,
        'stripefs.channel': i,
      }),
  );
  const pick = (i: number) => clients[i % CHANNELS]!;
  try {
    await call(clients[0]!, 'RegisterOss', {
      ossId: 'bench',
      host: 'h0',
      rack: 'r0',
      grpcAddress: '127.0.0.1:1',
      osts: [{ name: 'ost0', totalBytes: 2 ** 40 }],
    });
    await call(clients[0]!, 'Mkdir', { path: '/bench' });
    const name = (i: number) => `/bench/f${i}`;
    // The ceiling on this machine right now: a unary call that touches no metadata, to the same process.
    const health = new (contract().HealthService)(
      `127.0.0.1:${mds.port}`,
      grpc.credentials.createInsecure(),
      CLIENT_OPTIONS,
    );
    const pings = await timed(Math.min(files, 20_000), () => call(health, 'Ping', { payload: '' }));
    health.close();
    const ping = { value: pings, name: `bare gRPC Ping to the MDS, ${CALLERS} concurrent` };
    const creates = await timed(files, (i) => call(pick(i), 'Create', { path: name(i) }));
    const stats = await timed(files, (i) => call(pick(i), 'Stat', { path: name(i) }));
    const statMany =
      (await timed(files / STAT_MANY_BATCH, (b) =>
        call(pick(b), 'StatMany', {
          paths: Array.from({ length: STAT_MANY_BATCH }, (_, j) => name(b * STAT_MANY_BATCH + j)),
        }),
      )) * STAT_MANY_BATCH;
    const listStart = process.hrtime.bigint();
    const listed = await listWithAttrs(clients[0]!, '/bench');
    if (listed !== files) throw new Error(`listed ${listed} of ${files}`);
    const listing = listed / seconds(listStart);
    const unlinks = await timed(files, (i) => call(pick(i), 'Unlink', { path: name(i) }));
    const fs = (value: number, what: string) => ({
      value,
      name: `node:fs ${what}, ${CALLERS} concurrent, same disk`,
    });
    return [
      result('mds.creates', creates, 'ops/s', cmd, fs(local.createsPerSec, 'writeFile')),
      result('mds.stats', stats, 'ops/s', cmd, fs(local.statsPerSec, 'stat')),
      result(
        'mds.statmany',
        statMany,
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
      result('mds.unlinks', unlinks, 'ops/s', cmd, fs(local.unlinksPerSec, 'unlink')),
      result('mds.ping', pings, 'ops/s', cmd, undefined, 'no metadata: the gRPC ceiling in this run'),
      result('mds.stats-vs-ping', stats, 'ops/s', cmd, ping),
      result('mds.creates-vs-ping', creates, 'ops/s', cmd, ping),
    ];
  } finally {
    for (const c of clients) c.close();
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
