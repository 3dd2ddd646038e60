// S3 gateway benchmark, each figure beside the client library doing the same
// in the same run: a GET of a 1 GiB object (quick: 128 MiB) against the
// library's sequential read of the same file; a multipart PUT of 1 GiB in
// 8 MiB parts, 10 in flight (as awscli uploads), against the library's
// sequential write of the same bytes; 32 KiB object PUTs and GETs (64 and 16
// in flight) against the library's writeFile and readFile of the same files.
// The gateway is its own process (`stripefs s3`), spoken to over loopback HTTP
// with signed requests (UNSIGNED-PAYLOAD, as SDKs sign over TLS). Each pair
// is timed three times, alternating, and the median ratio is the figure; the
// spread of the three is in the note (the machine is shared), and for the PUT
// the CPU per GiB of every process on each side (bench/cpu.ts), which depends
// far less on the load than the rate, and the write requests (every copy's),
// the sync requests of object files and the fdatasyncs that served them per
// GiB (the OSSs' counters, oss/metrics.ts and oss/store/group-sync.ts).
//   node dist/bench/s3.js [--quick]
import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { type StartedProcess, startProcess } from '../cli/process.js';
import { type Layout, StripeClient } from '../client/index.js';
import { Semaphore } from '../common/semaphore.js';
import { adminFetch } from '../test/helpers/admin-http.js';
import { signRequest } from '../test/s3/sign.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { clusterCpuMs, cpuTotalMs } from './cpu.js';
import { type BenchResult, GB, result, type SuiteOptions } from './types.js';

const MiB = 1024 * 1024;
const ACCESS = 'AKIDBENCH';
const SECRET = 'bench-secret-key';
const PART_BYTES = 8 * MiB;
const PART_CONCURRENCY = 10;
const SMALL_BYTES = 32 * 1024;
const SMALL_WRITERS = 64;
const SMALL_READERS = 16;
const REPEATS = 3;
const IO_BYTES = 4 * MiB;
/** The bucket's layout: the client bench's replicated:3 case (what a training dataset would use). */
const LAYOUT: Layout = {
  pattern: 'replicated',
  stripeSize: MiB,
  stripeCount: 6,
  replicas: 3,
  failureDomain: 'host',
};

interface Http {
  port: number;
  agent: Agent;
}

/** One signed request; the body is sent as given and the answer drained (counted, not kept). */
function send(
  http: Http,
  method: string,
  url: string,
  body?: Buffer,
): Promise<{ status: number; bytes: number; etag: string }> {
  const { headers } = signRequest({
    method,
    url,
    host: `127.0.0.1:${http.port}`,
    accessKeyId: ACCESS,
    secretKey: SECRET,
    unsigned: true,
  });
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: http.port,
        method,
        path: url,
        agent: http.agent,
        headers: { ...headers, 'content-length': String(body?.length ?? 0) },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (piece: Buffer) => {
          bytes += piece.length;
        });
        res.on('end', () => {
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`${method} ${url}: HTTP ${res.statusCode}`));
          else resolve({ status: res.statusCode ?? 0, bytes, etag: String(res.headers.etag ?? '') });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Runs gateway and library measures alternately REPEATS times; the figure is the median of each. */
async function pairs(gateway: () => Promise<number>, library: () => Promise<number>) {
  const g: number[] = [];
  const l: number[] = [];
  for (let i = 0; i < REPEATS; i++) {
    l.push(await library());
    g.push(await gateway());
  }
  const spread = (v: number[]) => `${Math.min(...v).toFixed(3)}-${Math.max(...v).toFixed(3)}`;
  return { gateway: median(g), library: median(l), note: `runs: gateway ${spread(g)}, library ${spread(l)}` };
}

