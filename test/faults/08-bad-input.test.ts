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
//             fail with registry codes; admin answers carry a registry code
//   converge  every process is alive (/healthz), and every file reads back
import { connect as connectHttp2, constants as h2 } from 'node:http2';
import { connect as connectTcp } from 'node:net';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { isErrorCode, StripeError } from '../../common/errors.js';
import { CLIENT_OPTIONS, call } from '../../common/grpc.js';
import { seededRandom } from '../../common/random.js';
import { contract } from '../../proto/index.js';
import { freePortRange } from '../helpers/ports.js';
import { type FaultCluster, getJson, rackLayout, startFaultCluster } from './harness.js';
import { codeOf, connectReader, settle, suiteSeed, Workload } from './workload.js';

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

/** Writes bytes to a TCP port and waits until the server closes or 1 s passes. */
function rawTcp(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connectTcp(port, '127.0.0.1');
    const answer: Buffer[] = [];
    const end = (): void => {
      socket.destroy();
      resolve(Buffer.concat(answer).toString('latin1'));
    };
    const timer = setTimeout(end, 1_000);
    socket.on('data', (d: Buffer) => answer.push(d));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      end();
    });
    socket.write(bytes);
  });
}

describe('scenario 8: servers survive bad input and keep the data intact', () => {
  let cluster: FaultCluster;
  let client: StripeClient;
  const work = new Workload(SEED, 512 * 1024);
  const ports = (): { grpc: number; bulk: number; admin: number }[] =>
    [...cluster.oss.values()].map((p) => ({
      grpc: p?.ready.grpcPort as number,
      bulk: p?.ready.bulkPort as number,
      admin: p?.ready.adminPort as number,
    }));

  beforeAll(async () => {
    cluster = await startFaultCluster({ oss: rackLayout(6, 2), mdsGrpcPort: await freePortRange(2) });
    client = await connectReader(cluster.mdsAddress, SEED);
    await work.writeMany(client, '/rep', 6, REP3);
    await work.writeMany(client, '/ec', 6, EC42);
  }, 90_000);
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
    const port = cluster.oss.get(cluster.ossOfOst(ost).id)?.ready.grpcPort;
    const oss = new (contract().OssService)(
      `127.0.0.1:${port}`,
      grpc.credentials.createInsecure(),
      CLIENT_OPTIONS,
    );
    const mds = new (contract().MdsService)(
      cluster.mdsAddress,
      grpc.credentials.createInsecure(),
      CLIENT_OPTIONS,
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
          if (!result.ok) expect(isErrorCode(codeOf(result.err)), codeOf(result.err)).toBe(true);
        }
      }
      const badRef = { ostId: 99_999, objectId: '1.0', poolId: 12345, pg: 1 << 30, mapEpoch: 0 };
      const bad = await settle(call(oss, 'StatObject', { ref: badRef }));
      expect(bad.ok).toBe(false);
      for (const path of [
        '../..',
        '/../../etc',
        'relative',
        '/a\0b',
        `/${'n'.repeat(5000)}`,
        '/rep/../rep',
        '//',
      ]) {
        for (const attempt of [
          () => call(mds, 'Stat', { path }),
          () => call(mds, 'Create', { path, exclusive: true }),
        ]) {
          const result = await settle(attempt());
          if (!result.ok)
            expect(isErrorCode(codeOf(result.err)), `${path}: ${codeOf(result.err)}`).toBe(true);
        }
      }
      const deep = await settle(
        call(mds, 'Readdir', { path: '/', cursor: '\uffff'.repeat(10), limit: 1 << 30, withAttrs: true }),
      );
      if (!deep.ok) expect(isErrorCode(codeOf(deep.err))).toBe(true);
      // An oversized message through the real client: refused, not stored.
      const huge = await settle(
        call(mds, 'Mkdir', { path: `/${'x'.repeat(9 * 1024 * 1024)}`, parents: false }),
      );
      expect(huge.ok).toBe(false);
      if (!huge.ok) expect(huge.err).toBeInstanceOf(StripeError);
    } finally {
      oss.close();
      mds.close();
    }
  });

  it('random bytes and truncated headers on the bulk ports', async () => {
    for (const { bulk } of ports()) {
      await rawTcp(bulk, randomBytes(4096));
      await rawTcp(bulk, randomBytes(7));
      await rawTcp(bulk, Buffer.concat([Buffer.from('SFSB'), Buffer.alloc(44, 0xff)]));
      await rawTcp(bulk, Buffer.alloc(48));
    }
  });

  it('garbage HTTP to the admin ports: coded answers', async () => {
    const admins = [cluster.mdsAdminUrl, ...ports().map((p) => `http://127.0.0.1:${p.admin}`)];
    for (const url of admins) {
      await rawTcp(Number(url.split(':')[2]), Buffer.from('GARBAGE / NOTHTTP\r\n\r\n'));
      await rawTcp(Number(url.split(':')[2]), randomBytes(2000));
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
        const res = await fetch(url, init);
        expect(res.status, url).toBeGreaterThanOrEqual(400);
        const body = (await res.json()) as { code?: string };
        expect(isErrorCode(body.code), `${url}: ${JSON.stringify(body)}`).toBe(true);
      }
    }
    const mdsBad = await fetch(`${cluster.mdsAdminUrl}/api/osts/abc/out`, { method: 'POST' });
    expect(mdsBad.status).toBeGreaterThanOrEqual(400);
  });

  it('converges: every process alive, every file reads back identical', async () => {
    expect((await getJson<{ status: string }>(`${cluster.mdsAdminUrl}/healthz`)).status).toBe('ok');
    for (const spec of cluster.specs)
      expect((await getJson<{ ok: boolean }>(`${cluster.adminUrlOf(spec.id)}/healthz`)).ok).toBe(true);
    for (const p of cluster.oss.values()) expect(p?.child.exitCode).toBeNull();
    expect(cluster.mds.child.exitCode).toBeNull();
    const fresh = await connectReader(cluster.mdsAddress, SEED);
    try {
      expect(await work.verify(fresh)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
