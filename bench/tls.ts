// What TLS costs (common/tls.ts). Two real clusters in the same run (1 MDS and
// 3 OSSs each), one with TLS on every gRPC and bulk port and one without, the
// same client calls on each: writeFile and readFile of one large raid0 file
// striped over the 3 OSSs, and of 64 KiB files one after another, in alternating
// rounds (on, off, off, on ...) so load on the machine falls on both alike; the
// median round of each. Beside the rates, the CPU every process of a side used
// (the client, the MDS, the OSSs: user and system time from /proc) per GiB
// moved, which depends far less on how busy the machine is than a rate.
// `node dist/bench/tls.js [--quick]` prints a table; `npm run bench -- --only tls`.
import { randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Layout, StripeClient } from '../client/index.js';
import { tlsMismatch } from '../common/tls.js';
import { ensureTlsFiles } from '../common/tls-files.js';
import { type Cluster, rackLayout, startCluster } from '../test/helpers/cluster.js';
import { BENCH_HEARTBEAT_INTERVAL_MS } from './cluster.js';
import { alternate, measureInto, type Samples, samples } from './cpu.js';
import { type BenchResult, GB, median, onOffTable, result } from './types.js';

const ROUNDS = 5;
const GiB = 1024 ** 3;
const LAYOUT: Layout = { pattern: 'raid0', stripeSize: 1024 * 1024, stripeCount: 3 };
const SMALL_BYTES = 64 * 1024;

interface Side {
  name: 'on' | 'off';
  cluster: Cluster;
  client: StripeClient;
  write: Samples;
  read: Samples;
  smallWrite: Samples;
  smallRead: Samples;
}

async function startSide(name: 'on' | 'off', tlsDir: string): Promise<Side> {
  const cluster = await startCluster({
    oss: rackLayout(3, 1, 1),
    heartbeatIntervalMs: BENCH_HEARTBEAT_INTERVAL_MS,
    ...(name === 'on' ? { tls: ensureTlsFiles(tlsDir) } : {}),
  });
  // The TLS side must refuse plain TCP, or its figures would be the plain ones twice.
  if (name === 'on' && (await tlsMismatch(cluster.mdsAddress, null))?.code !== 'TLS_REQUIRED')
    throw new Error('bench tls: the cluster with TLS answers plain TCP');
  const client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 1, tls: cluster.tls ?? null });
  return {
    name,
    cluster,
    client,
    write: samples(),
    read: samples(),
    smallWrite: samples(),
    smallRead: samples(),
  };
}

/** Runs `work` moving `bytes`, adding its rate (GB/s) and CPU ms per GiB to `into`. */
function measure(side: Side, into: Samples, bytes: number, work: () => Promise<unknown>): Promise<void> {
  return measureInto(side.cluster, into, { rate: bytes / GB, cpu: bytes / GiB }, work);
}

async function round(side: Side, index: number, data: Buffer, smallFiles: number): Promise<void> {
  const { client } = side;
  const path = `/seq-${index}`;
  await measure(side, side.write, data.length, () => client.writeFile(path, data, { layout: LAYOUT }));
  await client.dropCache(path);
  let read: Buffer | undefined;
  await measure(side, side.read, data.length, async () => (read = await client.readFile(path)));
  if (!read?.equals(data)) throw new Error(`tls ${side.name}: ${path} read back different bytes`);
  await client.unlink(path);
  const small = data.subarray(0, SMALL_BYTES);
  const names = Array.from({ length: smallFiles }, (_, i) => `/small-${index}-${i}`);
  const smallBytes = smallFiles * SMALL_BYTES;
  await measure(side, side.smallWrite, smallBytes, async () => {
    for (const name of names) await client.writeFile(name, small);
  });
  for (const name of names) await client.dropCache(name);
  await measure(side, side.smallRead, smallBytes, async () => {
    for (const name of names)
      if (!(await client.readFile(name)).equals(small)) throw new Error(`tls ${side.name}: ${name} differs`);
  });
  for (const name of names) await client.unlink(name);
}

function rows(on: Side, off: Side, command: string, note: string): BenchResult[] {
  const out: BenchResult[] = [];
  const kinds = [
    ['seq-write', 'writeFile of one raid0 file'],
    ['seq-read', 'readFile of it'],
    ['small-write', 'writeFile of 64 KiB files one by one'],
    ['small-read', 'readFile of them'],
  ] as const;
  for (const [id, what] of kinds) {
    const key = {
      'seq-write': 'write',
      'seq-read': 'read',
      'small-write': 'smallWrite',
      'small-read': 'smallRead',
    }[id] as 'write' | 'read' | 'smallWrite' | 'smallRead';
    out.push(
      result(
        `tls.${id}`,
        median(on[key].rate),
        'GB/s',
        command,
        { value: median(off[key].rate), name: `the same ${what} on a cluster without TLS, same run` },
        note,
      ),
      result(
        `tls.${id}.cpu`,
        median(on[key].cpu.total),
        'CPU ms/GiB',
        command,
        {
          value: median(off[key].cpu.total),
          name: `client, MDS and OSS CPU of the same ${what} without TLS`,
        },
        note,
      ),
    );
  }
  return out;
}

/** Sizes a test may shrink (default: by `quick`). */
export interface TlsBenchOptions {
  quick: boolean;
  sizeBytes?: number;
  smallFiles?: number;
  rounds?: number;
}

export async function runTlsBench(opts: TlsBenchOptions): Promise<BenchResult[]> {
  const command = `node dist/bench/tls.js${opts.quick ? ' --quick' : ''}`;
  const sizeBytes = opts.sizeBytes ?? (opts.quick ? 64 : 256) * 1024 * 1024;
  const smallFiles = opts.smallFiles ?? (opts.quick ? 100 : 300);
  const rounds = opts.rounds ?? (opts.quick ? 3 : ROUNDS);
  const data = randomFillSync(Buffer.allocUnsafe(sizeBytes));
  const tlsDir = join(mkdtempSync(join(tmpdir(), 'stripefs-bench-tls-')), 'tls');
  const sides: Side[] = [];
  try {
    sides.push(await startSide('on', tlsDir), await startSide('off', tlsDir));
    await alternate(sides, rounds, (side, index) => round(side, index, data, smallFiles));
  } finally {
    for (const side of sides) {
      await side.client.close();
      await side.cluster.stop();
    }
    rmSync(join(tlsDir, '..'), { recursive: true, force: true });
  }
  const [on, off] = sides as [Side, Side];
  const note = `median of ${rounds} alternating rounds; ${sizeBytes / 1024 / 1024} MiB raid0 over 3 OSSs, ${smallFiles} files of 64 KiB`;
  return rows(on, off, command, note);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = await runTlsBench({ quick: process.argv.includes('--quick') });
  process.stdout.write(onOffTable(results, 'TLS'));
}