async function multipartPut(http: Http, key: string, data: Buffer): Promise<void> {
  const created = await new Promise<string>((resolve, reject) => {
    const url = `/bench/${key}?uploads`;
    const { headers } = signRequest({
      method: 'POST',
      url,
      host: `127.0.0.1:${http.port}`,
      accessKeyId: ACCESS,
      secretKey: SECRET,
      unsigned: true,
    });
    const req = request(
      { host: '127.0.0.1', port: http.port, method: 'POST', path: url, agent: http.agent, headers },
      (res) => {
        let text = '';
        res.on('data', (p: Buffer) => {
          text += p.toString();
        });
        res.on('end', () => resolve(/<UploadId>([^<]+)<\/UploadId>/.exec(text)?.[1] ?? ''));
      },
    );
    req.on('error', reject);
    req.end();
  });
  const parts = Math.ceil(data.length / PART_BYTES);
  const etags: string[] = new Array(parts);
  const gate = new Semaphore(PART_CONCURRENCY);
  await Promise.all(
    Array.from({ length: parts }, (_, i) =>
      gate.run(async () => {
        const piece = data.subarray(i * PART_BYTES, Math.min(data.length, (i + 1) * PART_BYTES));
        etags[i] = (
          await send(http, 'PUT', `/bench/${key}?partNumber=${i + 1}&uploadId=${created}`, piece)
        ).etag;
      }),
    ),
  );
  const xml = `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
  await send(http, 'POST', `/bench/${key}?uploadId=${created}`, Buffer.from(xml));
}

async function libraryWrite(client: StripeClient, path: string, data: Buffer): Promise<void> {
  const handle = await client.open(path, 'w', { layout: LAYOUT });
  for (let at = 0; at < data.length; at += IO_BYTES)
    await handle.write(data, at, Math.min(IO_BYTES, data.length - at), at);
  await handle.close();
}

async function libraryRead(client: StripeClient, path: string): Promise<number> {
  let bytes = 0;
  for await (const piece of client.createReadStream(path)) bytes += (piece as Buffer).length;
  return bytes;
}

async function rate(count: number, inFlight: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const gate = new Semaphore(inFlight);
  const seconds = await timed(() =>
    Promise.all(Array.from({ length: count }, (_, i) => gate.run(() => op(i)))),
  );
  return count / seconds;
}

type Pair = Awaited<ReturnType<typeof pairs>>;

const baseline = (value: number, name: string) => ({ value, name });

/** CPU ms so far of the gateway's process, of its event loop's thread alone, and of the cluster's processes. */
function pathCpuMs(cluster: BenchCluster, gatewayPid: number) {
  let loop = Number.NaN;
  try {
    loop =
      Number(readFileSync(`/proc/${gatewayPid}/task/${gatewayPid}/schedstat`, 'latin1').split(' ')[0]) / 1e6;
  } catch {
    // No schedstat (not Linux): the event loop's share is not reported.
  }
  return { gateway: cpuTotalMs(gatewayPid), loop, ...clusterCpuMs(cluster) };
}

type PathCpu = ReturnType<typeof pathCpuMs>;

/**
 * Write requests (every copy's), durability requests of object files and the fdatasyncs that
 * served them so far, over every OST (oss/metrics.ts, oss/store/group-sync.ts).
 */
async function fileSyncs(
  cluster: BenchCluster,
): Promise<{ writes: number; requests: number; fsyncs: number }> {
  let writes = 0;
  let requests = 0;
  let fsyncs = 0;
  for (const spec of cluster.specs) {
    const text = await (await adminFetch(`${cluster.adminUrlOf(spec.id)}/metrics`)).text();
    for (const m of text.matchAll(/^stripefs_oss_ops_total\{[^}]*\bop="write"[^}]*\} (\d+)$/gm))
      writes += Number(m[1]);
    const osts = (await (await adminFetch(`${cluster.adminUrlOf(spec.id)}/api/osts`)).json()) as {
      syncs?: { fileRequests: number; fileFsyncs: number };
    }[];
    for (const o of osts) {
      requests += o.syncs?.fileRequests ?? 0;
      fsyncs += o.syncs?.fileFsyncs ?? 0;
    }
  }
  return { writes, requests, fsyncs };
}

/** Seconds of CPU per GiB of each process between two readings, in `into` (one list per process). */
function cpuPerGiB(before: PathCpu, after: PathCpu, gib: number, into: Record<string, number[]>): void {
  for (const key of Object.keys(before) as (keyof PathCpu)[]) {
    const list = into[key] ?? [];
    list.push((after[key] - before[key]) / 1000 / gib);
    into[key] = list;
  }
}

/** The PUT's CPU note: seconds per GiB (median of the runs) through the gateway and through the library. */
function cpuNote(viaGateway: Record<string, number[]>, viaLibrary: Record<string, number[]>): string {
  const m = (v: number[] | undefined) => (v && v.length > 0 ? median(v).toFixed(2) : '?');
  const n = (v: number[] | undefined) => (v && v.length > 0 ? median(v).toFixed(0) : '?');
  return (
    `CPU s per GiB, gateway against library: gateway ${m(viaGateway.gateway)} (event loop ${m(viaGateway.loop)}), ` +
    `OSSs ${m(viaGateway.oss)} against ${m(viaLibrary.oss)}, MDS ${m(viaGateway.mds)} against ${m(viaLibrary.mds)}, ` +
    `sender ${m(viaGateway.client)} against the library's client ${m(viaLibrary.client)}; ` +
    `per GiB, write requests ${n(viaGateway.writes)} against ${n(viaLibrary.writes)}, ` +
    `object-file sync requests and the fdatasyncs that served them: ` +
    `${n(viaGateway.syncRequests)} and ${n(viaGateway.fsyncs)} against ${n(viaLibrary.syncRequests)} and ${n(viaLibrary.fsyncs)}`
  );
}

