// Client benchmarks: Reed-Solomon encode rate (decides main thread vs worker),
// local-disk baselines, and, given a running cluster (STRIPEFS_BENCH_MDS=host:port,
// e.g. the default local cluster of `stripefs cluster up`), sequential
// read/write per layout, each with a ratio against a baseline from the same run.
import { randomFillSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeParity } from '../client/ec.js';
import { type Layout, StripeClient } from '../client/index.js';
import type { BenchResult } from './types.js';

export type { BenchResult };

const MiB = 1 << 20;
const COMMAND = 'node dist/bench/client.js';

function gbps(bytes: number, ms: number): number {
  return bytes / 1e9 / (ms / 1000);
}

function result(id: string, value: number, baseline: number | null): BenchResult {
  return { id, value, unit: 'GB/s', baseline, ratio: baseline ? value / baseline : null, command: COMMAND };
}

function rsEncodeRate(totalBytes: number): number {
  const k = 4;
  const m = 2;
  const shards = Buffer.alloc((k + m) * MiB);
  randomFillSync(shards, 0, k * MiB);
  const started = performance.now();
  for (let done = 0; done < totalBytes; done += k * MiB) encodeParity(shards, k, m);
  return gbps(totalBytes, performance.now() - started);
}

function localDisk(dir: string, data: Buffer): { write: number; read: number } {
  const path = join(dir, 'baseline.bin');
  let started = performance.now();
  writeFileSync(path, data);
  const write = gbps(data.length, performance.now() - started);
  started = performance.now();
  readFileSync(path);
  return { write, read: gbps(data.length, performance.now() - started) };
}

const LAYOUTS: Record<string, Layout> = {
  'raid0-1': { pattern: 'raid0', stripeSize: MiB, stripeCount: 1 },
  'raid0-2': { pattern: 'raid0', stripeSize: MiB, stripeCount: 2 },
  'raid0-4': { pattern: 'raid0', stripeSize: MiB, stripeCount: 4 },
  'raid0-6': { pattern: 'raid0', stripeSize: MiB, stripeCount: 6 },
  'replicated-3': {
    pattern: 'replicated',
    stripeSize: MiB,
    stripeCount: 4,
    replicas: 3,
    failureDomain: 'host',
  },
  'ec-4+2': { pattern: 'ec', stripeSize: MiB, k: 4, m: 2, failureDomain: 'host' },
};

export async function runClientBench(opts: { quick: boolean }): Promise<BenchResult[]> {
  const sizeBytes = opts.quick ? 64 * MiB : 1024 * MiB;
  const results: BenchResult[] = [
    result('client.ec.encode-4+2.main-thread', rsEncodeRate(opts.quick ? 64 * MiB : 512 * MiB), null),
  ];
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-bench-'));
  const data = Buffer.allocUnsafe(sizeBytes);
  randomFillSync(data);
  const disk = localDisk(dir, data);
  rmSync(dir, { recursive: true, force: true });
  results.push(
    result('client.baseline.local-disk-write', disk.write, null),
    result('client.baseline.local-disk-read', disk.read, null),
  );
  const mdsAddress = process.env.STRIPEFS_BENCH_MDS;
  if (!mdsAddress) return results;
  const client = await StripeClient.connect({ mds: mdsAddress });
  const root = `/bench-client-${process.pid}`;
  await client.mkdir(root, { recursive: true });
  try {
    for (const [name, layout] of Object.entries(LAYOUTS)) {
      let started = performance.now();
      await client.writeFile(`${root}/${name}`, data, { layout });
      results.push(result(`client.write.${name}`, gbps(sizeBytes, performance.now() - started), disk.write));
      started = performance.now();
      let read = 0;
      for await (const piece of client.createReadStream(`${root}/${name}`)) read += (piece as Buffer).length;
      if (read !== sizeBytes) throw new Error(`read ${read} of ${sizeBytes}`);
      results.push(result(`client.read.${name}`, gbps(sizeBytes, performance.now() - started), disk.read));
    }
    results.push({
      id: 'client.rss-after-reads',
      value: process.memoryUsage().rss / MiB,
      unit: 'MiB',
      baseline: null,
      ratio: null,
      command: COMMAND,
    });
  } finally {
    for (const name of Object.keys(LAYOUTS)) await client.unlink(`${root}/${name}`).catch(() => undefined);
    await client.rmdir(root).catch(() => undefined);
    await client.close();
  }
  return results;
}

if (process.argv[1]?.endsWith('bench/client.js')) {
  runClientBench({ quick: !process.argv.includes('--full') }).then(
    (results) => {
      for (const r of results) console.log(JSON.stringify(r));
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
