// The admin HTTP APIs need an admin identity: at the MDS's port (signed
// requests, or a read-only bearer ticket for the dashboard) and at each OSS's
// port (signed requests, checked by the OSS alone with the admin keys the MDS
// sends). No key, a wrong key, a replayed or re-aimed signature, a non-admin,
// an address outside the allow-list, a bearer ticket used to change
// something, a forged, expired or revoked ticket: each refused with its code,
// nothing changed, each refusal in the MDS audit log (door mds-http or
// oss-http). Rotation and eviction count without a restart. /metrics is open
// only when auth.metricsOpen says so. A real cluster with auth on.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MdsClient } from '../../client/mds-client.js';
import { httpAuthorization } from '../../common/auth/http-auth.js';
import { generateIdentity, readKeyring } from '../../common/auth/keyring.js';
import { CallSigner } from '../../common/auth/proof.js';
import { call } from '../../common/grpc.js';
import { adminFetch } from '../helpers/admin-http.js';
import { runCli } from '../helpers/cli.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { tempDir } from '../mds/helpers.js';

const TICKET_TTL_MS = 6_000;

interface Answer {
  status: number;
  code: string;
}

interface AuditLine {
  identity: string;
  op: string;
  result: string;
  door?: string;
  by?: string;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  if (response.ok) return { status: response.status, code: 'OK' };
  return { status: response.status, code: (JSON.parse(text) as { code: string }).code };
}

/** One request signed by `signer` (a session of its own), or with the headers given. */
async function send(
  url: string,
  init: { method?: string; signer?: CallSigner; headers?: Record<string, string> } = {},
) {
  const method = init.method ?? 'GET';
  const headers = {
    ...init.headers,
    ...(init.signer ? { authorization: httpAuthorization(init.signer, method, url) } : {}),
  };
  return answerOf(await fetch(url, { method, headers }));
}

