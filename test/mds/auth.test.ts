// Who may do what at the MDS: every call is signed (no key, a wrong key, a
// replayed or expired signature are refused with their codes), every namespace
// call is checked against the caller's path caps (batches per item), admin
// calls need --admin, allow-lists refuse other addresses, and rotation and
// removal take effect at once. Each refusal changes nothing: checked by the
// admin afterwards. A real MDS process; identities made with the real CLI.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MdsClient } from '../../client/mds-client.js';
import { generateIdentity, type Identity, readKeyring } from '../../common/auth/keyring.js';
import { AUTH_METADATA_KEY, CallSigner, clientKeyOf, storedKeyOf } from '../../common/auth/proof.js';
import { CLIENT_OPTIONS, call } from '../../common/grpc.js';
import { contract } from '../../proto/index.js';
import { runCli } from '../helpers/cli.js';
import { codeOf } from '../helpers/errors.js';
import { type MdsUnderTest, registerOss, startMds, stopMds, tempDir } from './helpers.js';

/** A raw client whose every call carries `header()` as its signature (or none). */
function rawClient(address: string, header: (method: string) => string | undefined) {
  const interceptor: grpc.Interceptor = (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        const value = header(options.method_definition.path);
        if (value !== undefined) metadata.set(AUTH_METADATA_KEY, value);
        next(metadata, listener);
      },
    });
  return new (contract().MdsService)(address, grpc.credentials.createInsecure(), {
    ...CLIENT_OPTIONS,
    interceptors: [interceptor],
  });
}

