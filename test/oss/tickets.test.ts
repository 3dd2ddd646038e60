// Data-path tickets on a real cluster (1 MDS, 2 OSSs, auth on): at the OSS's
// gRPC port and at its bulk port, a request with no ticket, a forged MAC,
// another file's ticket, a read ticket used to write, an expired ticket and
// the ticket of an evicted client are each refused with its code, every
// refusal is counted in the OSS's metrics, and the stored bytes are unchanged
// (read back by a cold client). A new ticket key reaches the OSSs without a
// restart; the MDS's destroy queue deletes with its service ticket; a client
// keeps reading past several ticket lifetimes (renewal); a non-admin cannot
// get a service ticket. Tickets live 8 s here (mds.ticketTtlMs), keys 5 s.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcTransport } from '../../client/grpc-transport.js';
import { type Layout, StripeClient } from '../../client/index.js';
import { MdsClient } from '../../client/mds-client.js';
import { ticketOptions } from '../../common/auth/signing.js';
import { parseTicket } from '../../common/auth/ticket.js';
import { BulkClient } from '../../common/bulk/client.js';
import { ChannelCache } from '../../common/channels.js';
import { crc32c } from '../../common/checksum.js';
import { CLIENT_OPTIONS, call } from '../../common/grpc.js';
import { seedFromEnv } from '../../common/random.js';
import { contract } from '../../proto/index.js';
import { adminFetch } from '../helpers/admin-http.js';
import { runCli } from '../helpers/cli.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { codeOf } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { storedLocation } from '../helpers/stored-bytes.js';

