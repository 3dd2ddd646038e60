// Shared pieces of the MDS tests: a real MDS child process on port 0 with its
// own data folder, a typed client, a registered (fake) OSS so files can be
// created, and a fake OSS gRPC server that records DeleteObject calls.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { bindServer, call, SERVER_OPTIONS, shutdownServer } from '../../common/index.js';
import type { MdsServiceClient } from '../../proto/gen/stripefs/v1/MdsService.js';
import { contract, type DeleteObjectRequest__Output } from '../../proto/index.js';
import { signedClientOptions } from '../helpers/auth.js';
import { type StartedProcess, startProcess } from '../helpers/process.js';

export interface MdsUnderTest {
  proc: StartedProcess;
  client: MdsServiceClient;
  dataDir: string;
  adminUrl: string;
  env: Record<string, string>;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `stripefs-${prefix}-`));
}

export async function startMds(dataDir: string, env: Record<string, string> = {}): Promise<MdsUnderTest> {
  const fullEnv = {
    STRIPEFS_MDS_DATA_DIR: dataDir,
    STRIPEFS_MDS_GRPC_PORT: '0',
    STRIPEFS_MDS_ADMIN_PORT: '0',
    ...env,
  };
  const proc = await startProcess({ script: 'dist/mds/main.js', env: fullEnv });
  const client = new (contract().MdsService)(
    `127.0.0.1:${proc.ready.grpcPort}`,
    grpc.credentials.createInsecure(),
    signedClientOptions(),
  );
  return { proc, client, dataDir, adminUrl: `http://127.0.0.1:${proc.ready.adminPort}`, env: fullEnv };
}

export async function stopMds(mds: MdsUnderTest, remove = true): Promise<void> {
  mds.client.close();
  await mds.proc.stop();
  if (remove) rmSync(mds.dataDir, { recursive: true, force: true });
}

/** Registers an OSS with `count` OSTs on each of `hosts` hosts (1 TiB each). */
export async function registerOss(
  client: MdsServiceClient,
  opts: { ossId: string; host: string; rack?: string; osts?: number; grpcAddress?: string },
) {
  const osts = Array.from({ length: opts.osts ?? 2 }, (_, i) => ({
    name: `ost${i}`,
    totalBytes: 2 ** 40,
    usedBytes: 0,
  }));
  return call(client, 'RegisterOss', {
    ossId: opts.ossId,
    host: opts.host,
    rack: opts.rack ?? 'rack0',
    datacenter: '',
    grpcAddress: opts.grpcAddress ?? '127.0.0.1:1',
    bulkAddress: '',
    adminAddress: '',
    osts,
  });
}

export interface FakeOss {
  address: string;
  deletes: DeleteObjectRequest__Output[];
  /** When set, DeleteObject fails with UNAVAILABLE. */
  failing: boolean;
  /** DeleteObject calls answered UNAVAILABLE because `failing` was set. */
  refused: number;
  close(): Promise<void>;
}

export async function startFakeOss(): Promise<FakeOss> {
  const server = new grpc.Server(SERVER_OPTIONS);
  const fake: FakeOss = {
    address: '',
    deletes: [],
    failing: false,
    refused: 0,
    close: () => shutdownServer(server, 500),
  };
  const unimplemented = (_call: unknown, cb: (err: Partial<grpc.ServiceError>) => void) =>
    cb({ code: grpc.status.UNIMPLEMENTED });
  server.addService(contract().OssService.service, {
    DeleteObject: (
      c: grpc.ServerUnaryCall<DeleteObjectRequest__Output, unknown>,
      cb: grpc.sendUnaryData<unknown>,
    ) => {
      if (fake.failing) {
        fake.refused++;
        return cb({ code: grpc.status.UNAVAILABLE, details: 'fake OSS failing' });
      }
      fake.deletes.push(c.request);
      cb(null, { existed: true });
    },
    WriteChunk: unimplemented,
    ReadRange: unimplemented,
    StatObject: unimplemented,
    ListObjects: unimplemented,
    Flush: unimplemented,
  });
  const port = await bindServer(server, '127.0.0.1', 0);
  fake.address = `127.0.0.1:${port}`;
  return fake;
}
