// OSS data-path benchmark: one OSS process, this process as the one client,
// 4 MiB chunks over loopback with 16 in flight, each result beside a baseline
// measured in the same run (raw TCP pump between two processes; writing the
// same amount of new data to the same disk). Also reports the bare default
// gRPC stream and how O_DIRECT and overwrites change the disk's rate.
// CPU time of both processes (this one, and the OSS from /proc) is reported
// per GiB moved, so the data path can be judged on a loaded machine too.
// And crc32c per 64 KiB segment (what both sides compute per byte moved):
// the implementation running here beside @node-rs/crc32, the fallback.
//   node dist/bench/oss.js [--quick] [--bulk-only]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import { BulkClient } from '../common/bulk/client.js';
import { checksumBackend, crc32c } from '../common/checksum.js';
import { Semaphore } from '../common/semaphore.js';
import type { OssServiceClient } from '../proto/gen/stripefs/v1/OssService.js';
import { contract, type ReadRangeResponse__Output } from '../proto/index.js';
import { type FakeMds, startFakeMds } from '../test/oss/fake-mds.js';
import { cpuMs } from './cpu.js';
import { type BenchResult, median, result } from './types.js';

export type { BenchResult };

const CHUNK_BYTES = 4 * 1024 * 1024;
const SEGMENT_BYTES = 64 * 1024;

/** GB/s of `fn` over the 64 KiB segments of `data`, the best of 5 rounds. */
function crcRate(fn: (data: Uint8Array) => number, data: Uint8Array): number {
  let best = 0;
  for (let round = 0; round < 5; round++) {
    const started = performance.now();
    for (let at = 0; at < data.length; at += SEGMENT_BYTES) fn(data.subarray(at, at + SEGMENT_BYTES));
    best = Math.max(best, data.length / 1e9 / ((performance.now() - started) / 1000));
  }
  return best;
}
const IN_FLIGHT = 16;
const DISK_QUEUE_DEPTH = 4;
const GB = 1e9;
const here = dirname(fileURLToPath(import.meta.url));

async function timed(bytes: number, work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return bytes / GB / ((performance.now() - started) / 1000);
}

async function parallel(count: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  const slots = new Semaphore(limit);
  await Promise.all(Array.from({ length: count }, (_, i) => slots.run(() => task(i))));
}

interface CpuPerGiB {
  user: number;
  system: number;
}

/** Runs `work` and returns its rate plus the CPU ms per GiB moved of this process and of `pid`. */
async function timedCpu(
  bytes: number,
  pid: number,
  work: () => Promise<void>,
): Promise<{ rate: number; client: CpuPerGiB; server: CpuPerGiB }> {
  const c0 = cpuMs();
  const s0 = cpuMs(pid);
  const rate = await timed(bytes, work);
  const c1 = cpuMs();
  const s1 = cpuMs(pid);
  const gib = bytes / 2 ** 30;
  return {
    rate,
    client: { user: (c1.user - c0.user) / gib, system: (c1.system - c0.system) / gib },
    server: { user: (s1.user - s0.user) / gib, system: (s1.system - s0.system) / gib },
  };
}

/** Raw TCP: a child process pumps `totalBytes` to us as fast as it can. */
async function rawSocketPump(totalBytes: number): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const script = `const s=require('net').connect(${port},'127.0.0.1',()=>{const b=Buffer.alloc(${CHUNK_BYTES},7);let left=${totalBytes};const go=()=>{while(left>0){left-=b.length;if(!s.write(b))return s.once('drain',go);}s.end();};go();});`;
  let received = 0;
  const started = performance.now();
  const done = new Promise<void>((resolve) => {
    server.once('connection', (sock) => {
      sock.on('data', (d: Buffer) => {
        received += d.length;
      });
      sock.on('end', resolve);
    });
  });
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  await done;
  const rate = received / GB / ((performance.now() - started) / 1000);
  child.kill();
  server.close();
  return rate;
}

