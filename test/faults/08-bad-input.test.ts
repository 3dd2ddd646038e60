// Scenario 8: bad input at every server port.
//   workload  6 replicated:3 and 6 ec:4+2 files, local copies
//   fault     - gRPC (MDS and OSS ports, raw HTTP/2): random bytes as a body, a
//               truncated length prefix, a prefix announcing 100 MiB, random
//               protobuf in a valid frame, an unknown method
//             - the real contract with invalid object ids and path tricks
//             - the OSS bulk port: random bytes and truncated headers over TCP
//             - the admin ports: garbage HTTP, bad JSON, an oversized body,
//               invalid OST ids
//   safety    every gRPC call ends with a non-zero grpc-status; contract calls
//             fail with registry codes (bad paths with NS_INVALID_NAME or
//             NS_NAME_TOO_LONG, and create nothing); the bulk ports answer
//             garbage with REQ_INVALID and close; the admin ports answer raw
//             garbage with HTTP 400 and close, bad requests with a registry code
//   converge  every process is alive (/healthz), and every file reads back
import { connect as connectHttp2, constants as h2 } from 'node:http2';
import { connect as connectTcp } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import {
  decodeErrorBody,
  decodeResponseHeader,
  REQUEST_FIXED_BYTES,
  REQUEST_MAGIC,
  RESPONSE_FIXED_BYTES,
} from '../../common/bulk/frame.js';
import { isErrorCode, StripeError } from '../../common/errors.js';
import { call } from '../../common/grpc.js';
import { seededRandom } from '../../common/random.js';
import { contract } from '../../proto/index.js';
import { adminFetch } from '../helpers/admin-http.js';
import { serviceTicket, signedClientOptions, ticketedClientOptions } from '../helpers/auth.js';
import { connectReader } from '../helpers/clients.js';
import { adminJson, type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { codeOf, settle } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { freePortRange } from '../helpers/ports.js';
import { suiteSeed, Workload } from './workload.js';

const SEED = suiteSeed('faults/08-bad-input');
const S = 64 * 1024;
const REP3: Layout = {
  pattern: 'replicated',
  replicas: 3,
  failureDomain: 'host',
  stripeCount: 2,
  stripeSize: S,
};
const EC42: Layout = { pattern: 'ec', k: 4, m: 2, failureDomain: 'host', stripeSize: S };
const random = seededRandom(SEED);
const randomBytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => random.int(256)));

/** One raw HTTP/2 gRPC request; resolves with the grpc-status it ended with (headers or trailers). */
function rawGrpc(port: number, path: string, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const session = connectHttp2(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const timer = setTimeout(() => {
      session.destroy();
      reject(new Error(`${path} on ${port}: no answer in 10 s`));
    }, 10_000);
    const req = session.request({
      [h2.HTTP2_HEADER_METHOD]: 'POST',
      [h2.HTTP2_HEADER_PATH]: path,
      'content-type': 'application/grpc',
      te: 'trailers',
    });
    let status: string | undefined;
    const take = (headers: Record<string, unknown>): void => {
      if (headers['grpc-status'] !== undefined) status = String(headers['grpc-status']);
    };
    req.on('response', take);
    req.on('trailers', take);
    req.on('data', () => undefined);
    const done = (): void => {
      clearTimeout(timer);
      session.close();
      resolve(status ?? 'none');
    };
    req.on('end', done);
    req.on('close', done);
    req.on('error', () => done());
    req.end(body);
  });
}

function frame(payload: Buffer, declared = payload.length): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(declared, 1);
  return Buffer.concat([head, payload]);
}

/**
 * Writes bytes to a TCP port and ends its side, as a client that sent garbage and is done;
 * resolves with what came back once the server has closed the connection (it must: a
 * server that kept a dead connection open would fail the wait with its deadline).
 */
async function rawTcp(port: number, bytes: Buffer): Promise<Buffer> {
  const socket = connectTcp(port, '127.0.0.1');
  const answer: Buffer[] = [];
  let closed = false;
  socket.on('data', (d: Buffer) => answer.push(d));
  // A reset instead of an orderly close is still a close; 'close' follows either way.
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed = true;
  });
  socket.end(bytes);
  try {
    await eventually(() => closed, {
      timeoutMs: 30_000,
      what: `port ${port} to close after garbage`,
      intervalMs: 20,
    });
  } finally {
    socket.destroy();
  }
  return Buffer.concat(answer);
}

/** The registry code of a bulk error answer (the answer must be one). */
function bulkErrorCode(answer: Buffer): string {
  expect(answer.length).toBeGreaterThanOrEqual(RESPONSE_FIXED_BYTES);
  const header = decodeResponseHeader(answer.subarray(0, RESPONSE_FIXED_BYTES));
  expect(header.ok).toBe(false);
  const body = answer.subarray(RESPONSE_FIXED_BYTES, RESPONSE_FIXED_BYTES + header.bodyBytes);
  return decodeErrorBody(body).code;
}

