// Data-on-MDS reads by shape: what a sample costs the client and the MDS in
// CPU as the reads in flight grow (1, 16, 64, 256: one Open each, then
// OpenMany batches of that many, cut at LIMITS.domBatchBytesMax of bytes, over
// the MDS's framed path; 16 also over gRPC by a second client, mdsFramesOff),
// over files of 1 KiB (a call's cost and an item's) and of 10-100 KiB (plus
// the bytes'), each epoch in the same seeded random order beside node:fs
// readFile of the same files in the same shape. Shapes alternate in rounds of
// one run after a warm-up epoch (a fresh process's first epoch is also its
// JIT's), with one client, once the MDS is quiet after the writes; each row
// gives the median and range over the rounds of CPU ms per sample (client:
// this process; MDS: /proc) and the MDS calls per sample.
//   node dist/bench/dom-shapes.js [--quick]
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StripeClient } from '../client/index.js';
import { Semaphore } from '../common/semaphore.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { cpuTotalMs } from './cpu.js';
import { LOADER_SEED, loaderBody, loaderSizes, nameOf, permutation } from './smallfiles-loader.js';
import { DOM_LAYOUT, mdsQuiet } from './smallfiles-scale.js';
import { measured, type PhaseProfile } from './smallops.js';
import { type BenchResult, result, type SuiteOptions } from './types.js';

const KiB = 1024;
export const IN_FLIGHT_SHAPES = [1, 16, 64, 256] as const;
/** Shapes also read by a client on gRPC (mdsFramesOff), beside the framed path in the same rounds. */
export const GRPC_SHAPES = [16] as const;
const WRITE_IN_FLIGHT = 16;
const TINY_BYTES = 1 * KiB;

interface FileSet {
  name: 'tiny' | 'loader';
  words: string;
  sizes: number[];
  body: (i: number) => Buffer;
}

function fileSets(files: number): FileSet[] {
  const loader = loaderSizes(files);
  return [
    {
      name: 'tiny',
      words: `${files} files of 1 KiB`,
      sizes: loader.map(() => TINY_BYTES),
      body: (i) => Buffer.alloc(TINY_BYTES, i),
    },
    { name: 'loader', words: `${files} files of 10-100 KiB`, sizes: loader, body: loaderBody(loader) },
  ];
}

/** Every file of the order read once, `inFlight` at a time (each length checked). */
async function epoch(
  order: number[],
  inFlight: number,
  read: (i: number) => Promise<Buffer>,
  sizes: number[],
) {
  const gate = new Semaphore(inFlight);
  await Promise.all(
    order.map((i) =>
      gate.run(async () => {
        const length = (await read(i)).length;
        if (length !== sizes[i]) throw new Error(`file ${i}: ${length} bytes, expected ${sizes[i]}`);
      }),
    ),
  );
}

interface Shape {
  set: FileSet;
  inFlight: number;
  /** Batched opens over the MDS's framed path (the default) or over gRPC. */
  transport: 'framed' | 'grpc';
  dom: PhaseProfile[];
  fs: { perSec: number; cpuMsPerFile: number }[];
}

/** One round of a shape: node:fs, then stripefs, in the same order. */
async function round(
  cluster: BenchCluster,
  clients: Record<Shape['transport'], StripeClient>,
  local: string,
  shape: Shape,
  order: number[],
) {
  const { set, inFlight } = shape;
  const cpuBefore = cpuTotalMs();
  const started = performance.now();
  await epoch(order, inFlight, (i) => readFile(join(local, set.name, nameOf(i))), set.sizes);
  const seconds = (performance.now() - started) / 1000;
  shape.fs.push({ perSec: order.length / seconds, cpuMsPerFile: (cpuTotalMs() - cpuBefore) / order.length });
  const client = clients[shape.transport];
  const read = (i: number) => client.readFile(`/shapes-${set.name}/${nameOf(i)}`);
  shape.dom.push(
    (await measured(cluster, order.length, () => epoch(order, inFlight, read, set.sizes))).profile,
  );
}

async function writeSets(mds: string, local: string, sets: FileSet[], files: number): Promise<void> {
  const writer = await StripeClient.connect({ mds, seed: 41 });
  try {
    for (const set of sets) {
      mkdirSync(join(local, set.name), { recursive: true });
      await writer.mkdir(`/shapes-${set.name}`, { layout: DOM_LAYOUT });
      const gate = new Semaphore(WRITE_IN_FLIGHT);
      await Promise.all(
        Array.from({ length: files }, (_, i) =>
          gate.run(async () => {
            writeFileSync(join(local, set.name, nameOf(i)), set.body(i));
            await writer.writeFile(`/shapes-${set.name}/${nameOf(i)}`, set.body(i));
          }),
        ),
      );
    }
  } finally {
    await writer.close();
  }
}