/** Writes totalBytes of new data in 4 MiB pieces, files of objectBytes each, DISK_QUEUE_DEPTH at once. */
async function diskWrite(
  dir: string,
  totalBytes: number,
  mode: 'new' | 'overwrite' | 'odirect' | 'recycle',
): Promise<number> {
  const raw = Buffer.alloc(CHUNK_BYTES + 8192, 3);
  let chunk: Buffer = raw.subarray(0, CHUNK_BYTES);
  const flags =
    mode === 'odirect'
      ? constants.O_CREAT | constants.O_WRONLY | constants.O_DIRECT
      : constants.O_CREAT | constants.O_WRONLY | (mode === 'new' ? constants.O_TRUNC : 0);
  let file = join(dir, `disk-${mode === 'odirect' ? 'direct' : 'paged'}`);
  if (mode === 'odirect') chunk = await alignedChunk(file, raw);
  if (mode === 'recycle') {
    // What an OST's free list does: a deleted object's file is renamed, then overwritten as a new object.
    const reused = join(dir, 'disk-recycled');
    renameSync(file, reused);
    file = reused;
  }
  const fh = await open(file, flags, 0o644);
  const rate = await timed(totalBytes, () =>
    parallel(totalBytes / CHUNK_BYTES, DISK_QUEUE_DEPTH, async (i) => {
      await fh.write(chunk, 0, CHUNK_BYTES, i * CHUNK_BYTES);
    }),
  );
  await fh.close();
  return rate;
}

/** O_DIRECT needs a memory-aligned buffer; Node cannot ask for one, so probe offsets (16-byte steps). */
async function alignedChunk(file: string, raw: Buffer): Promise<Buffer> {
  const fh = await open(file, constants.O_CREAT | constants.O_WRONLY | constants.O_DIRECT, 0o644);
  try {
    for (let at = 0; at < 8192; at += 16) {
      const ok = await fh.write(raw, at, 4096, 0).then(
        () => true,
        () => false,
      );
      if (ok) return raw.subarray(at, at + CHUNK_BYTES);
    }
  } finally {
    await fh.close();
  }
  throw new Error('no O_DIRECT-aligned offset found');
}

/** Bench object `b.<i>` (CHUNK_BYTES), on OST i % 2 of a bench OSS. */
function chunkRef(i: number) {
  return { ostId: i % 2, objectId: `b.${i}`, poolId: 1, pg: 0, mapEpoch: 0 };
}

/** Writes chunks 0 .. count-1, each `data`. */
function writeChunks(client: BulkClient, count: number, data: Buffer, crc: number): Promise<void> {
  return parallel(count, IN_FLIGHT, async (i) => {
    await client.write(chunkRef(i), 0, data, crc);
  });
}

/**
 * Reads chunks 0 .. count-1 whole. They land in buffers kept in `spare` and
 * reused, as the client library's block pool does (client/block-pool.ts).
 */
function readChunks(client: BulkClient, count: number, spare: Buffer[]): Promise<void> {
  return parallel(count, IN_FLIGHT, async (i) => {
    const got = await client.read(chunkRef(i), 0, CHUNK_BYTES, (n) =>
      (spare.pop() ?? Buffer.allocUnsafeSlow(CHUNK_BYTES)).subarray(0, n),
    );
    if (got.length !== CHUNK_BYTES) throw new Error('short read');
    spare.push(got);
  });
}

interface ReadSide {
  client: BulkClient;
  /** The OSS process it reads from, whose CPU is measured. */
  pid: number;
}

/**
 * Each side's OSS CPU per GiB (user + system ms) reading `count` chunks: three
 * rounds, the two sides interleaved in each, and the median of each side's
 * rounds, so a change in the shared host's speed falls on both alike.
 */
