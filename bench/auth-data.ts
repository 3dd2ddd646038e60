// What data-path tickets cost: two real clusters in the same run (1 MDS and 3
// OSSs each), one with auth (every object request carries a ticket that the
// OSS checks: HMAC, expiry, object, right) and one without, the same client
// calls on each: writeFile and readFile of one large raid0 file striped over
// the 3 OSSs, in alternating rounds (on, off, off, on ...) so load on the
// machine falls on both alike; the median round of each. Part of
// `node dist/bench/auth.js [--quick]`.
import { randomFillSync } from 'node:crypto';
import { type Layout, StripeClient } from '../client/index.js';
import { type Cluster, rackLayout, startCluster } from '../test/helpers/cluster.js';
import { BENCH_HEARTBEAT_INTERVAL_MS } from './cluster.js';
import { type BenchResult, GB, median, result } from './types.js';

const ROUNDS = 5;
const LAYOUT: Layout = { pattern: 'raid0', stripeSize: 1024 * 1024, stripeCount: 3 };

interface Side {
  name: 'on' | 'off';
  cluster: Cluster;
  client: StripeClient;
  write: number[];
  read: number[];
}

async function startSide(name: 'on' | 'off'): Promise<Side> {
  const cluster = await startCluster({
    oss: rackLayout(3, 1, 1),
    heartbeatIntervalMs: BENCH_HEARTBEAT_INTERVAL_MS,
    extraEnv: { STRIPEFS_MDS_AUTH: name === 'on' ? 'true' : 'false' },
  });
  const client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 1 });
  return { name, cluster, client, write: [], read: [] };
}

async function gbps(bytes: number, work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return bytes / GB / ((performance.now() - started) / 1000);
}

export async function runAuthDataBench(opts: { quick: boolean; command: string }): Promise<BenchResult[]> {
  const sizeBytes = (opts.quick ? 64 : 256) * 1024 * 1024;
  const rounds = opts.quick ? 3 : ROUNDS;
  const data = randomFillSync(Buffer.allocUnsafe(sizeBytes));
  const sides: Side[] = [];
  try {
    sides.push(await startSide('on'), await startSide('off'));
    for (let round = 0; round < rounds; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const path = `/seq-${round}`;
        side.write.push(await gbps(sizeBytes, () => side.client.writeFile(path, data, { layout: LAYOUT })));
        await side.client.dropCache(path);
        let read: Buffer | undefined;
        side.read.push(await gbps(sizeBytes, async () => (read = await side.client.readFile(path))));
        if (!read?.equals(data)) throw new Error(`auth ${side.name}: ${path} read back different bytes`);
        await side.client.unlink(path);
      }
    }
  } finally {
    for (const side of sides) {
      await side.client.close();
      await side.cluster.stop();
    }
  }
  const [on, off] = sides as [Side, Side];
  const note = `median of ${rounds} alternating rounds, ${sizeBytes / 1024 / 1024} MiB raid0 over 3 OSSs, readFile/writeFile`;
  return [
    result(
      'auth.seq-write',
      median(on.write),
      'GB/s',
      opts.command,
      {
        value: median(off.write),
        name: 'the same writeFile on a cluster without auth, same run',
      },
      note,
    ),
    result(
      'auth.seq-read',
      median(on.read),
      'GB/s',
      opts.command,
      {
        value: median(off.read),
        name: 'the same readFile on a cluster without auth, same run',
      },
      note,
    ),
  ];
}