/** GET of the large object against the library's read, then a multipart PUT against its write. */
async function largeObjects(
  client: StripeClient,
  http: Http,
  sizeBytes: number,
  cluster: BenchCluster,
  gatewayPid: number,
): Promise<{ get: Pair; put: Pair }> {
  const data = Buffer.allocUnsafe(sizeBytes);
  randomFillSync(data);
  const gb = sizeBytes / GB;
  // The same file, through the gateway and through the library (a client of this process).
  await libraryWrite(client, '/bench/large', data);
  const get = await pairs(
    async () => {
      const seconds = await timed(async () => {
        const answer = await send(http, 'GET', '/bench/large');
        if (answer.bytes !== sizeBytes) throw new Error(`GET returned ${answer.bytes} bytes`);
      });
      return gb / seconds;
    },
    async () => gb / (await timed(() => libraryRead(client, '/bench/large'))),
  );
  process.stderr.write(
    `s3: GET ${get.gateway.toFixed(3)} GB/s, library read ${get.library.toFixed(3)} GB/s\n`,
  );
  const viaGateway: Record<string, number[]> = {};
  const viaLibrary: Record<string, number[]> = {};
  const gib = sizeBytes / 1024 ** 3;
  const measured = async (work: () => Promise<unknown>, into: Record<string, number[]>) => {
    const syncsBefore = await fileSyncs(cluster);
    const before = pathCpuMs(cluster, gatewayPid);
    const seconds = await timed(work);
    cpuPerGiB(before, pathCpuMs(cluster, gatewayPid), gib, into);
    const syncsAfter = await fileSyncs(cluster);
    // Per GiB: sync writes and flushes of object files, and the fdatasyncs that served them.
    into.syncRequests = [...(into.syncRequests ?? []), (syncsAfter.requests - syncsBefore.requests) / gib];
    into.fsyncs = [...(into.fsyncs ?? []), (syncsAfter.fsyncs - syncsBefore.fsyncs) / gib];
    into.writes = [...(into.writes ?? []), (syncsAfter.writes - syncsBefore.writes) / gib];
    return gb / seconds;
  };
  const put = await pairs(
    () => measured(() => multipartPut(http, 'uploaded', data), viaGateway),
    () => measured(() => libraryWrite(client, '/bench/written', data), viaLibrary),
  );
  const cpu = cpuNote(viaGateway, viaLibrary);
  process.stderr.write(
    `s3: multipart PUT ${put.gateway.toFixed(3)} GB/s, library write ${put.library.toFixed(3)} GB/s; ${cpu}\n`,
  );
  return { get, put: { ...put, note: `${put.note}; ${cpu}` } };
}

