// S3 access keys are stripefs identities: a request signed with an
// identity's S3 key (stripefs auth s3-key) is carried out as that identity,
// so its caps bound what it can list, read, write and delete, and the MDS
// refuses the rest (AccessDenied as S3 XML, AUTH_DENIED in the audit log).
// Refusals the gateway decides itself (no key, an unknown key, a bad
// signature, an address outside an allow-list) reach the MDS audit log too.
// Rotation, removal and eviction count without restarting the gateway. A real
// cluster with auth on; identities made with the real CLI.
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MdsClient } from '../../client/mds-client.js';
import { call } from '../../common/grpc.js';
import { runCli } from '../helpers/cli.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { tempDir } from '../mds/helpers.js';
import { all, type Gateway, type SendOptions, startGateway } from './harness.js';

interface Pair {
  accessKeyId: string;
  secretKey: string;
}

interface AuditLine {
  identity: string;
  address: string;
  op: string;
  paths: string[];
  result: string;
  door?: string;
  by?: string;
}

describe('S3 access keys are stripefs identities', () => {
  let cluster: Cluster;
  let gw: Gateway;
  let admin: MdsClient;
  const dir = tempDir('s3-identities');
  const keyrings = join(dir, 'keyrings');
  const pairs = new Map<string, Pair>();
  const cli = (args: string[]) => runCli([...args, '--mds', cluster.mdsAddress], { cwd: dir });
  const as = (name: string, extra: SendOptions = {}): SendOptions => ({ ...extra, as: pairs.get(name) });

  async function addIdentity(name: string, args: string[]): Promise<void> {
    const added = await cli(['auth', 'add', name, ...args, '-o', join(keyrings, `${name}.keyring`)]);
    expect(added.code, added.stderr).toBe(0);
    pairs.set(name, await s3KeyOf(join(keyrings, `${name}.keyring`)));
  }

  async function s3KeyOf(keyring: string): Promise<Pair> {
    const key = await runCli(['auth', 's3-key', keyring, '--json'], { cwd: dir });
    expect(key.code, key.stderr).toBe(0);
    const { accessKeyId, secretAccessKey } = JSON.parse(key.stdout) as Record<string, string>;
    return { accessKeyId: accessKeyId as string, secretKey: secretAccessKey as string };
  }

  async function audit(filter: { identity?: string; result?: string } = {}): Promise<AuditLine[]> {
    const { lines } = await call(admin.grpc, 'ReadAudit', {
      limit: 5_000,
      contains: '',
      identity: filter.identity ?? '',
      op: '',
      result: filter.result ?? '',
    });
    return lines.map((line) => JSON.parse(line) as AuditLine);
  }

  /** Every key under a bucket with its bytes, as the admin sees them. */
  async function contents(bucket: string): Promise<string[]> {
    const listed = await gw.send('GET', `/${bucket}?list-type=2`);
    expect(listed.status, listed.text).toBe(200);
    const out: string[] = [];
    for (const key of all(listed.text, 'Key'))
      out.push(`${key}=${(await gw.send('GET', `/${bucket}/${key}`)).text}`);
    return out;
  }

  beforeAll(async () => {
    mkdirSync(keyrings, { recursive: true });
    cluster = await startCluster({ oss: rackLayout(2, 1, 1) });
    gw = await startGateway({ cluster, keyringDir: keyrings });
    admin = new MdsClient(cluster.mdsAddress);
    await addIdentity('alice', ['--caps', 'rw /alpha']);
    await addIdentity('reader', ['--caps', 'r /alpha']);
    await addIdentity('bob', ['--caps', 'rw /beta']);
    await addIdentity('near', ['--caps', 'rw /alpha', '--allow', '10.0.0.0/8,127.0.0.0/8']);
    await addIdentity('capfrom', ['--caps', 'rw /alpha from 10.0.0.0/8 127.0.0.0/8']);
    for (const bucket of ['alpha', 'beta']) expect((await gw.send('PUT', `/${bucket}`)).status).toBe(200);
    expect((await gw.send('PUT', '/beta/secret.txt', { body: 'beta secret' })).status).toBe(200);
    expect((await gw.send('PUT', '/alpha/shared.txt', { body: 'alpha shared' })).status).toBe(200);
  });

  afterAll(async () => {
    admin?.close();
    await gw?.stop();
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a key for bucket alpha reads, writes, lists and deletes there, in its own folder; ListBuckets shows alpha only', async () => {
    const put = await gw.send('PUT', '/alpha/a/one.txt', as('alice', { body: 'from alice' }));
    expect(put.status, put.text).toBe(200);
    expect((await gw.send('GET', '/alpha/a/one.txt', as('alice'))).text).toBe('from alice');
    const listed = await gw.send('GET', '/alpha?list-type=2', as('alice'));
    expect(all(listed.text, 'Key')).toEqual(['a/one.txt', 'shared.txt']);
    const buckets = await gw.send('GET', '/', as('alice'));
    expect(all(buckets.text, 'Name')).toEqual(['alpha']);
    // The MDS saw alice's calls, under her name; her staging folder is hers.
    expect((await admin.stat('/.stripefs-s3/id/alice/tmp')).inode).toBeGreaterThan(0);
    const created = await audit({ identity: 'alice', result: 'OK' });
    expect(created.map((r) => `${r.op} ${r.paths.join(' ')}`)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Rename \/\.stripefs-s3\/id\/alice\/tmp\/\S+ \/alpha\/a\/one\.txt$/),
      ]),
    );
    // Multipart in alpha, through her uploads folder.
    const upload = await gw.send('POST', '/alpha/big.bin?uploads', as('alice'));
    const uploadId = all(upload.text, 'UploadId')[0] as string;
    expect(uploadId).toBeTruthy();
    const part = await gw.send(
      'PUT',
      `/alpha/big.bin?partNumber=1&uploadId=${uploadId}`,
      as('alice', { body: 'p1' }),
    );
    expect(part.status, part.text).toBe(200);
    const etag = String(part.headers.etag);
    const done = await gw.send('POST', `/alpha/big.bin?uploadId=${uploadId}`, {
      ...as('alice'),
      body: `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>${etag}</ETag></Part></CompleteMultipartUpload>`,
    });
    expect(done.status, done.text).toBe(200);
    expect((await gw.send('GET', '/alpha/big.bin')).text).toBe('p1');
    // Another identity's upload id is not found in hers.
    const admins = all((await gw.send('POST', '/alpha/adm.bin?uploads')).text, 'UploadId')[0] as string;
    const foreign = await gw.send(
      'PUT',
      `/alpha/adm.bin?partNumber=1&uploadId=${admins}`,
      as('alice', { body: 'x' }),
    );
    expect(foreign.code).toBe('NoSuchUpload');
    expect(all((await gw.send('GET', '/alpha?uploads', as('alice'))).text, 'UploadId')).toEqual([]);
    expect((await gw.send('DELETE', '/alpha/a/one.txt', as('alice'))).status).toBe(204);
    expect((await gw.send('DELETE', `/alpha/adm.bin?uploadId=${admins}`)).status).toBe(204);
  });

  it('the same key cannot list, read, write or delete bucket beta: AccessDenied, nothing changes, audited', async () => {
    const before = await contents('beta');
    const copy = (from: string) => as('alice', { headers: { 'x-amz-copy-source': from } });
    const refused: [string, string, string, SendOptions][] = [
      ['list beta', 'GET', '/beta?list-type=2', as('alice')],
      ['head beta', 'HEAD', '/beta', as('alice')],
      ['get', 'GET', '/beta/secret.txt', as('alice')],
      ['head', 'HEAD', '/beta/secret.txt', as('alice')],
      ['put', 'PUT', '/beta/new.txt', as('alice', { body: 'intruder' })],
      ['delete', 'DELETE', '/beta/secret.txt', as('alice')],
      [
        'delete many',
        'POST',
        '/beta?delete',
        as('alice', { body: '<Delete><Object><Key>secret.txt</Key></Object></Delete>' }),
      ],
      ['copy into beta', 'PUT', '/beta/copied.txt', copy('/alpha/shared.txt')],
      ['copy out of beta', 'PUT', '/alpha/stolen.txt', copy('/beta/secret.txt')],
      ['multipart in beta', 'POST', '/beta/mp.bin?uploads', as('alice')],
      ['create a bucket', 'PUT', '/gamma', as('alice')],
      ['delete beta', 'DELETE', '/beta', as('alice')],
    ];
    for (const [what, method, url, options] of refused) {
      const answer = await gw.send(method, url, options);
      expect(`${what}: ${answer.status} ${answer.code ?? ''}`).toBe(
        `${what}: 403 ${method === 'HEAD' ? '' : 'AccessDenied'}`,
      );
      if (method !== 'HEAD') expect(answer.text).toContain('<StripefsCode>AUTH_DENIED</StripefsCode>');
    }
    expect(await contents('beta')).toEqual(before);
    expect((await gw.send('HEAD', '/gamma')).status).toBe(404);
    expect((await gw.send('HEAD', '/alpha/stolen.txt')).status).toBe(404);
    const denied = await audit({ identity: 'alice', result: 'AUTH_DENIED' });
    const paths = denied.flatMap((r) => r.paths);
    expect(paths).toEqual(expect.arrayContaining(['/beta', '/beta/secret.txt', '/gamma']));
    expect(denied.every((r) => r.address === '127.0.0.1')).toBe(true);
  });

  it('a read-only key reads but cannot write or delete', async () => {
    expect((await gw.send('GET', '/alpha/shared.txt', as('reader'))).text).toBe('alpha shared');
    const put = await gw.send('PUT', '/alpha/r.txt', as('reader', { body: 'no' }));
    expect([put.status, put.code]).toEqual([403, 'AccessDenied']);
    const del = await gw.send('DELETE', '/alpha/shared.txt', as('reader'));
    expect([del.status, del.code]).toEqual([403, 'AccessDenied']);
    expect((await gw.send('GET', '/alpha/shared.txt')).text).toBe('alpha shared');
    expect((await gw.send('HEAD', '/alpha/r.txt')).status).toBe(404);
  });

  it('no key, an unknown key and a wrong secret are refused at the gateway, in the MDS audit log', async () => {
    const alice = pairs.get('alice') as Pair;
    const cases: [string, SendOptions, string][] = [
      ['no key', { sign: false, body: 'anon' }, 'AccessDenied'],
      [
        'unknown key',
        { as: { accessKeyId: 'mallory', secretKey: alice.secretKey }, body: 'm' },
        'InvalidAccessKeyId',
      ],
      [
        'wrong secret',
        { as: { ...alice, secretKey: `${alice.secretKey}x` }, body: 'w' },
        'SignatureDoesNotMatch',
      ],
    ];
    for (const [what, options, code] of cases) {
      const answer = await gw.send('PUT', '/alpha/forged.txt', options);
      expect(`${what}: ${answer.status} ${answer.code}`).toBe(`${what}: 403 ${code}`);
    }
    expect((await gw.send('HEAD', '/alpha/forged.txt')).status).toBe(404);
    const reported = await eventually(
      async () => {
        const lines = (await audit()).filter((r) => r.door === 's3' && r.paths.includes('/alpha/forged.txt'));
        return lines.length >= 3 ? lines : undefined;
      },
      { timeoutMs: 30_000, what: 'the three refusals in the audit log' },
    );
    expect(reported.map((r) => `${r.identity} ${r.result}`).sort()).toEqual([
      ' S3_ACCESS_DENIED',
      'alice S3_SIGNATURE_MISMATCH',
      'mallory S3_ACCESS_DENIED',
    ]);
    expect(reported.every((r) => r.by === 'admin' && r.op === 's3:PUT' && r.address === '127.0.0.1')).toBe(
      true,
    );
  });

  it('an S3 client outside the allow-list of the identity, or of the cap, is refused at the gateway', async () => {
    for (const name of ['near', 'capfrom']) {
      const inside = await gw.send(
        'PUT',
        `/alpha/${name}.txt`,
        as(name, { body: name, remoteAddress: '10.1.2.3' }),
      );
      expect(inside.status, inside.text).toBe(200);
      const outside = await gw.send(
        'PUT',
        `/alpha/${name}-far.txt`,
        as(name, { body: 'far', remoteAddress: '192.0.2.7' }),
      );
      expect([outside.status, outside.code]).toEqual([403, 'AccessDenied']);
      expect(outside.text).toContain('<StripefsCode>AUTH_ADDRESS_DENIED</StripefsCode>');
      expect((await gw.send('HEAD', `/alpha/${name}-far.txt`)).status).toBe(404);
    }
    const far = await eventually(
      async () => {
        const lines = (await audit({ result: 'AUTH_ADDRESS_DENIED' })).filter((r) => r.door === 's3');
        return lines.length >= 2 ? lines : undefined;
      },
      { timeoutMs: 30_000, what: 'the address refusals in the audit log' },
    );
    expect(far.map((r) => `${r.identity} ${r.address}`).sort()).toEqual([
      'capfrom 192.0.2.7',
      'near 192.0.2.7',
    ]);
  });

  it('rotation, removal and eviction count without restarting the gateway', async () => {
    const file = join(keyrings, 'alice.keyring');
    const old = pairs.get('alice') as Pair;
    expect((await gw.send('GET', '/alpha/shared.txt', as('alice'))).status).toBe(200);
    // Rotated at the MDS: the gateway's copy of the old key no longer works there.
    const rotated = await cli(['auth', 'rotate', 'alice', '-o', `${file}.new`]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const stale = await gw.send('GET', '/alpha/shared.txt', as('alice'));
    expect([stale.status, stale.code]).toEqual([403, 'InvalidAccessKeyId']);
    // The new keyring in place: its S3 key works, the old one is a wrong signature.
    renameSync(`${file}.new`, file);
    const fresh = await s3KeyOf(file);
    expect(fresh.secretKey).not.toBe(old.secretKey);
    await eventually(
      async () => (await gw.send('GET', '/alpha/shared.txt', { as: fresh })).status === 200 || undefined,
      { timeoutMs: 30_000, what: 'the rotated keyring read by the gateway' },
    );
    expect((await gw.send('GET', '/alpha/shared.txt', { as: old })).code).toBe('SignatureDoesNotMatch');
    // Evicted: the gateway's session of alice is refused from its next call.
    const { clients } = await call(admin.grpc, 'ListClients', {});
    const sessions = clients.filter((c) => c.identity === 'alice' && !c.evicted);
    expect(sessions.length).toBeGreaterThan(0);
    for (const session of sessions) await call(admin.grpc, 'EvictClient', { id: session.id });
    const evicted = await gw.send('GET', '/alpha/shared.txt', { as: fresh });
    expect([evicted.status, evicted.code]).toEqual([403, 'AccessDenied']);
    expect(evicted.text).toContain('<StripefsCode>AUTH_EVICTED</StripefsCode>');
    // Removed at the MDS: refused there; its keyring removed from the folder: unknown here.
    expect((await gw.send('GET', '/beta/secret.txt', as('bob'))).status).toBe(200);
    expect((await cli(['auth', 'rm', 'bob'])).code).toBe(0);
    expect((await gw.send('GET', '/beta/secret.txt', as('bob'))).code).toBe('InvalidAccessKeyId');
    rmSync(join(keyrings, 'bob.keyring'));
    await eventually(
      async () => {
        const answer = await gw.send('GET', '/beta/secret.txt', as('bob'));
        return answer.text.includes('<StripefsCode>S3_ACCESS_DENIED</StripefsCode>') || undefined;
      },
      { timeoutMs: 30_000, what: "bob's keyring forgotten by the gateway" },
    );
  });
});