/** The middle value (of an even count, the mean of the two middle ones). */
function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid)
    ? ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2
    : (sorted[Math.floor(mid)] ?? 0);
}
const range = (xs: number[]) =>
  `${median(xs).toFixed(3)} (${Math.min(...xs).toFixed(3)}-${Math.max(...xs).toFixed(3)})`;
const sumOf = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);

function rowOf(command: string, shape: Shape, rounds: number): BenchResult {
  const { set, inFlight, dom, fs, transport } = shape;
  const calls = dom[dom.length - 1]?.mdsCallsPerFile ?? {};
  const callWords = Object.entries(calls)
    .map(([op, n]) => `${op} ${n.toFixed(3)}`)
    .join(', ');
  return result(
    `domshapes.${set.name}.inflight-${inFlight}${transport === 'grpc' ? '-grpc' : ''}`,
    median(dom.map((p) => p.perSec)),
    'samples/s',
    command,
    {
      value: median(fs.map((f) => f.perSec)),
      name: `node:fs readFile of the same files, same order, ${inFlight} in flight, same rounds (CPU ms/file ${range(fs.map((f) => f.cpuMsPerFile))})`,
    },
    `${set.words}, dom:128K (whole on the MDS), ${inFlight} in flight, batched opens over ${transport === 'grpc' ? 'gRPC (mdsFramesOff)' : "the MDS's framed path"}, median (min-max) of ${rounds} alternating rounds of one client: CPU ms/sample client ${range(dom.map((p) => p.cpuMsPerFile.client))}, MDS ${range(dom.map((p) => p.cpuMsPerFile.mds))}; client GC ms/sample ${range(dom.map((p) => p.clientGcMsPerFile))}; MDS calls/sample ${callWords} (${sumOf(calls).toFixed(3)}); load ${loadavg()[0]?.toFixed(1)}`,
  );
}

export async function runDomShapesBench(
  opts: SuiteOptions & { files?: number; rounds?: number },
): Promise<BenchResult[]> {
  const files = opts.files ?? (opts.quick ? 2_000 : 10_000);
  const rounds = opts.rounds ?? (opts.quick ? 2 : 3);
  const cluster = await startBenchCluster();
  const local = join(cluster.dir, `shapes-${process.pid}`);
  const connect = () =>
    Promise.all([
      StripeClient.connect({ mds: cluster.mdsAddress, seed: 42 }),
      StripeClient.connect({ mds: cluster.mdsAddress, seed: 43, mdsFramesOff: true }),
    ]);
  const [client, grpcClient] = await connect().catch(async (err) => {
    await cluster.stop();
    throw err;
  });
  const clients = { framed: client, grpc: grpcClient };
  try {
    const sets = fileSets(files);
    await writeSets(cluster.mdsAddress, local, sets, files);
    await mdsQuiet(cluster.mds.child.pid as number);
    const order = permutation(files, LOADER_SEED);
    const shapes: Shape[] = sets.flatMap((set) => [
      ...IN_FLIGHT_SHAPES.map((inFlight) => ({
        set,
        inFlight,
        transport: 'framed' as const,
        dom: [],
        fs: [],
      })),
      ...GRPC_SHAPES.map((inFlight) => ({ set, inFlight, transport: 'grpc' as const, dom: [], fs: [] })),
    ]);
    // Warm-up: the first epoch of each set in a fresh process pays for its JIT, not its reads.
    for (const set of sets)
      for (const warm of [client, grpcClient])
        await epoch(order, 16, (i) => warm.readFile(`/shapes-${set.name}/${nameOf(i)}`), set.sizes);
    for (let r = 0; r < rounds; r++)
      for (const shape of r % 2 === 0 ? shapes : [...shapes].reverse())
        await round(cluster, clients, local, shape, order);
    const command = `node dist/bench/dom-shapes.js${opts.quick ? ' --quick' : ''}`;
    return shapes.map((shape) => rowOf(command, shape, rounds));
  } finally {
    await client.close();
    await grpcClient.close();
    rmSync(local, { recursive: true, force: true });
    await cluster.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = await runDomShapesBench({ quick: process.argv.includes('--quick') });
  for (const r of results) process.stdout.write(`${JSON.stringify(r)}\n`);
}