async function interleavedReadCpu(a: ReadSide, b: ReadSide, count: number): Promise<[number, number]> {
  const spare: Buffer[] = [];
  const cpu = { a: [] as number[], b: [] as number[] };
  for (let round = 0; round < 3; round++)
    for (const [key, side] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const m = await timedCpu(count * CHUNK_BYTES, side.pid, () => readChunks(side.client, count, spare));
      cpu[key].push(m.server.user + m.server.system);
    }
  return [median(cpu.a), median(cpu.b)];
}

interface OssProcess {
  pid: number;
  grpcPort: number;
  bulkPort: number;
  ostIds: number[];
  stop(): Promise<void>;
}

/**
 * The MDS the bench's OSSs register with: the tests' stand-in (test/oss/fake-mds.ts), since the
 * MDS is not what this suite measures. An OSS serves reads only once an MDS has told it which of
 * its copies missed writes (its registration answer), so it cannot run without one.
 */
let standInMds: Promise<FakeMds> | undefined;

/** An OSS with its OST ids persisted, registered with the stand-in MDS before it is handed out. */
async function startOssProcess(dataDir: string, env: Record<string, string> = {}): Promise<OssProcess> {
  standInMds ??= startFakeMds();
  const mds = await standInMds;
  // Each OSS its own name, and the stand-in gives it the OST ids it has persisted (0 and 1).
  const ossId = `bench-${basename(dataDir)}`;
  for (const i of [0, 1]) mds.ostIds.set(`${ossId}/ost${i}`, i);
  for (const i of [0, 1]) {
    mkdirSync(join(dataDir, `ost${i}`), { recursive: true });
    writeFileSync(join(dataDir, `ost${i}`, 'ost-id.json'), JSON.stringify({ id: i }));
  }
  // e.g. STRIPEFS_BENCH_OSS_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the OSS.
  const nodeArgs = (process.env.STRIPEFS_BENCH_OSS_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, join(here, '..', 'oss', 'main.js')], {
    env: {
      ...process.env,
      STRIPEFS_OSS_ID: ossId,
      STRIPEFS_OSS_DATA_DIR: dataDir,
      STRIPEFS_OSS_OSTS: '2',
      STRIPEFS_MDS: mds.address,
      STRIPEFS_LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = await new Promise<{ grpcPort: number; bulkPort: number }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"ready"')) resolve(JSON.parse(line) as { grpcPort: number; bulkPort: number });
    });
    child.once('exit', (code) => reject(new Error(`oss exited ${code}`)));
  });
  // An OSS heartbeats only after it has applied its registration's answer.
  for (let i = 0; !mds.heartbeats.some((h) => h.ossId === ossId); i++) {
    if (i > 600) throw new Error('bench OSS did not register with the stand-in MDS within 60 s');
    await new Promise((done) => setTimeout(done, 100));
  }
  return {
    ...ready,
    pid: child.pid as number,
    ostIds: [0, 1],
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function grpcRead(
  client: OssServiceClient,
  ostId: number,
  objectId: string,
  length: number,
): Promise<number> {
  return new Promise((resolve, reject) => {
    let got = 0;
    const stream = client.ReadRange({
      ref: { ostId, objectId, poolId: 1, pg: 0, mapEpoch: 0 },
      offset: 0,
      length,
    });
    stream.on('data', (m: ReadRangeResponse__Output) => {
      got += m.data.length;
    });
    stream.on('error', reject);
    stream.on('end', () => resolve(got));
  });
}

function grpcWrite(
  client: OssServiceClient,
  ostId: number,
  objectId: string,
  data: Buffer,
  crc: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = client.WriteChunk((err) => (err ? reject(err) : resolve()));
    stream.write({
      header: {
        ref: { ostId, objectId, poolId: 1, pg: 0, mapEpoch: 0 },
        offset: 0,
        length: data.length,
        crc32c: crc,
      },
    });
    for (let at = 0; at < data.length; at += 1024 * 1024)
      stream.write({ data: data.subarray(at, at + 1024 * 1024) });
    stream.end();
  });
}

