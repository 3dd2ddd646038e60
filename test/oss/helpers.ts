// Shared by the OSS tests: start a real OSS process against a fake MDS, and
// speak to it over gRPC and the bulk path.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll } from 'vitest';
import { BulkClient } from '../../common/bulk/client.js';
import { crc32cCombine } from '../../common/bulk/crc-combine.js';
import type { BulkRef } from '../../common/bulk/frame.js';
import { crc32c } from '../../common/checksum.js';
import { CLIENT_OPTIONS, call, fromGrpcError } from '../../common/grpc.js';
import { LIMITS } from '../../common/limits.js';
import type { OssCore } from '../../oss/ops.js';
import type { OssServiceClient } from '../../proto/gen/stripefs/v1/OssService.js';
import {
  contract,
  type ReadRangeResponse__Output,
  type WriteChunkResponse__Output,
} from '../../proto/index.js';
import { adminFetch } from '../helpers/admin-http.js';
import { eventually } from '../helpers/eventually.js';
import { type StartedProcess, startProcess } from '../helpers/process.js';
import { type FakeMds, startFakeMds } from './fake-mds.js';

export interface OssUnderTest {
  proc: StartedProcess;
  grpc: OssServiceClient;
  bulk: BulkClient;
  adminUrl: string;
  ostIds: number[];
  dataDir: string;
  stop(): Promise<void>;
}

export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startOss(
  mds: FakeMds,
  dataDir: string,
  env: Record<string, string> = {},
  bulkTimeoutMs = 20_000,
): Promise<OssUnderTest> {
  const registered = mds.registrations.length;
  const proc = await startProcess({
    script: 'dist/oss/main.js',
    env: {
      STRIPEFS_OSS_ID: 'oss-a',
      STRIPEFS_OSS_DATA_DIR: dataDir,
      STRIPEFS_MDS: mds.address,
      STRIPEFS_OSS_OSTS: '2',
      STRIPEFS_OSS_FSYNC: 'true',
      ...env,
    },
  });
  const ready = proc.ready as unknown as {
    grpcPort: number;
    bulkPort: number;
    adminPort: number;
    osts: { id: number }[];
  };
  const v1 = contract();
  const client = new v1.OssService(
    `127.0.0.1:${ready.grpcPort}`,
    grpc.credentials.createInsecure(),
    CLIENT_OPTIONS,
  );
  const bulk = new BulkClient(`127.0.0.1:${ready.bulkPort}`, { timeoutMs: bulkTimeoutMs });
  // Reads wait until the OSS has registered (the MDS's answer says which copies missed writes).
  await eventually(
    async () => {
      if (mds.registrations.length > registered) return true;
      throw new Error(`${mds.registrations.length} registrations`);
    },
    { timeoutMs: 60_000, what: 'the OSS registered with the MDS' },
  );
  return {
    proc,
    grpc: client,
    bulk,
    adminUrl: `http://127.0.0.1:${ready.adminPort}`,
    ostIds: ready.osts.map((o) => o.id),
    dataDir,
    stop: async () => {
      client.close();
      bulk.close();
      await proc.stop();
    },
  };
}

/** A fake MDS and a real OSS on a temporary folder for one describe block: started before its tests, gone after. */
export interface OssHarness {
  readonly mds: FakeMds;
  readonly oss: OssUnderTest;
  readonly dir: string;
  /** Kills the OSS (if it is still running) and starts it again on the same folder. */
  restart(): Promise<void>;
}