describe('admin HTTP APIs need an admin identity', () => {
  let cluster: Cluster;
  let mds: MdsClient;
  let ossUrl: string;
  const dir = tempDir('admin-http');
  const cli = (args: string[]) => runCli([...args, '--mds', cluster.mdsAddress], { cwd: dir });
  const signerOf = (name: string) => CallSigner.of(readKeyring(join(dir, `${name}.keyring`)));

  async function audit(door: string): Promise<AuditLine[]> {
    const { lines } = await call(mds.grpc, 'ReadAudit', {
      limit: 10_000,
      contains: door,
      identity: '',
      op: '',
      result: '',
    });
    return lines.map((line) => JSON.parse(line) as AuditLine).filter((r) => r.door === door);
  }

  async function ostIn(): Promise<boolean> {
    const answer = (await (await adminFetch(`${cluster.mdsAdminUrl}/api/cluster`)).json()) as {
      map: { osts: { id: number; state: { in: boolean } }[] };
    };
    return answer.map.osts.find((o) => o.id === 0)?.state.in === true;
  }

  beforeAll(async () => {
    cluster = await startCluster({
      oss: rackLayout(2, 1, 1),
      extraEnv: { STRIPEFS_MDS_TICKET_TTL_MS: String(TICKET_TTL_MS) },
    });
    mds = new MdsClient(cluster.mdsAddress);
    ossUrl = cluster.adminUrlOf(cluster.specs[0]?.id as string);
    for (const [name, args] of [
      ['ops', ['--admin']],
      ['viewer', ['--caps', 'r /']],
      ['faraway', ['--admin', '--allow', '10.0.0.0/8']],
    ] as const) {
      const added = await cli(['auth', 'add', name, ...args]);
      expect(added.code, added.stderr).toBe(0);
    }
    // Every OSS holds the admin keys (from a heartbeat answer after the identities were made).
    await eventually(
      async () => (await send(`${ossUrl}/api/osts`, { signer: signerOf('ops') })).code === 'OK' || undefined,
      {
        timeoutMs: 60_000,
        what: "the OSS to know the ops identity's key",
      },
    );
  });

  afterAll(async () => {
    mds?.close();
    await cluster?.stop();
  });

  it('at the MDS: every refusal has its code, changes nothing, and is audited', async () => {
    const url = `${cluster.mdsAdminUrl}/api/cluster`;
    const out = `${cluster.mdsAdminUrl}/api/osts/0/out`;
    const stranger = CallSigner.of(generateIdentity('ops')); // the right name, another key
    const ops = signerOf('ops');
    const replayed = httpAuthorization(ops, 'GET', url);
    const elsewhere = httpAuthorization(ops, 'GET', `${cluster.mdsAdminUrl}/api/pgs`);
    const cases: [string, Promise<Answer>, string][] = [
      ['no key', send(url), 'AUTH_REQUIRED'],
      ['a wrong key', send(url, { signer: stranger }), 'AUTH_INVALID'],
      ['a signature for another route', send(url, { headers: { authorization: elsewhere } }), 'AUTH_INVALID'],
      ['not an admin', send(url, { signer: signerOf('viewer') }), 'AUTH_DENIED'],
      ['outside the allow-list', send(url, { signer: signerOf('faraway') }), 'AUTH_ADDRESS_DENIED'],
      ['metrics (closed by default)', send(`${cluster.mdsAdminUrl}/metrics`), 'AUTH_REQUIRED'],
      ['out with no key', send(out, { method: 'POST' }), 'AUTH_REQUIRED'],
      ['out by a non-admin', send(out, { method: 'POST', signer: signerOf('viewer') }), 'AUTH_DENIED'],
    ];
    for (const [what, answer, code] of cases)
      expect(`${what}: ${(await answer).code}`).toBe(`${what}: ${code}`);
    expect((await send(url, { headers: { authorization: replayed } })).code).toBe('OK');
    expect((await send(url, { headers: { authorization: replayed } })).code).toBe('AUTH_REPLAYED');
    expect(await ostIn()).toBe(true);
    // Open: the containers' health check and the dashboard's files (no data in them).
    expect((await send(`${cluster.mdsAdminUrl}/healthz`)).code).toBe('OK');
    expect((await send(`${cluster.mdsAdminUrl}/dashboard/app.js`)).code).toBe('OK');
    // An admin changes the map; the change is audited with its result.
    expect((await send(out, { method: 'POST', signer: ops })).code).toBe('OK');
    expect(await ostIn()).toBe(false);
    expect((await send(`${cluster.mdsAdminUrl}/api/osts/0/in`, { method: 'POST', signer: ops })).code).toBe(
      'OK',
    );
    const lines = await audit('mds-http');
    const seen = (identity: string, op: string, result: string) =>
      lines.some((r) => r.identity === identity && r.op === op && r.result === result);
    expect(seen('', 'HTTP GET /api/cluster', 'AUTH_REQUIRED')).toBe(true);
    expect(seen('ops', 'HTTP GET /api/cluster', 'AUTH_INVALID')).toBe(true);
    expect(seen('ops', 'HTTP GET /api/cluster', 'AUTH_REPLAYED')).toBe(true);
    expect(seen('viewer', 'HTTP POST /api/osts/0/out', 'AUTH_DENIED')).toBe(true);
    expect(seen('faraway', 'HTTP GET /api/cluster', 'AUTH_ADDRESS_DENIED')).toBe(true);
    expect(seen('ops', 'HTTP POST /api/osts/0/out', 'OK')).toBe(true);
  });

  it('a bearer ticket reads, changes nothing, and stops when forged, expired or its session evicted', async () => {
    const url = `${cluster.mdsAdminUrl}/api/cluster`;
    const signer = CallSigner.of(readKeyring(join(dir, 'ops.keyring')));
    const minted = await fetch(`${cluster.mdsAdminUrl}/api/auth/token`, {
      method: 'POST',
      headers: { authorization: httpAuthorization(signer, 'POST', `${cluster.mdsAdminUrl}/api/auth/token`) },
    });
    expect(minted.status).toBe(200);
    expect(minted.headers.get('set-cookie')).toMatch(/^stripefs_token=.*HttpOnly; SameSite=Strict/);
    const { token } = (await minted.json()) as { token: string };
    const bearer = { authorization: `Bearer ${token}` };
    expect((await send(url, { headers: bearer })).code).toBe('OK');
    expect(
      (await send(url, { headers: { cookie: `stripefs_token=${encodeURIComponent(token)}` } })).code,
    ).toBe('OK');
    const out = `${cluster.mdsAdminUrl}/api/osts/0/out`;
    expect((await send(out, { method: 'POST', headers: bearer })).code).toBe('AUTH_DENIED');
    expect(await ostIn()).toBe(true);
    // Not a bearer for an OSS, and not a data ticket; a forged one does not verify.
    expect((await send(`${ossUrl}/api/osts`, { headers: bearer })).code).toBe('AUTH_REQUIRED');
    const forged = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.slice(-1)}`;
    expect((await send(url, { headers: { authorization: `Bearer ${forged}` } })).code).toBe('TICKET_INVALID');
    await mds.mkdir('/bearer', false);
    const dataTicket = (await mds.create('/bearer/f', { exclusive: true, truncate: false })).attr.ticket;
    expect((await send(url, { headers: { authorization: `Bearer ${dataTicket}` } })).code).toBe(
      'TICKET_WRONG_OBJECT',
    );
    // Its session evicted: refused at once (the MDS checks its own revocations).
    const { clients } = await call(mds.grpc, 'ListClients', {});
    const session = clients.find((c) => c.id === signer.clientId);
    expect(session).toBeDefined();
    await call(mds.grpc, 'EvictClient', { id: signer.clientId });
    expect((await send(url, { headers: bearer })).code).toBe('TICKET_REVOKED');
    // Another one expires with mds.ticketTtlMs.
    const again = await adminFetch(`${cluster.mdsAdminUrl}/api/auth/token`, { method: 'POST' });
    const fresh = ((await again.json()) as { token: string }).token;
    expect((await send(url, { headers: { authorization: `Bearer ${fresh}` } })).code).toBe('OK');
    await eventually(
      async () =>
        (await send(url, { headers: { authorization: `Bearer ${fresh}` } })).code === 'TICKET_EXPIRED' ||
        undefined,
      { timeoutMs: 60_000, what: 'the bearer ticket to expire' },
    );
    const results = (await audit('mds-http')).map((r) => r.result);
    expect(results).toEqual(
      expect.arrayContaining(['TICKET_INVALID', 'TICKET_WRONG_OBJECT', 'TICKET_REVOKED', 'TICKET_EXPIRED']),
    );
  });

  it('at an OSS: signed by an admin or refused, checked by the OSS alone, audited at the MDS', async () => {
    const osts = `${ossUrl}/api/osts`;
    // An OST of this OSS (ids are given in the order OSSs register).
    const ostId = cluster.ostsOf(cluster.specs[0]?.id as string)[0];
    const faults = `${ossUrl}/api/osts/${ostId}/faults`;
    const ops = signerOf('ops');
    const replayed = httpAuthorization(ops, 'GET', osts);
    const cases: [string, Promise<Answer>, string][] = [
      ['no key', send(osts), 'AUTH_REQUIRED'],
      ['a wrong key', send(osts, { signer: CallSigner.of(generateIdentity('ops')) }), 'AUTH_INVALID'],
      [
        'not an admin (the OSS knows admins only)',
        send(osts, { signer: signerOf('viewer') }),
        'AUTH_INVALID',
      ],
      ['outside the allow-list', send(osts, { signer: signerOf('faraway') }), 'AUTH_ADDRESS_DENIED'],
      ['metrics (closed by default)', send(`${ossUrl}/metrics`), 'AUTH_REQUIRED'],
      ['faults with no key', send(faults, { method: 'DELETE' }), 'AUTH_REQUIRED'],
      [
        'a signature for the MDS',
        send(osts, {
          headers: { authorization: httpAuthorization(ops, 'GET', `${cluster.mdsAdminUrl}/api/osts`) },
        }),
        'AUTH_INVALID',
      ],
    ];
    for (const [what, answer, code] of cases)
      expect(`${what}: ${(await answer).code}`).toBe(`${what}: ${code}`);
    expect((await send(osts, { headers: { authorization: replayed } })).code).toBe('OK');
    expect((await send(osts, { headers: { authorization: replayed } })).code).toBe('AUTH_REPLAYED');
    expect((await send(`${ossUrl}/healthz`)).code).toBe('OK');
    // An admin's change is served and audited.
    expect((await send(faults, { method: 'DELETE', signer: ops })).code).toBe('OK');
    const lines = await eventually(
      async () => {
        const found = await audit('oss-http');
        const results = new Set(found.map((r) => r.result));
        const wanted = ['AUTH_REQUIRED', 'AUTH_INVALID', 'AUTH_ADDRESS_DENIED', 'AUTH_REPLAYED', 'OK'];
        return wanted.every((code) => results.has(code)) ? found : undefined;
      },
      { timeoutMs: 60_000, what: "the OSS's refusals in the MDS audit log" },
    );
    expect(lines.every((r) => r.by === 'oss')).toBe(true); // the OSS's service identity
    expect(
      lines.some(
        (r) => r.op === `HTTP DELETE /api/osts/${ostId}/faults` && r.identity === 'ops' && r.result === 'OK',
      ),
    ).toBe(true);
  });

  it('rotation and eviction reach every port without a restart', async () => {
    const osts = `${ossUrl}/api/osts`;
    const url = `${cluster.mdsAdminUrl}/api/cluster`;
    const old = signerOf('ops');
    expect((await send(url, { signer: old })).code).toBe('OK');
    expect((await send(osts, { signer: old })).code).toBe('OK');
    expect((await cli(['auth', 'rotate', 'ops'])).code).toBe(0);
    expect((await send(url, { signer: old })).code).toBe('AUTH_INVALID');
    await eventually(async () => (await send(osts, { signer: old })).code === 'AUTH_INVALID' || undefined, {
      timeoutMs: 60_000,
      what: 'the OSS to drop the rotated key',
    });
    const rotated = signerOf('ops');
    expect((await send(url, { signer: rotated })).code).toBe('OK');
    await eventually(async () => (await send(osts, { signer: rotated })).code === 'OK' || undefined, {
      timeoutMs: 60_000,
      what: 'the OSS to take the new key',
    });
    // The session evicted at the MDS: refused there at once, at the OSS from its next heartbeat.
    await call(mds.grpc, 'EvictClient', { id: rotated.clientId });
    expect((await send(url, { signer: rotated })).code).toBe('AUTH_EVICTED');
    await eventually(
      async () => (await send(osts, { signer: rotated })).code === 'AUTH_EVICTED' || undefined,
      {
        timeoutMs: 60_000,
        what: 'the OSS to refuse the evicted session',
      },
    );
  });
});

describe('auth.metricsOpen', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster({
      oss: rackLayout(1, 1, 1),
      extraEnv: { STRIPEFS_AUTH_METRICS_OPEN: 'true' },
    });
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('serves GET /metrics without a key at the MDS and the OSSs, and nothing else', async () => {
    const oss = cluster.adminUrlOf(cluster.specs[0]?.id as string);
    await eventually(async () => (await send(`${oss}/api/osts`)).code === 'AUTH_REQUIRED' || undefined, {
      timeoutMs: 60_000,
      what: 'the OSS to check keys (it registered)',
    });
    for (const base of [cluster.mdsAdminUrl, oss]) {
      expect((await send(`${base}/metrics`)).code).toBe('OK');
      expect((await send(`${base}/api/osts`)).code).toBe('AUTH_REQUIRED');
    }
    expect((await send(`${cluster.mdsAdminUrl}/api/osts/0/out`, { method: 'POST' })).code).toBe(
      'AUTH_REQUIRED',
    );
  });
});