export async function runOssBench(opts: { quick: boolean; bulkOnly?: boolean }): Promise<BenchResult[]> {
  const totalBytes = (opts.quick ? 256 : 2048) * 1024 * 1024;
  const grpcBytes = (opts.quick ? 64 : 512) * 1024 * 1024;
  const chunks = totalBytes / CHUNK_BYTES;
  const command = `node dist/bench/oss.js${opts.quick ? ' --quick' : ''}`;
  const work = mkdtempSync(join(process.env.STRIPEFS_BENCH_DIR ?? tmpdir(), 'stripefs-bench-oss-'));
  const results: BenchResult[] = [];
  const add = (id: string, value: number, unit: string, baseline: number | null): void => {
    results.push({ id, value, unit, baseline, ratio: baseline ? value / baseline : null, command });
  };
  const addCpu = (id: string, m: { client: CpuPerGiB; server: CpuPerGiB }): void => {
    for (const [side, cpu] of [
      ['client', m.client],
      ['oss', m.server],
    ] as const) {
      add(`${id}.cpu-${side}-user`, cpu.user, 'CPU ms/GiB', null);
      add(`${id}.cpu-${side}-system`, cpu.system, 'CPU ms/GiB', null);
    }
  };
  try {
    const socketRate = await rawSocketPump(totalBytes);
    const diskNew = await diskWrite(work, totalBytes, 'new');
    const diskOverwrite = await diskWrite(work, totalBytes, 'overwrite');
    const diskRecycle = await diskWrite(work, totalBytes, 'recycle');
    const diskDirect = await diskWrite(work, totalBytes, 'odirect');
    rmSync(join(work, 'disk-recycled'), { force: true });
    rmSync(join(work, 'disk-direct'), { force: true });
    add('baseline.socket-pump', socketRate, 'GB/s', null);
    add('baseline.disk-write-new', diskNew, 'GB/s', null);
    const fallback = createRequire(import.meta.url)('@node-rs/crc32') as {
      crc32c: (d: Uint8Array) => number;
    };
    const crcData = randomBytes(64 * 1024 * 1024);
    const fallbackRate = crcRate(fallback.crc32c, crcData);
    add('baseline.crc32c-node-rs', fallbackRate, 'GB/s', null);
    add(`crc32c.${checksumBackend().name.replace(/^@/, '')}`, crcRate(crc32c, crcData), 'GB/s', fallbackRate);
    add('disk.write-overwrite', diskOverwrite, 'GB/s', diskNew);
    add('disk.write-recycled-file', diskRecycle, 'GB/s', diskNew);
    add('disk.write-odirect-new', diskDirect, 'GB/s', diskNew);

    const oss = await startOssProcess(join(work, 'oss'));
    const bulk = new BulkClient(`127.0.0.1:${oss.bulkPort}`, { connectionsMax: IN_FLIGHT });
    const data = randomBytes(CHUNK_BYTES);
    const crc = crc32c(data);
    try {
      const write = await timedCpu(totalBytes, oss.pid, () => writeChunks(bulk, chunks, data, crc));
      add('oss.bulk.write', write.rate, 'GB/s', diskNew);
      addCpu('oss.bulk.write', write);
      const spare: Buffer[] = [];
      const read = await timedCpu(totalBytes, oss.pid, () => readChunks(bulk, chunks, spare));
      add('oss.bulk.read', read.rate, 'GB/s', socketRate);
      addCpu('oss.bulk.read', read);
      // The OSS's CPU per GiB when it leaves whole blocks to the client's check (the default)
      // against the same reads checked by the OSS as well.
      const checking = new BulkClient(`127.0.0.1:${oss.bulkPort}`, {
        connectionsMax: IN_FLIGHT,
        ossChecksReads: true,
      });
      const roundChunks = opts.quick ? chunks : chunks / 2;
      let waived: number;
      let checked: number;
      try {
        [waived, checked] = await interleavedReadCpu(
          { client: bulk, pid: oss.pid },
          { client: checking, pid: oss.pid },
          roundChunks,
        );
      } finally {
        checking.close();
      }
      results.push(
        result('oss.bulk.read.cpu-oss-reader-checks', waived, 'CPU ms/GiB', command, {
          value: checked,
          name: 'the same reads checked by the OSS as well, same run',
        }),
      );
      results.push(await spanComparison(work, bulk, oss.pid, roundChunks, data, crc, command));
      if (opts.bulkOnly) return results;
      const v1 = contract();
      const plain = new v1.OssService(`127.0.0.1:${oss.grpcPort}`, grpc.credentials.createInsecure(), {
        'grpc.max_receive_message_length': 8 * 1024 * 1024,
        'grpc.max_send_message_length': 8 * 1024 * 1024,
      });
      const grpcChunks = grpcBytes / CHUNK_BYTES;
      const gWrite = await timed(grpcBytes, () =>
        parallel(grpcChunks, IN_FLIGHT, (i) => grpcWrite(plain, i % 2, `g.${i}`, data, crc)),
      );
      add('oss.grpc-default.write', gWrite, 'GB/s', diskNew);
      const gRead = await timed(grpcBytes, () =>
        parallel(grpcChunks, IN_FLIGHT, async (i) => {
          await grpcRead(plain, i % 2, `b.${i}`, CHUNK_BYTES);
        }),
      );
      add('oss.grpc-default.read', gRead, 'GB/s', socketRate);
      plain.close();
    } finally {
      bulk.close();
      await oss.stop();
    }
  } finally {
    await cleanUp(work);
  }
  return results;
}