describe('scenario 8: servers survive bad input and keep the data intact', () => {
  let cluster: Cluster;
  let client: StripeClient;
  const work = new Workload(SEED, 512 * 1024);
  const ports = (): { grpc: number; bulk: number; admin: number }[] =>
    cluster.oss.map((p) => ({
      grpc: p?.ready.grpcPort as number,
      bulk: p?.ready.bulkPort as number,
      admin: p?.ready.adminPort as number,
    }));

  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(6, 2), mdsGrpcPort: await freePortRange(2), pgCount: 32 });
    client = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 2_000 });
    await work.writeMany(client, '/rep', 6, REP3);
    await work.writeMany(client, '/ec', 6, EC42);
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  it('gRPC garbage on the MDS and OSS ports ends every call with a non-zero grpc-status', async () => {
    const mdsPort = Number(cluster.mdsAddress.split(':')[1]);
    const targets = [
      { port: mdsPort, method: '/stripefs.v1.MdsService/Stat' },
      { port: mdsPort, method: '/stripefs.v1.MdsService/Create' },
      { port: ports()[0]?.grpc as number, method: '/stripefs.v1.OssService/ReadRange' },
      { port: ports()[1]?.grpc as number, method: '/stripefs.v1.OssService/WriteChunk' },
      { port: ports()[2]?.grpc as number, method: '/stripefs.v1.OssService/ListObjects' },
    ];
    for (const { port, method } of targets) {
      const bodies: [string, Buffer][] = [
        ['random bytes', randomBytes(300)],
        ['truncated prefix', Buffer.from([0, 0, 0])],
        ['prefix announcing 100 MiB', frame(randomBytes(64), 100 * 1024 * 1024)],
        ['random protobuf', frame(randomBytes(200))],
        ['empty', Buffer.alloc(0)],
      ];
      for (const [what, body] of bodies) {
        const status = await rawGrpc(port, method, body);
        expect(status, `${method} with ${what}`).not.toBe('0');
      }
      expect(await rawGrpc(port, '/stripefs.v1.Nope/Nothing', frame(Buffer.alloc(0)))).toBe('12');
    }
  });

  it('the contract with invalid ids and path tricks: registry codes, nothing escapes the OST folder', async () => {
    const view = (await client.getLayout('/rep/f0005')).objects[0];
    const ost = view?.osts[0] as number;
    const port = cluster.ossById(cluster.ossOfOst(ost).id).ready.grpcPort;
    // With a service ticket, so the ids themselves are what the OSS refuses.
    const ticket = await serviceTicket(cluster.mdsAddress);
    const oss = new (contract().OssService)(
      `127.0.0.1:${port}`,
      grpc.credentials.createInsecure(),
      ticketedClientOptions(ticket),
    );
    const mds = new (contract().MdsService)(
      cluster.mdsAddress,
      grpc.credentials.createInsecure(),
      signedClientOptions(),
    );
    try {
      for (const objectId of ['../../etc/passwd', '..', 'a/b', '', 'x'.repeat(300), 'a\0b', '%2e%2e']) {
        const ref = { ostId: ost, objectId, poolId: 1, pg: 0, mapEpoch: 0 };
        for (const attempt of [
          () => call(oss, 'StatObject', { ref }),
          () => call(oss, 'DeleteObject', { ref }),
          () => call(oss, 'Flush', { ref }),
        ]) {
          const result = await settle(attempt());
          expect(result.ok, `${JSON.stringify(objectId)} accepted`).toBe(false);
          if (!result.ok) expect(isErrorCode(result.code), result.code).toBe(true);
        }
      }
      const badRef = { ostId: 99_999, objectId: '1.0', poolId: 12345, pg: 1 << 30, mapEpoch: 0 };
      const bad = await settle(call(oss, 'StatObject', { ref: badRef }));
      expect(bad.ok).toBe(false);
      const refusals: [string, string][] = [
        ['../..', 'NS_INVALID_NAME'],
        ['/../../etc', 'NS_INVALID_NAME'],
        ['relative', 'NS_INVALID_NAME'],
        ['/a\0b', 'NS_INVALID_NAME'],
        [`/${'n'.repeat(5000)}`, 'NS_NAME_TOO_LONG'],
        ['/rep/../rep', 'NS_INVALID_NAME'],
        ['/rep/./f0000', 'NS_INVALID_NAME'],
        ['//', 'NS_INVALID_NAME'],
        ['', 'NS_INVALID_NAME'],
      ];
      for (const [path, code] of refusals) {
        expect(await codeOf(call(mds, 'Stat', { path })), `Stat ${JSON.stringify(path)}`).toBe(code);
        expect(
          await codeOf(call(mds, 'Create', { path, exclusive: true })),
          `Create ${JSON.stringify(path)}`,
        ).toBe(code);
        expect(
          await codeOf(call(mds, 'Mkdir', { path, parents: true })),
          `Mkdir ${JSON.stringify(path)}`,
        ).toBe(code);
      }
      // Nothing was created by any of them: the root holds what the workload made, and only that.
      const root = await call(mds, 'Readdir', { path: '/', cursor: '', limit: 100, withAttrs: false });
      expect(root.entries.map((e) => e.name).sort()).toEqual(['ec', 'rep']);
      // A cursor past every name and an absurd page size: an empty page, not an error or a flood.
      const deep = await call(mds, 'Readdir', {
        path: '/',
        cursor: '\uffff'.repeat(10),
        limit: 1 << 30,
        withAttrs: true,
      });
      expect(deep.entries).toEqual([]);
      // An oversized message through the real client: refused, not stored.
      const huge = await settle(
        call(mds, 'Mkdir', { path: `/${'x'.repeat(9 * 1024 * 1024)}`, parents: false }),
      );
      expect(huge.ok).toBe(false);
      if (!huge.ok) expect(huge.err).toBeInstanceOf(StripeError);
    } finally {
      oss.close();
      mds.close();
      ticket.close();
    }
  });

  it('random bytes and bad headers on the bulk ports: a coded answer and a close', async () => {
    const realMagicBadOp = Buffer.alloc(REQUEST_FIXED_BYTES, 0xff);
    realMagicBadOp.writeUInt32LE(REQUEST_MAGIC, 0);
    for (const { bulk } of ports()) {
      for (const [what, bytes] of [
        ['random bytes', randomBytes(4096)],
        ['another magic', Buffer.concat([Buffer.from('SFSB'), Buffer.alloc(44, 0xff)])],
        ['zeros', Buffer.alloc(REQUEST_FIXED_BYTES)],
        ['the request magic with a bad op', realMagicBadOp],
      ] as const) {
        expect(bulkErrorCode(await rawTcp(bulk, bytes)), `${what} on ${bulk}`).toBe('REQ_INVALID');
      }
      // A header cut short: nothing to answer, the connection closes when the client does.
      expect((await rawTcp(bulk, randomBytes(7))).length).toBe(0);
    }
  });

  it('garbage HTTP to the admin ports: coded answers', async () => {
    const admins = [cluster.mdsAdminUrl, ...ports().map((p) => `http://127.0.0.1:${p.admin}`)];
    for (const url of admins) {
      for (const bytes of [Buffer.from('GARBAGE / NOTHTTP\r\n\r\n'), randomBytes(2000)]) {
        const answer = (await rawTcp(Number(url.split(':')[2]), bytes)).toString('latin1');
        expect(answer, url).toMatch(/^HTTP\/1\.1 400 /);
      }
    }
    for (const { admin } of ports()) {
      const base = `http://127.0.0.1:${admin}/api/osts`;
      const cases: [string, RequestInit][] = [
        [
          `${base}/abc/faults`,
          { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' },
        ],
        [
          `${base}/99999/faults`,
          { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{}' },
        ],
        [
          `${base}/0/faults`,
          { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{not json' },
        ],
        [
          `${base}/0/faults`,
          { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"latencyMs":-5}' },
        ],
        [
          `${base}/0/faults`,
          {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: `{"x":"${'y'.repeat(100_000)}"}`,
          },
        ],
      ];
      for (const [url, init] of cases) {
        const res = await adminFetch(url, init);
        expect(res.status, url).toBeGreaterThanOrEqual(400);
        const body = (await res.json()) as { code?: string };
        expect(isErrorCode(body.code), `${url}: ${JSON.stringify(body)}`).toBe(true);
      }
    }
    const mdsBad = await adminFetch(`${cluster.mdsAdminUrl}/api/osts/abc/out`, { method: 'POST' });
    expect(mdsBad.status).toBeGreaterThanOrEqual(400);
  });

  it('converges: every process alive, every file reads back identical', async () => {
    expect((await adminJson<{ status: string }>(`${cluster.mdsAdminUrl}/healthz`)).status).toBe('ok');
    for (const spec of cluster.specs)
      expect((await adminJson<{ ok: boolean }>(`${cluster.adminUrlOf(spec.id)}/healthz`)).ok).toBe(true);
    for (const p of cluster.oss) expect(p?.child.exitCode).toBeNull();
    expect(cluster.mds.child.exitCode).toBeNull();
    const fresh = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 2_000 });
    try {
      expect(await work.verify(fresh)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