const SEED = seedFromEnv();
console.log(`tickets seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const SIZE = 64 * 1024;
const ONE_OBJECT: Layout = { pattern: 'raid0', stripeSize: SIZE, stripeCount: 1 };
const TICKET_TTL_MS = 8_000;

interface Target {
  ref: { ostId: number; objectId: string; poolId: number; pg: number; mapEpoch: number };
  grpcAddress: string;
  bulkAddress: string;
  adminUrl: string;
}

/** A ticket with one character of its MAC changed. */
function forged(ticket: string): string {
  const last = ticket.at(-2) === 'A' ? 'B' : 'A';
  return `${ticket.slice(0, -2)}${last}${ticket.slice(-1)}`;
}

describe('data-path tickets at the OSS doors', () => {
  let cluster: Cluster;
  let admin: StripeClient;
  let adminMds: MdsClient;
  let readerMds: MdsClient;
  const channels = new ChannelCache(contract().OssService);
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-tickets-'));
  const bytes = { a: seededBytes(SIZE, SEED), b: seededBytes(SIZE, SEED + 1) };
  const targets: Record<'a' | 'b', Target> = {} as Record<'a' | 'b', Target>;
  const refusals = new Map<string, number>();

  /** Each door's read and write of `target`'s object with `ticket` (undefined: none); answers each code. */
  async function attempt(target: Target, ticket: string | undefined, op: 'read' | 'write') {
    const source = { get: () => ticket, retrying: <T>(_: string, run: () => Promise<T>) => run() };
    const grpc = new GrpcTransport(
      channels.get(target.grpcAddress),
      target.grpcAddress,
      { requestTimeoutMs: 30_000, wirePieceBytes: SIZE, tickets: source },
      { onReadAnswered: () => undefined },
    );
    const bulk = new BulkClient(target.bulkAddress, { ticketOf: () => ticket });
    const junk = Buffer.alloc(SIZE, 0xee);
    try {
      const codes =
        op === 'read'
          ? [await codeOf(grpc.read(target.ref, 0, SIZE)), await codeOf(bulk.read(target.ref, 0, SIZE))]
          : [
              await codeOf(grpc.write(target.ref, 0, junk, crc32c(junk))),
              await codeOf(bulk.write(target.ref, 0, junk, crc32c(junk))),
            ];
      for (const [i, code] of codes.entries()) {
        const key = `${code} ${i === 0 ? 'grpc' : 'bulk'}`;
        if (code !== 'OK') refusals.set(key, (refusals.get(key) ?? 0) + 1);
      }
      return { grpc: codes[0], bulk: codes[1] };
    } finally {
      bulk.close();
    }
  }

  /** Both files' bytes as a client with a cold cache reads them. */
  async function storedUnchanged(): Promise<void> {
    const cold = await StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      limits: { cacheBytesMax: 0 },
    });
    try {
      expect((await cold.readFile('/t/a')).equals(bytes.a)).toBe(true);
      expect((await cold.readFile('/t/b')).equals(bytes.b)).toBe(true);
    } finally {
      await cold.close();
    }
  }

  beforeAll(async () => {
    cluster = await startCluster({
      oss: rackLayout(2, 1, 1),
      extraEnv: {
        STRIPEFS_MDS_TICKET_TTL_MS: String(TICKET_TTL_MS),
        STRIPEFS_MDS_TICKET_KEY_ROTATE_MS: '5000',
      },
    });
    admin = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    await admin.mkdir('/t');
    for (const name of ['a', 'b'] as const) {
      await admin.writeFile(`/t/${name}`, bytes[name], { layout: ONE_OBJECT });
      const report = await admin.getLayout(`/t/${name}`);
      const object = report.objects[0]!;
      const ostId = object.osts[0]!;
      const oss = cluster.ossById(cluster.ossOfOst(ostId).id).ready;
      targets[name] = {
        ref: {
          ostId,
          objectId: object.objectId,
          poolId: report.poolId ?? 0,
          pg: object.pg,
          mapEpoch: report.mapEpoch,
        },
        grpcAddress: `127.0.0.1:${oss.grpcPort}`,
        bulkAddress: `127.0.0.1:${oss.bulkPort}`,
        adminUrl: cluster.adminUrlOf(cluster.ossOfOst(ostId).id),
      };
    }
    adminMds = new MdsClient(cluster.mdsAddress);
    const added = await runCli(['auth', 'add', 'reader', '--caps', 'r /t', '--mds', cluster.mdsAddress], {
      cwd: dir,
    });
    expect(added.code, added.stderr).toBe(0);
    readerMds = new MdsClient(cluster.mdsAddress, { keyring: join(dir, 'reader.keyring') });
  });

  afterAll(async () => {
    readerMds?.close();
    adminMds?.close();
    channels.closeAll();
    await admin?.close();
    await cluster?.stop();
  });

  it('the MDS hands out rw tickets to writers and r tickets to readers, none to a non-admin for services', async () => {
    const rw = parseTicket((await adminMds.open('/t/a')).attr.ticket);
    expect(rw.write).toBe(true);
    expect(rw.scope).toBe(targets.a.ref.objectId.split('.')[0]);
    const r = parseTicket((await readerMds.open('/t/a')).attr.ticket);
    expect(r.write).toBe(false);
    expect(r.name).toBe('reader');
    // A stat reads no object: it carries no ticket, whatever the caps.
    expect((await adminMds.stat('/t/a')).ticket).toBe('');
    const batched = await readerMds.statMany(['/t/a', '/t/b']);
    expect(batched.map((r) => (r instanceof Error ? r.message : r.attr.ticket))).toEqual(['', '']);
    expect(await codeOf(readerMds.serviceTicket())).toBe('AUTH_DENIED');
    // One renewal call for many files: tickets in order, each for its inode.
    const inodes = [(await adminMds.stat('/t/a')).inode, (await adminMds.stat('/t/b')).inode].map(Number);
    const renewed = await readerMds.getTickets(inodes);
    expect(renewed.map((t) => parseTicket(t).scope)).toEqual(inodes.map(String));
  });

  it("refuses no ticket, a forged MAC, another file's ticket and a read ticket used to write, at both doors", async () => {
    const a = targets.a;
    const ticketA = (await readerMds.open('/t/a')).attr.ticket;
    const ticketB = (await adminMds.open('/t/b')).attr.ticket;
    expect(await attempt(a, ticketA, 'read')).toEqual({ grpc: 'OK', bulk: 'OK' });
    expect(await attempt(a, undefined, 'read')).toEqual({ grpc: 'TICKET_REQUIRED', bulk: 'TICKET_REQUIRED' });
    expect(await attempt(a, undefined, 'write')).toEqual({
      grpc: 'TICKET_REQUIRED',
      bulk: 'TICKET_REQUIRED',
    });
    expect(await attempt(a, forged(ticketA), 'read')).toEqual({
      grpc: 'TICKET_INVALID',
      bulk: 'TICKET_INVALID',
    });
    expect(await attempt(a, 'not a ticket', 'read')).toEqual({
      grpc: 'TICKET_INVALID',
      bulk: 'TICKET_INVALID',
    });
    expect(await attempt(a, ticketB, 'read')).toEqual({
      grpc: 'TICKET_WRONG_OBJECT',
      bulk: 'TICKET_WRONG_OBJECT',
    });
    expect(await attempt(a, ticketB, 'write')).toEqual({
      grpc: 'TICKET_WRONG_OBJECT',
      bulk: 'TICKET_WRONG_OBJECT',
    });
    expect(await attempt(a, ticketA, 'write')).toEqual({
      grpc: 'TICKET_READ_ONLY',
      bulk: 'TICKET_READ_ONLY',
    });
    await storedUnchanged();
  });

  it('calls that name no one object (listings, recovery, scrub, digests, stale marks) need a service ticket', async () => {
    const a = targets.a;
    const fileTicket = (await adminMds.open('/t/a')).attr.ticket;
    const service = await adminMds.serviceTicket();
    const stale = { ostId: a.ref.ostId, objectIds: [a.ref.objectId], stalePgs: [] };
    const calls: [string, unknown][] = [
      ['ListObjects', { ostId: a.ref.ostId, poolId: a.ref.poolId, pg: a.ref.pg, cursor: '', limit: 10 }],
      [
        'DigestObjects',
        { ostId: a.ref.ostId, poolId: a.ref.poolId, pg: a.ref.pg, objectIds: [a.ref.objectId] },
      ],
      ['MarkStale', stale],
      [
        'RecoverPg',
        { poolId: a.ref.poolId, pg: a.ref.pg, targetOstId: a.ref.ostId, mapEpoch: a.ref.mapEpoch },
      ],
      ['ScrubPg', { poolId: a.ref.poolId, pg: a.ref.pg, mapEpoch: a.ref.mapEpoch, repair: true }],
    ];
    const codesWith = async (ticket: string | undefined, only = calls) => {
      const raw = new (contract().OssService)(a.grpcAddress, grpc.credentials.createInsecure(), {
        ...CLIENT_OPTIONS,
        ...ticketOptions(() => ticket),
      });
      try {
        const codes: string[] = [];
        for (const [method, request] of only)
          codes.push(`${method} ${await codeOf(call(raw as never, method as never, request as never))}`);
        return codes;
      } finally {
        raw.close();
      }
    };
    const every = (code: string) => calls.map(([method]) => `${method} ${code}`);
    expect(await codesWith(undefined)).toEqual(every('TICKET_REQUIRED'));
    expect(await codesWith(fileTicket)).toEqual(every('TICKET_WRONG_OBJECT'));
    expect(await codesWith(forged(service))).toEqual(every('TICKET_INVALID'));
    // The service ticket is served (the reads only: a stale mark or a repair would change the OST).
    expect(await codesWith(service, calls.slice(0, 2))).toEqual(['ListObjects OK', 'DigestObjects OK']);
    await storedUnchanged();
  });

  it("rotating an identity's key stops its sessions' tickets at the OSSs, without a restart", async () => {
    const added = await runCli(['auth', 'add', 'rotated', '--caps', 'r /t', '--mds', cluster.mdsAddress], {
      cwd: dir,
    });
    expect(added.code, added.stderr).toBe(0);
    const rotatedMds = new MdsClient(cluster.mdsAddress, { keyring: join(dir, 'rotated.keyring') });
    try {
      const ticket = (await rotatedMds.open('/t/a')).attr.ticket;
      expect(await attempt(targets.a, ticket, 'read')).toEqual({ grpc: 'OK', bulk: 'OK' });
      const rotated = await runCli(['auth', 'rotate', 'rotated', '--mds', cluster.mdsAddress], { cwd: dir });
      expect(rotated.code, rotated.stderr).toBe(0);
      const codes = await eventually(
        async () => {
          const answer = await attempt(targets.a, ticket, 'read');
          if (answer.grpc === 'OK' || answer.bulk === 'OK') throw new Error('the OSS has not heard yet');
          return answer;
        },
        { timeoutMs: 60_000, what: "the OSS to refuse the rotated identity's ticket" },
      );
      expect(codes).toEqual({ grpc: 'TICKET_REVOKED', bulk: 'TICKET_REVOKED' });
    } finally {
      rotatedMds.close();
    }
  });

  it('refuses an expired ticket; a handle opened before keeps reading (its client renews)', async () => {
    const reading = await StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      limits: { cacheBytesMax: 0 },
    });
    const handle = await reading.open('/t/a');
    const readAll = async (): Promise<Buffer> => {
      const out = Buffer.alloc(SIZE);
      expect((await handle.read(out, 0, SIZE, 0)).bytesRead).toBe(SIZE);
      return out;
    };
    try {
      const before = Date.now();
      const ticket = (await readerMds.open('/t/a')).attr.ticket;
      const codes = await eventually(
        async () => {
          expect((await readAll()).equals(bytes.a)).toBe(true);
          const answer = await attempt(targets.a, ticket, 'read');
          // Both doors are asked one after the other: the expiry may fall between them.
          if (answer.grpc === 'OK' || answer.bulk === 'OK') throw new Error('the ticket is still valid');
          return answer;
        },
        { timeoutMs: 120_000, what: 'the reader ticket to expire' },
      );
      expect(codes).toEqual({ grpc: 'TICKET_EXPIRED', bulk: 'TICKET_EXPIRED' });
      // Never early: the OSS refused only once the ticket's life had passed.
      expect(Date.now() - before).toBeGreaterThanOrEqual(TICKET_TTL_MS - 1_000);
      expect((await readAll()).equals(bytes.a)).toBe(true);
    } finally {
      await handle.close();
      await reading.close();
    }
  });

  it('a new ticket key reaches the OSSs without a restart', async () => {
    const first = parseTicket((await readerMds.open('/t/a')).attr.ticket).keyId;
    const rotated = await eventually(
      async () => {
        const ticket = (await readerMds.open('/t/a')).attr.ticket;
        if (parseTicket(ticket).keyId <= first) throw new Error(`still key ${first}`);
        return ticket;
      },
      { timeoutMs: 120_000, what: 'a ticket signed with a newer key' },
    );
    expect(await attempt(targets.a, rotated, 'read')).toEqual({ grpc: 'OK', bulk: 'OK' });
  });

  it("an evicted client's tickets stop working: raw requests at both doors and the library's reads", async () => {
    const keyring = join(dir, 'evictee.keyring');
    const added = await runCli(['auth', 'add', 'evictee', '--caps', 'r /t', '--mds', cluster.mdsAddress], {
      cwd: dir,
    });
    expect(added.code, added.stderr).toBe(0);
    const raw = new MdsClient(cluster.mdsAddress, { keyring });
    const library = await StripeClient.connect({
      mds: cluster.mdsAddress,
      keyring,
      seed: SEED,
      limits: { cacheBytesMax: 0 },
    });
    const handle = await library.open('/t/a');
    const readOnce = () => handle.read(Buffer.alloc(SIZE), 0, SIZE, 0);
    try {
      const ticket = (await raw.open('/t/a')).attr.ticket;
      expect(await attempt(targets.a, ticket, 'read')).toEqual({ grpc: 'OK', bulk: 'OK' });
      expect(await codeOf(readOnce())).toBe('OK');
      const listed = await runCli(['client', 'ls', '--json', '--mds', cluster.mdsAddress]);
      const sessions = (JSON.parse(listed.stdout) as { id: string; identity: string }[]).filter(
        (c) => c.identity === 'evictee',
      );
      expect(sessions.map((c) => c.id)).toContain(parseTicket(ticket).clientId);
      expect(sessions.length).toBe(2);
      for (const { id } of sessions) {
        const evicted = await runCli(['client', 'evict', id, '--mds', cluster.mdsAddress]);
        expect(evicted.code, evicted.stderr).toBe(0);
      }
      expect(await codeOf(raw.stat('/t/a'))).toBe('AUTH_EVICTED');
      const codes = await eventually(
        async () => {
          const answer = await attempt(targets.a, ticket, 'read');
          if (answer.grpc === 'OK' || answer.bulk === 'OK') throw new Error('the OSS has not heard yet');
          return answer;
        },
        { timeoutMs: 60_000, what: 'the OSS to refuse the evicted client' },
      );
      expect(codes).toEqual({ grpc: 'TICKET_REVOKED', bulk: 'TICKET_REVOKED' });
      // Its cached ticket is refused by the OSS; one due for renewal is refused by the MDS first.
      expect(['TICKET_REVOKED', 'AUTH_EVICTED']).toContain(await codeOf(readOnce()));
      // Another session of the same caps is not affected.
      expect(await attempt(targets.a, (await readerMds.open('/t/a')).attr.ticket, 'read')).toEqual({
        grpc: 'OK',
        bulk: 'OK',
      });
    } finally {
      await handle.close().catch(() => undefined); // its client is evicted: closing may be refused
      await library.close();
      raw.close();
    }
    await storedUnchanged();
  });

  it('counts every refusal in the OSS metrics, by code and door, and the MDS audit log has each', async () => {
    const text = await (await adminFetch(`${targets.a.adminUrl}/metrics`)).text();
    for (const [key, made] of refusals) {
      const [code, door] = key.split(' ');
      const line = text
        .split('\n')
        .find((l) => l.startsWith(`stripefs_oss_ticket_refused_total{code="${code}",door="${door}",`));
      expect(line, `${code} at ${door}`).toBeDefined();
      expect(Number(line?.split(' ').at(-1))).toBeGreaterThanOrEqual(made);
    }
    expect(refusals.size).toBeGreaterThanOrEqual(12);
    // Each code at each door reached the MDS's audit log (ReportAudit), reported by the OSS.
    const audited = await eventually(
      async () => {
        const { lines } = await call(adminMds.grpc, 'ReadAudit', {
          limit: 10_000,
          contains: 'TICKET_',
          identity: '',
          op: '',
          result: '',
        });
        const seen = new Set(
          lines
            .map((line) => JSON.parse(line) as { result: string; door?: string; by?: string })
            .filter((r) => r.door?.startsWith('oss-') && r.by === 'oss')
            .map((r) => `${r.result} ${r.door?.slice('oss-'.length)}`),
        );
        const missing = [...refusals.keys()].filter((key) => !seen.has(key));
        if (missing.length > 0) throw new Error(`not in the audit log yet: ${missing.join(', ')}`);
        return seen;
      },
      { timeoutMs: 60_000, what: 'every ticket refusal in the MDS audit log' },
    );
    expect(audited.size).toBeGreaterThanOrEqual(refusals.size);
  });

  it("the destroy queue deletes an unlinked file's object with the MDS service ticket", async () => {
    await admin.writeFile('/t/gone', bytes.a, { layout: ONE_OBJECT });
    const report = await admin.getLayout('/t/gone');
    const object = report.objects[0]!;
    const ostId = object.osts[0]!;
    const present = async () =>
      (await storedLocation(cluster.adminUrlOf(cluster.ossOfOst(ostId).id), ostId, object.objectId)) !==
      undefined;
    expect(await present()).toBe(true);
    await admin.unlink('/t/gone');
    await eventually(
      async () => {
        if (await present()) throw new Error(`${object.objectId} is still on its OST`);
        return true;
      },
      { timeoutMs: 120_000, what: 'the destroy queue to delete the object' },
    );
  });
});

describe('data-path tickets with auth off', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(1, 1, 1), extraEnv: { STRIPEFS_MDS_AUTH: 'false' } });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('nothing changes: requests without tickets are served', async () => {
    const client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    try {
      const data = seededBytes(SIZE, SEED + 2);
      await client.writeFile('/f', data, { layout: ONE_OBJECT });
      const report = await client.getLayout('/f');
      const object = report.objects[0]!;
      const oss = cluster.ossById(cluster.ossOfOst(object.osts[0]!).id).ready;
      const bulk = new BulkClient(`127.0.0.1:${oss.bulkPort}`);
      const ref = {
        ostId: object.osts[0]!,
        objectId: object.objectId,
        poolId: report.poolId ?? 0,
        pg: object.pg,
        mapEpoch: report.mapEpoch,
      };
      try {
        expect((await bulk.read(ref, 0, SIZE)).equals(data)).toBe(true);
      } finally {
        bulk.close();
      }
      expect((await client.readFile('/f')).equals(data)).toBe(true);
    } finally {
      await client.close();
    }
  });
});