/** Removes the suite's folder and stops the stand-in MDS its OSSs registered with. */
async function cleanUp(work: string): Promise<void> {
  rmSync(work, { recursive: true, force: true });
  await (await standInMds)?.close();
  standInMds = undefined;
}

/**
 * The OSS's CPU per GiB read with its default 2 MiB read spans against an OSS
 * of 1 MiB spans (oss.readSpanBytes) holding the same objects
 * (interleavedReadCpu). Both write with O_DIRECT and read with it, so neither has the
 * objects in the page cache.
 */
async function spanComparison(
  work: string,
  defaultSpans: BulkClient,
  defaultPid: number,
  count: number,
  data: Buffer,
  crc: number,
  command: string,
): Promise<BenchResult> {
  const MiB = 1024 * 1024;
  const small = await startOssProcess(join(work, 'oss-1mib-spans'), {
    STRIPEFS_OSS_READ_SPAN_BYTES: String(MiB),
  });
  const smallSpans = new BulkClient(`127.0.0.1:${small.bulkPort}`, { connectionsMax: IN_FLIGHT });
  try {
    await writeChunks(smallSpans, count, data, crc);
    const [twoMiB, oneMiB] = await interleavedReadCpu(
      { client: defaultSpans, pid: defaultPid },
      { client: smallSpans, pid: small.pid },
      count,
    );
    return result('oss.bulk.read.cpu-2mib-spans', twoMiB, 'CPU ms/GiB', command, {
      value: oneMiB,
      name: 'an OSS reading the same objects in 1 MiB spans, same run',
    });
  } finally {
    smallSpans.close();
    await small.stop();
  }
}

function printTable(results: BenchResult[]): void {
  console.log('| id | value | baseline | ratio |');
  console.log('|---|---|---|---|');
  for (const r of results) {
    const base = r.baseline === null ? '-' : `${r.baseline.toFixed(2)} ${r.unit}`;
    const ratio = r.ratio === null ? '-' : `${(r.ratio * 100).toFixed(0)}%`;
    console.log(`| ${r.id} | ${r.value.toFixed(2)} ${r.unit} | ${base} | ${ratio} |`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  printTable(
    await runOssBench({
      quick: process.argv.includes('--quick'),
      bulkOnly: process.argv.includes('--bulk-only'),
    }),
  );
}
