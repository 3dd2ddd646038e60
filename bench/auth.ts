// What auth costs (issue targets: sequential read and write within 5% of auth
// off, stats and creates within 15%). Two real clusters in the same run (1 MDS
// and 3 OSSs each), one with auth (every MDS call signed and checked against
// caps, every object request carrying a ticket the OSS checks, the audit log)
// and one without (its client signs nothing), the same client calls on each in
// alternating rounds (on, off, off, on ...) so load on the machine falls on
// both alike; the median round of each:
//   - seq-write, seq-read: writeFile and readFile of one large raid0 file
//     striped over the 3 OSSs;
//   - create-4k: writeFile of 4 KiB files (one object each), 16 in flight
//     (concurrent creates share a CreateMany);
//   - stat-one: stat of each of those files one after another, in a seeded
//     random order (one Stat call each, as `stat` in a shell loop);
//   - stat-batched: the same stats 16 in flight, four passes (the client
//     coalesces them into StatMany calls, as a loader's parallel stats are).
// Beside each rate, the CPU of the client, the MDS and the OSSs per GiB or per
// operation: on this shared 2-core machine a rate swings with the load, CPU
// per unit far less (bench/cpu.ts). Each cluster's idle CPU per second
// (heartbeats, leases, tickers; measured before the rounds and shown in its
// own rows) is taken off each phase's CPU for as long as the phase lasted. `node dist/bench/auth.js [--quick]` prints
// a table; `npm run bench -- --only auth`.
import { randomFillSync } from 'node:crypto';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type Layout, StripeClient } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import { Semaphore } from '../common/semaphore.js';
import { type Cluster, rackLayout, startCluster } from '../test/helpers/cluster.js';
import { BENCH_HEARTBEAT_INTERVAL_MS } from './cluster.js';
import { alternate, type IdleRate, measureIdle, measureInto, ROLES, type Samples, samples } from './cpu.js';
import { permutation } from './smallops.js';
import { type BenchResult, GB, median, onOffTable, result } from './types.js';

const ROUNDS = 5;
const GiB = 1024 ** 3;
const IN_FLIGHT = 16;
const SMALL_BYTES = 4 * 1024;
/** Passes of stat-batched over the files: a pass is over in a tenth of a second. */
const BATCHED_PASSES = 4;
/** How long each cluster's idle CPU rate is measured before the rounds (bench/cpu.ts measureIdle). */
const IDLE_MS = 4_000;
const LARGE: Layout = { pattern: 'raid0', stripeSize: 1024 * 1024, stripeCount: 3 };
const SMALL: Layout = { pattern: 'raid0', stripeSize: 1024 * 1024, stripeCount: 1 };

export const AUTH_WORKLOADS = ['seq-write', 'seq-read', 'create-4k', 'stat-one', 'stat-batched'] as const;
type Workload = (typeof AUTH_WORKLOADS)[number];

interface Side {
  name: 'on' | 'off';
  cluster: Cluster;
  client: StripeClient;
  measured: Record<Workload, Samples>;
  /** CPU ms per second of each process with no work: taken off every round's CPU. */
  idle: IdleRate;
}

async function startSide(name: 'on' | 'off'): Promise<Side> {
  const on = name === 'on';
  const cluster = await startCluster({
    oss: rackLayout(3, 1, 1),
    heartbeatIntervalMs: BENCH_HEARTBEAT_INTERVAL_MS,
    extraEnv: { STRIPEFS_MDS_AUTH: on ? 'true' : 'false' },
  });
  // The side with auth must refuse a client that signs nothing, or its figures would be the plain ones twice.
  if (on) await expectRefusedUnsigned(cluster.mdsAddress);
  const client = await StripeClient.connect({
    mds: cluster.mdsAddress,
    seed: 1,
    ...(on ? {} : { keyring: null }),
  });
  const measured = Object.fromEntries(AUTH_WORKLOADS.map((w) => [w, samples()])) as Side['measured'];
  return { name, cluster, client, measured, idle: { client: 0, mds: 0, oss: 0 } };
}

async function expectRefusedUnsigned(mds: string): Promise<void> {
  let code: string | undefined;
  try {
    const unsigned = await StripeClient.connect({ mds, keyring: null });
    try {
      await unsigned.stat('/');
    } finally {
      await unsigned.close();
    }
  } catch (err) {
    code = err instanceof StripeError ? err.code : String(err);
  }
  if (code !== 'AUTH_REQUIRED') throw new Error(`bench auth: an unsigned client got ${code ?? 'an answer'}`);
}

async function inFlight(count: number, op: (i: number) => Promise<unknown>): Promise<void> {
  const gate = new Semaphore(IN_FLIGHT);
  await Promise.all(Array.from({ length: count }, (_, i) => gate.run(() => op(i))));
}

interface Sizes {
  sizeBytes: number;
  files: number;
}

async function sequential(side: Side, index: number, data: Buffer): Promise<void> {
  const { client, cluster, measured } = side;
  const path = `/seq-${index}`;
  const units = { rate: data.length / GB, cpu: data.length / GiB };
  await measureInto(
    cluster,
    measured['seq-write'],
    units,
    () => client.writeFile(path, data, { layout: LARGE }),
    side.idle,
  );
  await client.dropCache(path);
  let read: Buffer | undefined;
  await measureInto(
    cluster,
    measured['seq-read'],
    units,
    async () => (read = await client.readFile(path)),
    side.idle,
  );
  if (!read?.equals(data)) throw new Error(`auth ${side.name}: ${path} read back different bytes`);
  await client.unlink(path);
}