/** Small-object PUT and GET rates against the library's writeFile and readFile of the same files. */
async function smallObjects(
  client: StripeClient,
  mds: string,
  http: Http,
  count: number,
): Promise<{ put: Pair; get: Pair }> {
  const small = Buffer.alloc(SMALL_BYTES, 7);
  await client.mkdir('/bench/lib', { recursive: true });
  const put = await pairs(
    () => rate(count, SMALL_WRITERS, (i) => send(http, 'PUT', `/bench/small/o${i}`, small)),
    () => rate(count, SMALL_WRITERS, (i) => client.writeFile(`/bench/lib/o${i}`, small)),
  );
  // A fresh client for the library's reads: nothing of the files in its cache.
  const reader = await StripeClient.connect({ mds, seed: 4 });
  try {
    const get = await pairs(
      () => rate(count, SMALL_READERS, (i) => send(http, 'GET', `/bench/small/o${i}`)),
      () => rate(count, SMALL_READERS, (i) => reader.readFile(`/bench/lib/o${i}`)),
    );
    process.stderr.write(
      `s3: small PUT ${put.gateway.toFixed(0)}/s (library ${put.library.toFixed(0)}/s), GET ${get.gateway.toFixed(0)}/s (library ${get.library.toFixed(0)}/s)\n`,
    );
    return { put, get };
  } finally {
    await reader.close();
  }
}

export async function runS3Bench(opts: SuiteOptions): Promise<BenchResult[]> {
  const command = `node dist/bench/s3.js${opts.quick ? ' --quick' : ''}`;
  const sizeBytes = (opts.quick ? 128 : 1024) * MiB;
  const smallCount = opts.quick ? 500 : 5_000;
  const shared = opts.cluster ? await opts.cluster() : undefined;
  const own: BenchCluster | undefined = shared ? undefined : await startBenchCluster();
  const cluster = (shared ?? own) as BenchCluster;
  let gatewayProcess: StartedProcess | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: SMALL_WRITERS });
  const client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: 3 });
  try {
    gatewayProcess = await startProcess({
      script: 'dist/cli/main.js',
      args: ['s3', '--listen', '127.0.0.1:0', '--mds', cluster.mdsAddress],
      env: { STRIPEFS_S3_ACCESS_KEY: ACCESS, STRIPEFS_S3_SECRET_KEY: SECRET },
    });
    const http: Http = { port: gatewayProcess.ready.port as number, agent };
    await send(http, 'PUT', '/bench');
    await client.setLayout('/bench', LAYOUT);
    process.stderr.write(`s3: ${sizeBytes / MiB} MiB objects, ${smallCount} small objects\n`);
    const large = await largeObjects(client, http, sizeBytes, cluster, gatewayProcess.child.pid as number);
    const small = await smallObjects(client, cluster.mdsAddress, http, smallCount);
    const mib = sizeBytes / MiB;
    return [
      result(
        's3.get-large',
        large.get.gateway,
        'GB/s',
        command,
        baseline(large.get.library, `the library's sequential read of the same ${mib} MiB file, same run`),
        `replicated:3; ${large.get.note}`,
      ),
      result(
        's3.put-multipart',
        large.put.gateway,
        'GB/s',
        command,
        baseline(large.put.library, `the library's sequential write of the same ${mib} MiB, same run`),
        `8 MiB parts, 10 in flight; ${large.put.note}`,
      ),
      result(
        's3.put-small',
        small.put.gateway,
        'objects/s',
        command,
        baseline(
          small.put.library,
          `the library's writeFile of ${SMALL_BYTES / 1024} KiB files, ${SMALL_WRITERS} in flight, same run`,
        ),
        `${smallCount} objects; ${small.put.note}`,
      ),
      result(
        's3.get-small',
        small.get.gateway,
        'objects/s',
        command,
        baseline(
          small.get.library,
          `the library's readFile of the same size, ${SMALL_READERS} in flight, fresh client, same run`,
        ),
        `${smallCount} objects; ${small.get.note}`,
      ),
    ];
  } finally {
    agent.destroy();
    await gatewayProcess?.stop();
    await client.close();
    await own?.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const results = await runS3Bench({ quick: process.argv.includes('--quick') });
  for (const r of results) process.stdout.write(`${JSON.stringify(r)}\n`);
}
