// What versioned copies and the record of missed writes cost on the write
// path: a sequential write (replicated:3 and raid0, one large file through
// writeFile) and small-file writes (4 KiB replicated:3 files, 16 in flight),
// each the median of ROUNDS on one cluster. stripefs has no switch that turns
// versions off (every write is stamped, every copy keeps its version, a
// skipped copy is recorded before its write is acknowledged), so the
// baseline is the commit before versions, measured side by side: this file
// only uses the client's public calls and the test cluster, so it builds
// unchanged in a checkout of that commit; run
//   node dist/bench/versions.js [--quick] [--rounds N]
// in each build, alternating, and compare the figures. Reported, never
// asserted (docs/ARCHITECTURE.md, "What versions cost", has the last run).
import { fileURLToPath } from 'node:url';
import { type Layout, StripeClient } from '../client/index.js';
import { seededBytes } from '../test/helpers/clients.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { type BenchResult, GB, median, result, type SuiteOptions } from './types.js';

const MiB = 1024 * 1024;
const KiB = 1024;
const ROUNDS = 3;
const SMALL_FILE_BYTES = 4 * KiB;
const SMALL_IN_FLIGHT = 16;
const REP3: Layout = {
  pattern: 'replicated',
  stripeSize: MiB,
  stripeCount: 4,
  replicas: 3,
  failureDomain: 'host',
};
const RAID0: Layout = { pattern: 'raid0', stripeSize: MiB, stripeCount: 4 };
const SMALL: Layout = {
  pattern: 'replicated',
  stripeSize: 64 * KiB,
  stripeCount: 1,
  replicas: 3,
  failureDomain: 'host',
};
const COMMAND = 'node dist/bench/versions.js';

/** Runs op(0..count-1) with at most `inFlight` at once; resolves the ops per second. */
async function opsPerSecond(
  count: number,
  inFlight: number,
  op: (i: number) => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    for (let i = next++; i < count; i = next++) await op(i);
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
  return count / ((performance.now() - started) / 1000);
}

async function sequentialWrite(
  client: StripeClient,
  dir: string,
  layout: Layout,
  bytes: number,
  rounds: number,
) {
  const data = seededBytes(bytes, 7);
  const rates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const path = `${dir}/seq${round}`;
    const started = performance.now();
    await client.writeFile(path, data, { layout });
    rates.push(bytes / ((performance.now() - started) / 1000) / GB);
    await client.unlink(path);
  }
  return median(rates);
}

async function smallFileWrites(client: StripeClient, dir: string, files: number, rounds: number) {
  const body = seededBytes(SMALL_FILE_BYTES, 11);
  const rates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    await client.mkdir(`${dir}/small${round}`, { layout: SMALL });
    rates.push(
      await opsPerSecond(files, SMALL_IN_FLIGHT, (i) => client.writeFile(`${dir}/small${round}/f${i}`, body)),
    );
  }
  return median(rates);
}

export async function runVersionsBench(opts: SuiteOptions & { rounds?: number }): Promise<BenchResult[]> {
  const rounds = opts.rounds ?? ROUNDS;
  const seqBytes = (opts.quick ? 64 : 256) * MiB;
  const files = opts.quick ? 500 : 2_000;
  const own = opts.cluster ? undefined : await startBenchCluster();
  const cluster: BenchCluster = own ?? (await opts.cluster!());
  const client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 1 });
  const dir = `/bench-versions-${Date.now()}`;
  try {
    await client.mkdir(dir);
    const note = `median of ${rounds}; compare with the same command on the commit before versions`;
    const rep3 = await sequentialWrite(client, dir, REP3, seqBytes, rounds);
    const raid0 = await sequentialWrite(client, dir, RAID0, seqBytes, rounds);
    const small = await smallFileWrites(client, dir, files, rounds);
    return [
      result('versions.seq-write.rep3', rep3, 'GB/s', COMMAND, undefined, note),
      result('versions.seq-write.raid0', raid0, 'GB/s', COMMAND, undefined, note),
      result('versions.small-file-write.rep3', small, 'files/s', COMMAND, undefined, note),
    ];
  } finally {
    await client.close();
    await own?.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const roundsAt = process.argv.indexOf('--rounds');
  const rounds = roundsAt >= 0 ? Number(process.argv[roundsAt + 1]) : ROUNDS;
  const results = await runVersionsBench({ quick: process.argv.includes('--quick'), rounds });
  for (const r of results) console.log(`${r.id}\t${r.value.toFixed(4)}\t${r.unit}`);
}