async function metadata(side: Side, index: number, files: number, small: Buffer): Promise<void> {
  const { client, cluster, measured } = side;
  const dir = `/small-${index}`;
  await client.mkdir(dir, { layout: SMALL });
  const name = (i: number) => `${dir}/f${i}`;
  const units = { rate: files, cpu: files };
  await measureInto(
    cluster,
    measured['create-4k'],
    units,
    () => inFlight(files, (i) => client.writeFile(name(i), small)),
    side.idle,
  );
  const order = permutation(files);
  const stat = async (n: number) => {
    const st = await client.stat(name(order[n] as number));
    if (st.size !== SMALL_BYTES)
      throw new Error(`auth ${side.name}: ${name(order[n] as number)} is ${st.size} bytes`);
  };
  await measureInto(
    cluster,
    measured['stat-one'],
    units,
    async () => {
      for (let n = 0; n < files; n++) await stat(n);
    },
    side.idle,
  );
  const batched = files * BATCHED_PASSES;
  await measureInto(
    cluster,
    measured['stat-batched'],
    { rate: batched, cpu: batched },
    () => inFlight(batched, (n) => stat(n % files)),
    side.idle,
  );
}

const WHAT: Record<Workload, string> = {
  'seq-write': 'writeFile of one raid0 file',
  'seq-read': 'readFile of it',
  'create-4k': 'writeFile of 4 KiB files, 16 in flight',
  'stat-one': 'stats one by one',
  'stat-batched': 'stats 16 in flight (StatMany)',
};

function rows(on: Side, off: Side, command: string, note: string): BenchResult[] {
  const out: BenchResult[] = [];
  for (const w of AUTH_WORKLOADS) {
    const seq = w.startsWith('seq-');
    // Sequential: CPU ms per GiB; operations: CPU us per operation.
    const scale = seq ? 1 : 1000;
    const cpuUnit = seq ? 'CPU ms/GiB' : 'CPU us/op';
    const [a, b] = [on.measured[w], off.measured[w]];
    out.push(
      result(
        `auth.${w}`,
        median(a.rate),
        seq ? 'GB/s' : 'ops/s',
        command,
        { value: median(b.rate), name: `the same ${WHAT[w]} on a cluster without auth, same run` },
        note,
      ),
    );
    for (const role of [...ROLES, 'total'] as const)
      out.push(
        result(
          `auth.${w}.cpu${role === 'total' ? '' : `-${role}`}`,
          median(a.cpu[role]) * scale,
          cpuUnit,
          command,
          {
            value: median(b.cpu[role]) * scale,
            name: `${role === 'total' ? 'client, MDS and OSS' : role === 'oss' ? 'OSS' : role === 'mds' ? 'MDS' : 'client'} CPU of the same ${WHAT[w]} without auth`,
          },
        ),
      );
  }
  // The idle rates taken off: heartbeats and leases are signed and checked too, so auth has an
  // idle cost of its own, shown here rather than spread over whichever phase ran slowest.
  for (const role of ROLES)
    out.push(
      result(`auth.idle.cpu-${role}`, on.idle[role], 'CPU ms/s', command, {
        value: off.idle[role],
        name: `${role === 'oss' ? 'OSS' : role === 'mds' ? 'MDS' : 'client'} CPU per second with no work, without auth`,
      }),
    );
  return out;
}

/** Sizes a test may shrink (default: by `quick`). */
export interface AuthBenchOptions {
  quick: boolean;
  sizeBytes?: number;
  files?: number;
  rounds?: number;
}

export async function runAuthBench(opts: AuthBenchOptions): Promise<BenchResult[]> {
  const command = `node dist/bench/auth.js${opts.quick ? ' --quick' : ''}`;
  const sizes: Sizes = {
    sizeBytes: opts.sizeBytes ?? (opts.quick ? 64 : 256) * 1024 * 1024,
    files: opts.files ?? (opts.quick ? 300 : 1_000),
  };
  const rounds = opts.rounds ?? (opts.quick ? 3 : ROUNDS);
  const data = randomFillSync(Buffer.allocUnsafe(sizes.sizeBytes));
  const small = data.subarray(0, SMALL_BYTES);
  const loadBefore = loadavg()[0] as number;
  const sides: Side[] = [];
  try {
    sides.push(await startSide('on'), await startSide('off'));
    for (const side of sides) side.idle = await measureIdle(side.cluster, opts.quick ? IDLE_MS / 2 : IDLE_MS);
    await alternate(sides, rounds, async (side, index) => {
      await sequential(side, index, data);
      await metadata(side, index, sizes.files, small);
    });
  } finally {
    for (const side of sides) {
      await side.client.close();
      await side.cluster.stop();
    }
  }
  const [on, off] = sides as [Side, Side];
  const load = `load ${loadBefore.toFixed(1)} -> ${(loadavg()[0] as number).toFixed(1)}`;
  const note = `median of ${rounds} alternating rounds; CPU net of idle CPU; ${sizes.sizeBytes / 1024 / 1024} MiB raid0 over 3 OSSs, ${sizes.files} files of 4 KiB; ${load}`;
  return rows(on, off, command, note);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = await runAuthBench({ quick: process.argv.includes('--quick') });
  process.stdout.write(onOffTable(results, 'auth'));
  process.stdout.write(`${results[0]?.note ?? ''}\n`);
}