export function useOss(prefix: string, env: Record<string, string> = {}): OssHarness {
  const tmp = tempDir(prefix);
  let mds: FakeMds | undefined;
  let oss: OssUnderTest | undefined;
  beforeAll(async () => {
    mds = await startFakeMds();
    oss = await startOss(mds, tmp.dir, env);
  });
  afterAll(async () => {
    await oss?.stop();
    await mds?.close();
    tmp.remove();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useOss: the OSS is not started (used outside a test?)');
    return value;
  };
  return {
    get mds() {
      return started(mds);
    },
    get oss() {
      return started(oss);
    },
    dir: tmp.dir,
    restart: async () => {
      const running = started(oss);
      running.grpc.close();
      running.bulk.close();
      await running.proc.kill('SIGKILL');
      oss = await startOss(started(mds), tmp.dir, env);
    },
  };
}

/** Objects and bytes of an OST: as its OSS counts them, or as a listing adds them up. */
export interface OstTally {
  objectCount: number;
  usedBytes: number;
}

/** OST `name` as its OSS counts it (GET /api/osts). */
export async function ostCounted(oss: OssUnderTest, name: string): Promise<OstTally> {
  const osts = (await (await adminFetch(`${oss.adminUrl}/api/osts`)).json()) as (OstTally & {
    name: string;
  })[];
  const ost = osts.find((o) => o.name === name);
  if (!ost) throw new Error(`no OST ${name} on ${oss.adminUrl}`);
  return { objectCount: ost.objectCount, usedBytes: ost.usedBytes };
}

/** A per-OST gauge of the OSS's /metrics. */
export async function ostGauge(oss: OssUnderTest, name: string, ost: string): Promise<number> {
  const text = await (await adminFetch(`${oss.adminUrl}/metrics`)).text();
  const m = text.match(new RegExp(`^${name}\\{ost="${ost}"[^}]*\\} (\\d+)`, 'm'));
  if (!m) throw new Error(`${name} for ${ost} not in /metrics`);
  return Number(m[1]);
}

/** The objects of PG 0 of pool 1 on the OST, as ListObjects adds them up (what the tests write to). */
export async function ostListed(oss: OssUnderTest, ostId: number): Promise<OstTally> {
  const page = await call(oss.grpc, 'ListObjects', { ostId, poolId: 1, pg: 0, cursor: '', limit: 1000 });
  return {
    objectCount: page.objects.length,
    usedBytes: page.objects.reduce((sum, o) => sum + Number(o.size), 0),
  };
}

export function ref(ostId: number, objectId: string, extra: Partial<BulkRef> = {}): BulkRef {
  return { ostId, objectId, poolId: 1, pg: 0, mapEpoch: 0, ...extra };
}

export function grpcWrite(
  client: OssServiceClient,
  r: ReturnType<typeof ref>,
  offset: number,
  data: Buffer,
  opts: { crc?: number; truncate?: boolean; pieceBytes?: number } = {},
): Promise<WriteChunkResponse__Output> {
  return new Promise((resolve, reject) => {
    const stream = client.WriteChunk((err, res) => {
      if (err) reject(fromGrpcError(err));
      else resolve(res!);
    });
    stream.write({
      header: {
        ref: r,
        offset,
        length: data.length,
        crc32c: opts.crc ?? crc32c(data),
        truncate: !!opts.truncate,
      },
    });
    const piece = opts.pieceBytes ?? LIMITS.streamPieceBytes;
    for (let at = 0; at < data.length; at += piece) stream.write({ data: data.subarray(at, at + piece) });
    stream.end();
  });
}

export function grpcRead(
  client: OssServiceClient,
  r: ReturnType<typeof ref>,
  offset: number,
  length: number,
): Promise<{ data: Buffer; objectSize: number; crcOk: boolean }> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let objectSize = 0;
    let crcOk = true;
    let first = true;
    const stream = client.ReadRange({ ref: r, offset, length });
    stream.on('data', (msg: ReadRangeResponse__Output) => {
      if (first) objectSize = Number(msg.objectSize);
      first = false;
      if (crc32c(msg.data) !== msg.crc32c) crcOk = false;
      parts.push(msg.data);
    });
    stream.on('error', (err) => reject(fromGrpcError(err)));
    stream.on('end', () => resolve({ data: Buffer.concat(parts), objectSize, crcOk }));
  });
}

export { crc32c, crc32cCombine };

/** The first `length` bytes of an object read straight from an OssCore (no process), copied out of its pieces. */
export async function readWhole(
  core: OssCore,
  ref: Parameters<OssCore['read']>[0],
  length: number,
): Promise<Buffer> {
  const got: Buffer[] = [];
  await core.read(
    ref,
    0,
    length,
    () => undefined,
    (pieces) => {
      for (const p of pieces) got.push(Buffer.from(p.data));
      pieces[pieces.length - 1]?.release?.();
    },
  );
  return Buffer.concat(got);
}