describe('MDS authentication and caps', () => {
  let mds: MdsUnderTest;
  let address: string;
  let admin: MdsClient;
  const dir = tempDir('auth');
  const cli = (args: string[]) => runCli([...args, '--mds', address], { cwd: dir });
  const exists = async (path: string) => (await codeOf(admin.stat(path))) === 'OK';
  const as = (keyring: string | Identity | null) => new MdsClient(address, { keyring });

  beforeAll(async () => {
    mds = await startMds(join(dir, 'mds'));
    address = `127.0.0.1:${mds.proc.ready.grpcPort}`;
    await registerOss(mds.client, { ossId: 'oss-a', host: 'h0' });
    admin = new MdsClient(address);
    for (const path of ['/a', '/b', '/c']) await admin.mkdir(path, false);
    await admin.create('/b/f', { exclusive: true, truncate: false });
  });

  afterAll(async () => {
    admin?.close();
    await stopMds(mds);
  });

  it('refuses a call with no key, a wrong key or an unknown name, and changes nothing', async () => {
    const none = as(null);
    expect(await codeOf(none.mkdir('/nokey', false))).toBe('AUTH_REQUIRED');
    expect(await codeOf(none.stat('/'))).toBe('AUTH_REQUIRED');
    const impostor = as({
      name: readKeyring(process.env.STRIPEFS_KEYRING!).name,
      secret: generateIdentity('x').secret,
    });
    expect(await codeOf(impostor.mkdir('/wrongkey', false))).toBe('AUTH_INVALID');
    const stranger = as(generateIdentity('stranger'));
    expect(await codeOf(stranger.readdir('/', false, 100))).toBe('AUTH_INVALID');
    for (const client of [none, impostor, stranger]) client.close();
    expect(await exists('/nokey')).toBe(false);
    expect(await exists('/wrongkey')).toBe(false);
  });

  it('refuses a replayed signature and one signed outside the time window', async () => {
    const identity = readKeyring(process.env.STRIPEFS_KEYRING!);
    const signer = CallSigner.of(identity);
    const captured = signer.sign('/stripefs.v1.MdsService/Mkdir');
    const replayer = rawClient(address, () => captured);
    expect(await codeOf(call(replayer, 'Mkdir', { path: '/first' }))).toBe('OK');
    expect(await codeOf(call(replayer, 'Mkdir', { path: '/replayed' }))).toBe('AUTH_REPLAYED');
    // A signature made for another method does not verify.
    const wrongMethod = rawClient(address, () => signer.sign('/stripefs.v1.MdsService/Stat'));
    expect(await codeOf(call(wrongMethod, 'Mkdir', { path: '/moved' }))).toBe('AUTH_INVALID');
    const late = new CallSigner(identity.name, identity.secret, () => Date.now() - 3_600_000);
    const stale = rawClient(address, (method) => late.sign(method));
    expect(await codeOf(call(stale, 'Mkdir', { path: '/expired' }))).toBe('AUTH_EXPIRED');
    const garbled = rawClient(address, () => 'v1 admin 00 1 1 not-a-proof');
    expect(await codeOf(call(garbled, 'Stat', { path: '/' }))).toBe('AUTH_INVALID');
    for (const client of [replayer, wrongMethod, stale, garbled]) client.close();
    expect(await exists('/first')).toBe(true);
    for (const path of ['/replayed', '/moved', '/expired']) expect(await exists(path)).toBe(false);
  });

  it('auth add writes a 0600 keyring; its caps bound every namespace call', async () => {
    const added = await cli(['auth', 'add', 'alice', '--caps', 'rw /a, r /b', '--json']);
    expect(added.code, added.stderr).toBe(0);
    const keyring = join(dir, 'alice.keyring');
    expect(statSync(keyring).mode & 0o777).toBe(0o600);
    expect(JSON.parse(added.stdout)).toMatchObject({ name: 'alice', caps: 'rw /a, r /b', admin: false });
    // The MDS answers with no secret, and the keyring's secret is nowhere in what it returns.
    const secret = readKeyring(keyring).secret.toString('base64');
    expect(added.stdout).not.toContain(secret);
    const alice = as(keyring);
    try {
      expect(await codeOf(alice.mkdir('/a/x', false))).toBe('OK');
      expect(await codeOf(alice.create('/a/x/f', { exclusive: true, truncate: false }))).toBe('OK');
      expect(await codeOf(alice.stat('/b/f'))).toBe('OK');
      expect(await codeOf(alice.readdir('/b', false, 100))).toBe('OK');
      expect(await codeOf(alice.stat('/'))).toBe('OK'); // the way down to its subtrees
      const refused: [string, () => Promise<unknown>][] = [
        ['readdir /', () => alice.readdir('/', false, 100)],
        ['stat /c', () => alice.stat('/c')],
        ['mkdir /c/x', () => alice.mkdir('/c/x', false)],
        ['create /b/g', () => alice.create('/b/g', { exclusive: true, truncate: false })],
        ['unlink /b/f', () => alice.unlink('/b/f')],
        ['rename into /c', () => alice.rename('/a/x', '/c/x')],
        ['rename out of /b', () => alice.rename('/b/f', '/a/f')],
        ['mkdir /ab (not under /a)', () => alice.mkdir('/ab', false)],
      ];
      for (const [what, work] of refused)
        expect(`${what}: ${await codeOf(work)}`).toBe(`${what}: AUTH_DENIED`);
      // Commit names an inode: its current path is what is checked.
      const inode = (await admin.stat('/b/f')).inode;
      expect(await codeOf(alice.commit(inode, 10, Date.now()))).toBe('AUTH_DENIED');
      // An open by inode is checked on the inode's path, not on the path it also names.
      const secret = (await admin.create('/c/secret', { exclusive: true, truncate: false })).attr.inode;
      expect(await codeOf(call(alice.grpc, 'Open', { path: '/a/x', inode: secret }))).toBe('AUTH_DENIED');
      const opened = await call(alice.grpc, 'OpenMany', {
        items: [{ path: '/a/x/f' }, { path: '/a/x/f', inode: secret }],
      });
      expect(opened.results.map((r) => r.error?.code ?? 'OK')).toEqual(['OK', 'AUTH_DENIED']);
      // An open that reads an extended attribute reads: read access, as GetXattr (lookup is not enough).
      expect(await codeOf(call(alice.grpc, 'Open', { path: '/' }))).toBe('OK');
      expect(await codeOf(call(alice.grpc, 'Open', { path: '/', xattrName: 'user.k' }))).toBe('AUTH_DENIED');
      expect(await codeOf(call(alice.grpc, 'Open', { path: '/b/f', xattrName: 'user.k' }))).toBe('OK');
      const withXattr = await call(alice.grpc, 'OpenMany', {
        items: [{ path: '/b/f', xattrName: 'user.k' }, { path: '/', xattrName: 'user.k' }, { path: '/' }],
      });
      expect(withXattr.results.map((r) => r.error?.code ?? 'OK')).toEqual(['OK', 'AUTH_DENIED', 'OK']);
      // Batches: the item outside the caps fails alone.
      const many = await call(alice.grpc, 'StatMany', { paths: ['/a/x', '/c', '/b/f'] });
      expect(many.results.map((r) => r.errorCode || 'OK')).toEqual(['OK', 'AUTH_DENIED', 'OK']);
      const created = await call(alice.grpc, 'CreateMany', {
        items: [
          { path: '/a/m1', exclusive: true, truncate: false },
          { path: '/c/m2', exclusive: true, truncate: false },
        ],
      });
      expect(created.results.map((r) => r.error?.code ?? 'OK')).toEqual(['OK', 'AUTH_DENIED']);
      const unlinked = await call(alice.grpc, 'UnlinkMany', { items: [{ path: '/b/f' }, { path: '/a/m1' }] });
      expect(unlinked.results.map((r) => r.error?.code ?? 'OK')).toEqual(['AUTH_DENIED', 'OK']);
      // CommitMany: each item on its inode's current path, the one outside the caps refused alone.
      const mine = (await admin.stat('/a/x/f')).inode;
      const committed = await call(alice.grpc, 'CommitMany', {
        items: [
          { inode: mine, size: 3, mtimeMs: 1 },
          { inode, size: 10, mtimeMs: 1 },
        ],
      });
      expect(committed.results.map((r) => r.error?.code ?? 'OK')).toEqual(['OK', 'AUTH_DENIED']);
      expect(committed.results[0]?.attr?.ticket).not.toBe('');
      // Admin calls need --admin.
      expect(await codeOf(call(alice.grpc, 'AuthList', {}))).toBe('AUTH_DENIED');
      expect(
        await codeOf(call(alice.grpc, 'AdminOst', { ostId: 0, action: 'OST_ACTION_OUT', weight: 0 })),
      ).toBe('AUTH_DENIED');
      // The map and statfs need only a known identity.
      expect(await codeOf(alice.refreshMap())).toBe('OK');
    } finally {
      alice.close();
    }
    // Nothing refused happened.
    for (const path of ['/c/x', '/b/g', '/ab', '/c/m2', '/a/f']) expect(await exists(path), path).toBe(false);
    expect(await exists('/b/f')).toBe(true);
    expect((await admin.stat('/b/f')).size).toBe(0);
    expect(await exists('/a/x')).toBe(true);
  });

  it('mkdir -p makes no folder outside the caps; each identity may write its own folder only', async () => {
    expect((await cli(['auth', 'add', 'dora', '--caps', 'rw /d1/d2'])).code).toBe(0);
    const dora = as(join(dir, 'dora.keyring'));
    try {
      // /d1 is above the cap: mkdir -p may not make it, and makes nothing.
      expect(await codeOf(dora.mkdir('/d1/d2/x', true))).toBe('AUTH_DENIED');
      expect(await exists('/d1')).toBe(false);
      await admin.mkdir('/d1', false);
      expect(await codeOf(dora.mkdir('/d1/d2/x', true))).toBe('OK');
      // Its own folder (common/auth/scratch.ts), once the folder above it exists; no one else's.
      expect(await codeOf(dora.mkdir('/.stripefs-s3/id/dora/tmp', true))).toBe('AUTH_DENIED');
      expect(await exists('/.stripefs-s3')).toBe(false);
      await admin.mkdir('/.stripefs-s3/id', true);
      expect(await codeOf(dora.mkdir('/.stripefs-s3/id/dora/tmp', true))).toBe('OK');
      expect(
        await codeOf(dora.create('/.stripefs-s3/id/dora/tmp/f', { exclusive: true, truncate: false })),
      ).toBe('OK');
      expect(await codeOf(dora.rename('/.stripefs-s3/id/dora/tmp/f', '/d1/d2/f'))).toBe('OK');
      expect(await codeOf(dora.mkdir('/.stripefs-s3/id/alice', false))).toBe('AUTH_DENIED');
      expect(await codeOf(dora.readdir('/.stripefs-s3/id', false, 100))).toBe('AUTH_DENIED');
      // Any identity may ask who it is; only an admin may write refusals to the audit log.
      expect(await dora.whoami()).toMatchObject({
        name: 'dora',
        caps: 'rw /d1/d2',
        admin: false,
        address: '127.0.0.1',
      });
      const report = {
        identity: 'x',
        address: '10.0.0.1',
        op: 's3:GET',
        paths: ['/x'],
        result: 'S3_ACCESS_DENIED',
        door: 's3',
      };
      expect(await codeOf(dora.reportAudit([report], 0))).toBe('AUTH_DENIED');
      expect(await codeOf(admin.reportAudit([{ ...report, door: 'Not A Door' }], 0))).toBe('REQ_INVALID');
      // The folder is not in the caps it is shown with.
      const shown = JSON.parse((await cli(['auth', 'get', 'dora', '--json'])).stdout) as { caps: string };
      expect(shown.caps).toBe('rw /d1/d2');
    } finally {
      dora.close();
    }
  });

  it("a service identity (an OSS's) registers and heartbeats, and administers nothing", async () => {
    const added = await cli(['auth', 'add', 'svc', '--service', '--json']);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ name: 'svc', service: true, admin: false, caps: '' });
    const svc = as(join(dir, 'svc.keyring'));
    const plain = as(join(dir, 'alice.keyring'));
    try {
      expect(await codeOf(registerOss(svc.grpc, { ossId: 'oss-svc', host: 'hsvc' }))).toBe('OK');
      const report = {
        identity: '',
        address: '10.0.0.1',
        op: 'ReadRange',
        paths: [],
        result: 'TICKET_REQUIRED',
        door: 'oss-grpc',
      };
      expect(await codeOf(svc.reportAudit([report], 0))).toBe('OK');
      // A service identity changes no namespace and no identity; a plain one registers no OSS.
      expect(await codeOf(svc.mkdir('/svc', false))).toBe('AUTH_DENIED');
      expect(await codeOf(call(svc.grpc, 'AuthList', {}))).toBe('AUTH_DENIED');
      expect(await codeOf(svc.serviceTicket())).toBe('AUTH_DENIED');
      expect(await codeOf(registerOss(plain.grpc, { ossId: 'oss-plain', host: 'hplain' }))).toBe(
        'AUTH_DENIED',
      );
      const listed = await cli(['auth', 'ls']);
      expect(listed.stdout).toMatch(/svc\s+no\s+yes/);
    } finally {
      svc.close();
      plain.close();
    }
  });

  it('refuses an address outside the allow-list of the identity or of a cap', async () => {
    expect((await cli(['auth', 'add', 'far', '--caps', 'rw /', '--allow', '10.0.0.0/8'])).code).toBe(0);
    const near0 = await cli(['auth', 'add', 'near', '--caps', 'r /, rw /a from 10.0.0.0/8 192.168.0.0/16']);
    expect(near0.code, near0.stderr).toBe(0);
    const far = as(join(dir, 'far.keyring'));
    const near = as(join(dir, 'near.keyring'));
    try {
      expect(await codeOf(far.mkdir('/far', false))).toBe('AUTH_ADDRESS_DENIED');
      expect(await codeOf(near.stat('/a'))).toBe('OK');
      expect(await codeOf(near.mkdir('/a/near', false))).toBe('AUTH_ADDRESS_DENIED');
    } finally {
      far.close();
      near.close();
    }
    expect(await exists('/far')).toBe(false);
    expect(await exists('/a/near')).toBe(false);
    expect((await cli(['auth', 'caps', 'far', 'rw /', '--allow', '127.0.0.0/8'])).code).toBe(0);
    const again = as(join(dir, 'far.keyring'));
    expect(await codeOf(again.mkdir('/far', false))).toBe('OK');
    again.close();
  });

  it('rotation, caps changes and removal take effect on the next call, without a restart', async () => {
    expect((await cli(['auth', 'add', 'bob', '--caps', 'r /'])).code).toBe(0);
    const keyring = join(dir, 'bob.keyring');
    const before = readFileSync(keyring, 'utf8');
    const old = as(keyring);
    expect(await codeOf(old.mkdir('/bob', false))).toBe('AUTH_DENIED');
    expect((await cli(['auth', 'caps', 'bob', 'rw /bob, r /'])).code).toBe(0);
    expect(await codeOf(old.mkdir('/bob', false))).toBe('OK');
    const rotated = await cli(['auth', 'rotate', 'bob']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(readFileSync(keyring, 'utf8')).not.toBe(before);
    expect(statSync(keyring).mode & 0o777).toBe(0o600);
    expect(await codeOf(old.stat('/'))).toBe('AUTH_INVALID');
    const fresh = as(keyring);
    expect(await codeOf(fresh.stat('/bob'))).toBe('OK');
    const listed = await cli(['auth', 'ls', '--json']);
    expect(JSON.parse(listed.stdout).map((i: { name: string }) => i.name)).toEqual(
      expect.arrayContaining(['admin', 'alice', 'bob', 'far', 'near']),
    );
    expect((await cli(['auth', 'rm', 'bob'])).code).toBe(0);
    expect(await codeOf(fresh.stat('/'))).toBe('AUTH_INVALID');
    const gone = await cli(['auth', 'get', 'bob']);
    expect(gone.stderr).toContain('AUTH_NOT_FOUND');
    const dup = await cli(['auth', 'add', 'alice', '-o', join(dir, 'alice2.keyring')]);
    expect(dup.stderr).toContain('AUTH_EXISTS');
    const badCaps = await cli(['auth', 'add', 'carol', '--caps', 'x /a']);
    expect(badCaps.stderr).toContain('AUTH_CAPS_INVALID');
    old.close();
    fresh.close();
  });

  it('audits every refusal above, the changes and the listings, readable by stripefs audit', async () => {
    const grep = async (args: string[]) => {
      const run = await cli([
        'audit',
        ...(args[0]?.startsWith('-') ? ['tail'] : ['grep']),
        ...args,
        '-n',
        '1000',
        '--json',
      ]);
      expect(run.code, run.stderr).toBe(0);
      return run.stdout
        .split('\n')
        .filter(Boolean)
        .map(
          (line) =>
            JSON.parse(line) as {
              identity: string;
              op: string;
              paths: string[];
              result: string;
              address: string;
            },
        );
    };
    const refused = await grep(['AUTH_']);
    const seen = (result: string, op: string, path?: string) =>
      refused.some(
        (r) => r.result === result && r.op === op && (path === undefined || r.paths.includes(path)),
      );
    expect(seen('AUTH_REQUIRED', 'Mkdir', '/nokey')).toBe(true);
    expect(seen('AUTH_INVALID', 'Mkdir', '/wrongkey')).toBe(true);
    expect(seen('AUTH_REPLAYED', 'Mkdir', '/replayed')).toBe(true);
    expect(seen('AUTH_EXPIRED', 'Mkdir', '/expired')).toBe(true);
    expect(seen('AUTH_DENIED', 'Mkdir', '/c/x')).toBe(true);
    expect(seen('AUTH_DENIED', 'Rename', '/c/x')).toBe(true);
    expect(seen('AUTH_DENIED', 'CreateMany', '/c/m2')).toBe(true); // a batch item, refused alone
    expect(seen('AUTH_DENIED', 'CommitMany')).toBe(true);
    expect(seen('AUTH_DENIED', 'AuthList')).toBe(true);
    expect(seen('AUTH_ADDRESS_DENIED', 'Mkdir', '/far')).toBe(true);
    expect(refused.every((r) => r.address === '127.0.0.1')).toBe(true);
    expect(refused.find((r) => r.paths.includes('/c/x'))?.identity).toBe('alice');
    const changes = await grep(['--identity', 'alice', '--result', 'OK']);
    expect(changes.map((r) => `${r.op} ${r.paths.join(' ')}`)).toEqual(
      expect.arrayContaining(['Mkdir /a/x', 'Readdir /b', 'CreateMany /a/m1 /c/m2']),
    );
    const added = await grep(['--op', 'AuthAdd']);
    expect(added.map((r) => r.paths[0])).toEqual(expect.arrayContaining(['identity:alice', 'identity:bob']));
    const text = await cli(['audit', 'tail', '-n', '5']);
    expect(text.stdout).toContain('IDENTITY');
    const alice = await runCli(['--keyring', join(dir, 'alice.keyring'), 'audit', 'tail', '--mds', address], {
      cwd: dir,
    });
    expect(alice.stderr).toContain('AUTH_DENIED');
  });

  it('client ls lists the sessions; an evicted one is refused from its next call, audited', async () => {
    const victim = as(join(dir, 'alice.keyring'));
    expect(await codeOf(victim.stat('/a'))).toBe('OK');
    const listed = await cli(['client', 'ls', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const sessions = JSON.parse(listed.stdout) as {
      id: string;
      identity: string;
      address: string;
      evicted: boolean;
    }[];
    const alices = sessions.filter((s) => s.identity === 'alice' && !s.evicted);
    expect(alices.length).toBeGreaterThan(0);
    expect(alices.every((s) => s.address === '127.0.0.1')).toBe(true);
    // The victim's session is the newest of alice's.
    const id = alices.at(-1)?.id as string;
    expect((await cli(['client', 'evict', id])).code).toBe(0);
    expect(await codeOf(victim.stat('/a'))).toBe('AUTH_EVICTED');
    expect(await codeOf(victim.mkdir('/a/evicted', false))).toBe('AUTH_EVICTED');
    victim.close();
    // Another client of the same identity is not evicted.
    const other = as(join(dir, 'alice.keyring'));
    expect(await codeOf(other.stat('/a'))).toBe('OK');
    other.close();
    expect(await exists('/a/evicted')).toBe(false);
    expect((await cli(['client', 'evict', 'ffff'])).stderr).toContain('AUTH_CLIENT_NOT_FOUND');
    const audit = await cli(['audit', 'grep', 'AUTH_EVICTED', '--json']);
    expect(audit.stdout).toContain('/a/evicted');
  });

  it('identities survive a restart of the MDS, whose database holds no secret', async () => {
    await mds.proc.stop();
    // The stored key is in the database files; neither the secret nor the client key is.
    const alice = readKeyring(join(dir, 'alice.keyring'));
    const files = readdirSync(join(dir, 'mds'), { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => readFileSync(join(dir, 'mds', entry.name)).toString('latin1'))
      .join('');
    expect(files).toContain(storedKeyOf(alice.secret).toString('base64'));
    expect(files).not.toContain(alice.secret.toString('base64'));
    expect(files).not.toContain(clientKeyOf(alice.secret).toString('base64'));
    expect(files).not.toContain(alice.secret.toString('latin1'));
    mds = await startMds(join(dir, 'mds'));
    address = `127.0.0.1:${mds.proc.ready.grpcPort}`;
    admin.close();
    admin = new MdsClient(address);
    const client = as(alice);
    expect(await codeOf(client.stat('/a/x'))).toBe('OK');
    expect(await codeOf(client.stat('/c'))).toBe('AUTH_DENIED');
    client.close();
  });
});

describe('MDS with auth off (mds.auth false)', () => {
  it('serves unsigned calls', async () => {
    const mds = await startMds(join(tempDir('auth-off'), 'mds'), { STRIPEFS_MDS_AUTH: 'false' });
    const none = new MdsClient(`127.0.0.1:${mds.proc.ready.grpcPort}`, { keyring: null });
    try {
      expect(await codeOf(none.mkdir('/open', false))).toBe('OK');
      expect(await codeOf(call(none.grpc, 'AuthList', {}))).toBe('REQ_INVALID');
    } finally {
      none.close();
      await stopMds(mds);
    }
  });
});
