// Every way a user reads a large file, against the fastest and against node:fs,
// in the same run: one file of 1 GiB (--quick: 128 MiB) per layout (raid0,
// replicated:3 and ec:4+2, 1 MiB units over the bench cluster's 6 OSSs), read
// whole with
//   - handle: `open` then `handle.read` in 4 MiB reads into one reused buffer
//     (the fastest path: no new memory);
//   - readFile: `client.readFile` (a new buffer of the file's size);
//   - stream: `createReadStream`, counting its chunks;
// and node:fs `readFile` of a local file of the same size (in the page cache:
// it was just written). The block cache is dropped before every stripefs read,
// so each reads from the OSSs. The four run in turn and in the reverse order
// every other round, ROUNDS rounds; each figure is the median, so load on the
// shared machine falls on each shape alike. Rows: readFile and stream against
// handle (targets 0.9x), readFile against node:fs (target 1.0x).
//   node dist/bench/shapes.js [--quick]; npm run bench -- --only shapes
import { randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Layout, StripeClient } from '../client/index.js';
import { LAYOUTS } from './cli.js';
import { readSequential } from './client.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { alternate } from './cpu.js';
import { type BenchResult, GB, median, result, type SuiteOptions } from './types.js';

const MiB = 1024 * 1024;
const IO_BYTES = 4 * MiB;
const ROUNDS = 3;
export const SHAPES = ['handle', 'readFile', 'stream', 'fs'] as const;
type Shape = (typeof SHAPES)[number];

/** Reads `path` whole in `shape`; returns the bytes read (checked against the size by the caller). */
async function readAs(client: StripeClient, shape: Shape, path: string, local: string): Promise<number> {
  if (shape === 'fs') return (await readFile(local)).length;
  await client.dropCache(path);
  if (shape === 'handle') return readSequential(client, path, IO_BYTES);
  if (shape === 'readFile') return (await client.readFile(path)).length;
  let bytes = 0;
  for await (const chunk of client.createReadStream(path)) bytes += (chunk as Buffer).length;
  return bytes;
}

/** Seconds of each shape's reads of one layout's file, `rounds` alternating rounds. */
async function timeShapes(
  client: StripeClient,
  path: string,
  local: string,
  sizeBytes: number,
  rounds: number,
): Promise<Record<Shape, number[]>> {
  const seconds = Object.fromEntries(SHAPES.map((s) => [s, [] as number[]])) as Record<Shape, number[]>;
  await alternate(SHAPES, rounds, async (shape) => {
    const started = performance.now();
    const bytes = await readAs(client, shape, path, local);
    seconds[shape].push((performance.now() - started) / 1000);
    if (bytes !== sizeBytes)
      throw new Error(`bench shapes: ${shape} of ${path} read ${bytes} of ${sizeBytes} bytes`);
  });
  return seconds;
}

function rowsOf(name: string, gbps: Record<Shape, number>, command: string, note: string): BenchResult[] {
  const handle = { value: gbps.handle, name: 'handle.read in 4 MiB reads into one reused buffer, same run' };
  return [
    result(`shapes.${name}.handle`, gbps.handle, 'GB/s', command, undefined, note),
    result(`shapes.${name}.readFile`, gbps.readFile, 'GB/s', command, handle),
    result(`shapes.${name}.readFile-vs-fs`, gbps.readFile, 'GB/s', command, {
      value: gbps.fs,
      name: 'node:fs readFile of a local file of the same size (page cache), same run',
    }),
    result(`shapes.${name}.stream`, gbps.stream, 'GB/s', command, handle),
  ];
}

/** Sizes a test may shrink. */
export interface ShapesBenchOptions extends SuiteOptions {
  sizeBytes?: number;
  rounds?: number;
  layouts?: Record<string, Layout>;
}

export async function runShapesBench(opts: ShapesBenchOptions): Promise<BenchResult[]> {
  const command = `node dist/bench/shapes.js${opts.quick ? ' --quick' : ''}`;
  const sizeBytes = opts.sizeBytes ?? (opts.quick ? 128 : 1024) * MiB;
  const rounds = opts.rounds ?? ROUNDS;
  const shared = opts.cluster ? await opts.cluster() : undefined;
  const own: BenchCluster | undefined = shared ? undefined : await startBenchCluster();
  const cluster = (shared ?? own) as BenchCluster;
  const client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 1, diskCache: null });
  const work = mkdtempSync(join(tmpdir(), 'stripefs-bench-shapes-'));
  const out: BenchResult[] = [];
  try {
    const data = randomFillSync(Buffer.allocUnsafe(sizeBytes));
    const local = join(work, 'local.bin');
    writeFileSync(local, data);
    await client.mkdir('/bench-shapes', { recursive: true });
    for (const [name, layout] of Object.entries(opts.layouts ?? LAYOUTS)) {
      const path = `/bench-shapes/${name}`;
      await client.writeFile(path, data, { layout });
      if (!(await client.readFile(path)).equals(data))
        throw new Error(`bench shapes: ${path} read back different bytes`);
      const seconds = await timeShapes(client, path, local, sizeBytes, rounds);
      const gbps = Object.fromEntries(SHAPES.map((s) => [s, sizeBytes / GB / median(seconds[s])])) as Record<
        Shape,
        number
      >;
      const runs = SHAPES.map((s) => `${s} ${seconds[s].map((v) => v.toFixed(2)).join(', ')}`).join('; ');
      const note = `${(sizeBytes / MiB).toFixed(0)} MiB, median of ${rounds} alternating rounds (s: ${runs})`;
      out.push(...rowsOf(name, gbps, command, note));
      await client.unlink(path);
    }
  } finally {
    await client.close();
    rmSync(work, { recursive: true, force: true });
    await own?.stop();
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const r of await runShapesBench({ quick: process.argv.includes('--quick') }))
    process.stdout.write(`${JSON.stringify(r)}\n`);
}
