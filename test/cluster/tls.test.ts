// TLS on gRPC and the bulk path (common/tls.ts). A cluster of real MDS and OSS
// processes started with a CA and certificate made by common/tls-files.ts
// (openssl), and every port takes TLS only:
//   1. the client library, holding the CA, writes and reads replicated and ec
//      files byte for byte (MDS and OSS gRPC, the bulk path), and a scrub of
//      every PG runs (the MDS's own channels to the OSSs);
//   2. the CLI works against it with STRIPEFS_TLS_CA, and with no setting from
//      the folder whose data/tls/ca.pem it is;
//   3. a client without the CA is refused with TLS_REQUIRED, one with another
//      CA or another server name with TLS_UNTRUSTED, and a TLS client at a
//      plain port with TLS_NOT_SERVED, each saying what to set (library, CLI);
//   4. a raw plain-TCP bulk request gets no bulk frame back: the port speaks
//      TLS (an alert or nothing), not the bulk protocol;
//   5. the admin HTTP ports (MDS, OSS) speak HTTPS with the same certificate:
//      curl with the CA reads /healthz and is refused unsigned routes with
//      their code, curl without it or with another CA fails the certificate,
//      plain HTTP is answered TLS_REQUIRED; the CLI's admin commands (health,
//      top, dashboard) work with the CA, and say TLS_REQUIRED or
//      TLS_UNTRUSTED when pointed at plain HTTP or holding another CA.
// A cluster with TLS loses a host: recovery copies what it held from the
// other OSSs (OSS to OSS, bulk and gRPC over TLS), and a second loss then
// loses no byte. Then `stripefs cluster up --tls` makes the CA and certificate in
// <data>/tls (keys 0600) and the CLI from the folder above uses them, the
// launcher's control API among them (HTTPS; plain HTTP there is TLS_REQUIRED);
// with tls.metricsPlain the MDS serves GET /metrics over plain HTTP as well, and
// nothing else.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, parseLayout, StripeClient } from '../../client/index.js';
import { httpRequest } from '../../common/admin-http-client.js';
import { adminHttpHeaders } from '../../common/auth/http-auth.js';
import { encodeRequest } from '../../common/bulk/frame.js';
import { seedFromEnv } from '../../common/random.js';
import { tlsSettingsOf } from '../../common/tls.js';
import { ensureTlsFiles, type TlsFiles } from '../../common/tls-files.js';
import { CLI_SCRIPT, runCli, stopLauncher } from '../helpers/cli.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster, waitCleanPgs, waitOut } from '../helpers/cluster.js';
import { codeOf } from '../helpers/errors.js';
import { freePortRange } from '../helpers/ports.js';
import { startProcess } from '../helpers/process.js';
import { signRequest } from '../s3/sign.js';

const SEED = seedFromEnv();
const S = 64 * 1024;
const LAYOUTS: Record<string, Layout> = {
  rep3: { pattern: 'replicated', stripeSize: S, stripeCount: 2, replicas: 3, failureDomain: 'host' },
  ec21: { pattern: 'ec', stripeSize: S, k: 2, m: 1, failureDomain: 'host' },
};

interface Task {
  id: number;
  state: 'running' | 'done';
  pgsTotal: number;
  pgsDone: number;
  pgsFailed: number;
  objectsScanned: number;
}

const execFileAsync = promisify(execFile);

/** curl's exit code, the HTTP status and the body for `url` (0 and '' when curl failed). */
async function curl(url: string, ...args: string[]): Promise<{ exit: number; status: number; body: string }> {
  try {
    const { stdout } = await execFileAsync('curl', [
      '-sS',
      '--max-time',
      '20',
      '-w',
      '\n%{http_code}',
      ...args,
      url,
    ]);
    const cut = stdout.lastIndexOf('\n');
    return { exit: 0, status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
  } catch (err) {
    const failed = err as { code?: unknown };
    return { exit: typeof failed.code === 'number' ? failed.code : -1, status: 0, body: '' };
  }
}

/** The registry code of a coded JSON answer. */
const codeIn = (body: string): unknown => (JSON.parse(body) as { code?: unknown }).code;

/** Everything a raw plain-TCP connection gets back for one bulk request, until the server closes it. */
function rawBulkAnswer(port: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const got: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5_000);
    socket.on('data', (chunk: Buffer) => got.push(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(got));
    });
    socket.on('connect', () => {
      const ref = { ostId: 0, objectId: '1.0', poolId: 1, pg: 0, mapEpoch: 1 };
      socket.write(encodeRequest({ op: 'read', ref, offset: 0, length: 4096, crc32c: 0, truncate: false }));
    });
    socket.once('error', reject);
  });
}

describe('a cluster with TLS on every port', () => {
  const home = mkdtempSync(join(tmpdir(), 'stripefs-tls-'));
  let files: TlsFiles;
  let otherCa: TlsFiles;
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    files = ensureTlsFiles(join(home, 'tls'));
    otherCa = ensureTlsFiles(join(home, 'other-tls'));
    cluster = await startCluster({ tls: files, oss: rackLayout(3, 3, 1), pgCount: 16 });
    client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED, tls: cluster.tls });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('the library writes and reads replicated and ec files; a scrub of every PG runs', async () => {
    for (const [name, layout] of Object.entries(LAYOUTS)) {
      const data = seededBytes(3 * 1024 * 1024 + 5, SEED + name.length);
      await client.writeFile(`/${name}.bin`, data, { layout });
      expect((await client.readFile(`/${name}.bin`)).equals(data), name).toBe(true);
    }
    // A read of 4 MiB or more takes whole blocks straight into the caller's buffer (runs).
    const large = seededBytes(9 * 1024 * 1024 + 7, SEED + 9);
    await client.writeFile('/large.bin', large, { layout: LAYOUTS.rep3 });
    await client.dropCache('/large.bin');
    const into = Buffer.alloc(large.length);
    const direct = client.stats().directReadBytes;
    const handle = await client.open('/large.bin', 'r');
    expect((await handle.read(into, 0, into.length, 0)).bytesRead).toBe(large.length);
    await handle.close();
    expect(into.equals(large)).toBe(true);
    expect(client.stats().directReadBytes).toBeGreaterThan(direct);
    await waitCleanPgs(cluster, { timeoutMs: 60_000 });
    let task = await cluster.admin<Task>('/api/scrub', { method: 'POST', body: {} });
    while (task.state === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      task = await cluster.admin<Task>(`/api/scrub/${task.id}`);
    }
    expect(task.pgsFailed).toBe(0);
    expect(task.pgsDone).toBe(task.pgsTotal);
    // The files' objects: the rep3 files' 2 each (stripe count 2) and the ec file's one group.
    expect(task.objectsScanned).toBe(5);
  });

  it('batched opens take the MDS framed path over TLS; its port speaks no frame in plain TCP', async () => {
    await client.mkdir('/dom', { layout: parseLayout('dom:64K,raid0') });
    const bodies = Array.from({ length: 12 }, (_, i) => seededBytes(1000 + i * 997, SEED + 40 + i));
    await Promise.all(bodies.map((body, i) => client.writeFile(`/dom/f${i}`, body)));
    const reader = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED, tls: cluster.tls });
    try {
      const read = await Promise.all(bodies.map((_, i) => reader.readFile(`/dom/f${i}`)));
      read.forEach((bytes, i) => {
        expect(bytes.equals(bodies[i] as Buffer), `/dom/f${i}`).toBe(true);
      });
      expect(reader.stats().mdsFrames.calls).toBeGreaterThanOrEqual(1);
      expect(reader.stats().mdsFrames.fallbacks).toBe(0);
    } finally {
      await reader.close();
    }
    const framePort = cluster.mds.ready.framePort as number;
    expect(framePort).toBeGreaterThan(0);
    // A plain request frame gets no answer frame back ('SFMR'): the port takes TLS only.
    const answer = await rawBulkAnswer(framePort);
    expect(answer.subarray(0, 4).toString('latin1')).not.toBe('SFMR');
  });

  it('the CLI works with STRIPEFS_TLS_CA, and from the folder holding data/tls/ca.pem', async () => {
    const env = { STRIPEFS_MDS: cluster.mdsAddress, STRIPEFS_TLS_CA: files.caFile };
    const local = join(home, 'local.bin');
    const data = seededBytes(2 * 1024 * 1024 + 11, SEED + 3);
    writeFileSync(local, data);
    const put = await runCli(['put', local, '/cli.bin'], { env });
    expect(put.code, put.stderr).toBe(0);
    const get = await runCli(['get', '/cli.bin', '-'], { env });
    expect(get.code, get.stderr).toBe(0);
    expect((await client.readFile('/cli.bin')).equals(data)).toBe(true);

    const folder = join(home, 'user');
    mkdirSync(join(folder, 'data', 'tls'), { recursive: true });
    copyFileSync(files.caFile, join(folder, 'data', 'tls', 'ca.pem'));
    const ls = await runCli(['ls', '/'], { cwd: folder, env: { STRIPEFS_MDS: cluster.mdsAddress } });
    expect(ls.code, ls.stderr).toBe(0);
    expect(ls.stdout).toContain('cli.bin');
  });

  it('the S3 gateway serves a cluster with TLS, given STRIPEFS_TLS_CA', async () => {
    const pair = { accessKeyId: 'AKIDTLSGATEWAY', secretKey: 'tls-gateway-secret' };
    const gateway = await startProcess({
      script: CLI_SCRIPT,
      args: ['s3', '--listen', '127.0.0.1:0', '--mds', cluster.mdsAddress],
      env: {
        STRIPEFS_TLS_CA: files.caFile,
        STRIPEFS_S3_ACCESS_KEY: pair.accessKeyId,
        STRIPEFS_S3_SECRET_KEY: pair.secretKey,
      },
    });
    try {
      const endpoint = new URL(gateway.ready.endpoint as string);
      const send = (method: string, url: string, body?: Buffer) => {
        const { headers } = signRequest({
          method,
          url,
          host: endpoint.host,
          ...pair,
          ...(body ? { body } : {}),
        });
        return fetch(`${endpoint.origin}${url}`, { method, headers, ...(body ? { body } : {}) });
      };
      expect((await send('PUT', '/tlsbucket')).status).toBe(200);
      const data = seededBytes(1024 * 1024 + 3, SEED + 5);
      expect((await send('PUT', '/tlsbucket/a/b.bin', data)).status).toBe(200);
      const got = await send('GET', '/tlsbucket/a/b.bin');
      expect(got.status).toBe(200);
      expect(Buffer.from(await got.arrayBuffer()).equals(data)).toBe(true);
      expect((await client.readFile('/tlsbucket/a/b.bin')).equals(data)).toBe(true);
    } finally {
      await gateway.stop();
    }
  });

  it('refuses a client without the CA, with another CA or name, and a TLS client at a plain port', async () => {
    const mds = cluster.mdsAddress;
    expect(await codeOf(StripeClient.connect({ mds, tls: null }))).toBe('TLS_REQUIRED');
    const wrongCa = tlsSettingsOf({
      'tls.ca': otherCa.caFile,
      'tls.cert': '',
      'tls.key': '',
      'tls.serverName': 'stripefs',
    });
    expect(await codeOf(StripeClient.connect({ mds, tls: wrongCa }))).toBe('TLS_UNTRUSTED');
    const wrongName = { ...(cluster.tls as NonNullable<Cluster['tls']>), serverName: 'elsewhere' };
    expect(await codeOf(StripeClient.connect({ mds, tls: wrongName }))).toBe('TLS_UNTRUSTED');
    // A plain server: a TLS client there is told the server does not speak TLS.
    const plainServer = createServer((_request, response) => response.end());
    await new Promise<void>((resolve) => plainServer.listen(0, '127.0.0.1', resolve));
    try {
      const plain = `127.0.0.1:${(plainServer.address() as AddressInfo).port}`;
      expect(await codeOf(StripeClient.connect({ mds: plain, tls: cluster.tls }))).toBe('TLS_NOT_SERVED');
    } finally {
      plainServer.close();
    }

    const bare = await runCli(['ls', '/'], { cwd: home, env: { STRIPEFS_MDS: mds } });
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('TLS_REQUIRED');
    expect(bare.stderr).toContain('STRIPEFS_TLS_CA');
    const other = await runCli(['df'], {
      cwd: home,
      env: { STRIPEFS_MDS: mds, STRIPEFS_TLS_CA: otherCa.caFile },
    });
    expect(other.code).toBe(1);
    expect(other.stderr).toContain('TLS_UNTRUSTED');
    expect(other.stderr).toContain('tls.ca');
  });

  it("the admin ports speak HTTPS with the cluster's certificate: curl and the CLI", async () => {
    const mdsAdmin = cluster.mdsAdminUrl;
    expect(mdsAdmin.startsWith('https://')).toBe(true);
    const ca = ['--cacert', files.caFile];
    const health = await curl(`${mdsAdmin}/healthz`, ...ca);
    expect(health.status, health.body).toBe(200);
    expect((JSON.parse(health.body) as { server: string }).server).toBe('mds');
    // Every other route still needs a signature: refused with its code, over HTTPS.
    const unsigned = await curl(`${mdsAdmin}/api/cluster`, ...ca);
    expect(unsigned.status).toBe(401);
    expect(codeIn(unsigned.body)).toBe('AUTH_REQUIRED');
    const ossAdmin = cluster.adminUrlOf(cluster.specs[0]!.id);
    expect(ossAdmin.startsWith('https://')).toBe(true);
    const oss = await curl(`${ossAdmin}/healthz`, ...ca);
    expect((JSON.parse(oss.body) as { server: string }).server).toBe('oss');
    expect(codeIn((await curl(`${ossAdmin}/metrics`, ...ca)).body)).toBe('AUTH_REQUIRED');
    // No CA, or another: curl refuses the certificate (60). Plain HTTP: TLS_REQUIRED, nothing served.
    expect((await curl(`${mdsAdmin}/healthz`)).exit).toBe(60);
    expect((await curl(`${mdsAdmin}/healthz`, '--cacert', otherCa.caFile)).exit).toBe(60);
    const plainAdmin = mdsAdmin.replace('https://', 'http://');
    for (const url of [
      `${plainAdmin}/metrics`,
      `${plainAdmin}/healthz`,
      `${ossAdmin.replace('https', 'http')}/metrics`,
    ]) {
      const plain = await curl(url);
      expect(plain.status, url).toBe(503);
      expect(codeIn(plain.body), url).toBe('TLS_REQUIRED');
    }
    // The dashboard's token, asked for over HTTPS: its cookie is Secure, and curl reads with it.
    const tokenUrl = `${mdsAdmin}/api/auth/token`;
    const token = await httpRequest(
      tokenUrl,
      { method: 'POST', headers: adminHttpHeaders('POST', tokenUrl), timeoutMs: 10_000 },
      cluster.tls,
    );
    expect(token.status, token.text).toBe(200);
    expect(String(token.headers['set-cookie'])).toContain('; Secure');
    const bearer = `Authorization: Bearer ${(JSON.parse(token.text) as { token: string }).token}`;
    const viewed = await curl(`${mdsAdmin}/api/cluster`, ...ca, '-H', bearer);
    expect(viewed.status, viewed.body).toBe(200);

    // The CLI's admin commands, with the CA: over HTTPS (this cluster's admin port is not the MDS's + 1).
    const env = { STRIPEFS_MDS: cluster.mdsAddress, STRIPEFS_TLS_CA: files.caFile };
    const top = await runCli(['top', '--once', '--json', '--admin', mdsAdmin], { env });
    expect(top.code, top.stderr).toBe(0);
    // A report, from /api/pgs and /api/health (its exit code says whether the cluster is healthy).
    const healthCli = await runCli(['health', '--json', '--admin', mdsAdmin], { env });
    expect(typeof (JSON.parse(healthCli.stdout) as { ok?: unknown }).ok, healthCli.stderr).toBe('boolean');
    const dashboard = await runCli(['dashboard', '--admin', mdsAdmin], { env });
    expect(dashboard.code, dashboard.stderr).toBe(0);
    expect(dashboard.stdout.startsWith(`${mdsAdmin}/dashboard/#token=`)).toBe(true);
    // An OSS's admin port, found from the map (fault clear of a knob-free OST changes nothing).
    const fault = await runCli(['fault', 'clear', String(cluster.ostsOf(cluster.specs[0]!.id)[0])], { env });
    expect(fault.code, fault.stderr).toBe(0);
    expect(fault.stdout).toContain('faults cleared');
    // Pointed at plain HTTP, or holding another CA: said with its code.
    const plainCli = await runCli(['top', '--once', '--json', '--admin', plainAdmin], { env });
    expect(plainCli.code).toBe(1);
    expect(plainCli.stderr).toContain('TLS_REQUIRED');
    const otherCli = await runCli(['top', '--once', '--json', '--admin', mdsAdmin], {
      env: { ...env, STRIPEFS_TLS_CA: otherCa.caFile },
    });
    expect(otherCli.code).toBe(1);
    expect(otherCli.stderr).toContain('TLS_UNTRUSTED');
  });

  it('the bulk port answers a plain-TCP request with no bulk frame', async () => {
    const answer = await rawBulkAnswer(cluster.oss[0]!.ready.bulkPort as number);
    expect(answer.includes(Buffer.from('SFBR'))).toBe(false);
    // A TLS record (an alert: content type 21) or nothing at all.
    if (answer.length > 0) expect(answer[0]).toBe(0x15);
  });
});

describe('recovery between OSSs with TLS', () => {
  let cluster: Cluster;
  let client: StripeClient;
  let files: TlsFiles;
  const home = mkdtempSync(join(tmpdir(), 'stripefs-tls-recovery-'));

  beforeAll(async () => {
    files = ensureTlsFiles(join(home, 'tls'));
    cluster = await startCluster({
      tls: files,
      oss: rackLayout(4, 2, 1),
      pgCount: 16,
      extraEnv: { STRIPEFS_MDS_OUT_GRACE_MS: '1000', STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0' },
    });
    client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED, tls: cluster.tls });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('a lost host is rebuilt from the others over TLS; a second loss then loses nothing', async () => {
    const rep2: Layout = {
      pattern: 'replicated',
      stripeSize: S,
      stripeCount: 4,
      replicas: 2,
      failureDomain: 'host',
    };
    const written = new Map<string, Buffer>();
    for (let i = 0; i < 8; i++) {
      const data = seededBytes(300_000 + i * 1000, SEED + 100 + i);
      await client.writeFile(`/r${i}`, data, { layout: rep2 });
      written.set(`/r${i}`, data);
    }
    await cluster.killOss(0);
    const outEpoch = await waitOut(cluster.mdsAddress, 1, cluster.tls);
    await waitCleanPgs(cluster, { timeoutMs: 90_000, minEpoch: outEpoch });
    // The copies lost with host 0 were read from the other OSSs' bulk ports, over TLS.
    const recovery = await cluster.admin<{ totals: { bytesCopied: number } }>('/api/recovery');
    expect(recovery.totals.bytesCopied).toBeGreaterThan(0);
    await cluster.killOss(1);
    for (const [path, data] of written) expect((await client.readFile(path)).equals(data), path).toBe(true);
  });
});

describe('stripefs cluster up --tls', () => {
  const home = mkdtempSync(join(tmpdir(), 'stripefs-tls-up-'));
  let launcher: ChildProcess | undefined;

  afterAll(async () => {
    await stopLauncher(launcher);
    rmSync(home, { recursive: true, force: true });
  });

  it('makes the CA and certificate in data/tls and the CLI from the folder above uses them', async () => {
    const basePort = await freePortRange(3 + 3 * 3);
    const env = { STRIPEFS_MDS: `127.0.0.1:${basePort}` };
    const args = ['cluster', 'up', '--tls', '--racks', '1', '--hosts-per-rack', '3', '--osts-per-host', '1'];
    // /metrics open and over plain HTTP as well, for a Prometheus that holds neither key nor CA.
    const metricsPlain = { STRIPEFS_TLS_METRICS_PLAIN: 'true', STRIPEFS_AUTH_METRICS_OPEN: 'true' };
    const child = spawn(process.execPath, [CLI_SCRIPT, ...args, '--base-port', String(basePort)], {
      cwd: home,
      env: { ...process.env, ...env, ...metricsPlain },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher = child;
    const banner = await new Promise<string>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ctrl-C')) resolve(out);
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      child.once('exit', (code) => reject(new Error(`launcher exited ${code}\n${err}`)));
    });
    expect(banner).toContain('tls        on');
    for (const key of ['ca.key', 'server.key'])
      expect(statSync(join(home, 'data', 'tls', key)).mode & 0o777).toBe(0o600);
    statSync(join(home, 'data', 'tls', 'server.pem'));

    writeFileSync(join(home, 'sample.bin'), Buffer.alloc(300_000, 9));
    const put = await runCli(['put', join(home, 'sample.bin'), '/sample.bin'], { cwd: home, env });
    expect(put.code, put.stderr).toBe(0);
    const ls = await runCli(['ls', '/'], { cwd: home, env });
    expect(ls.stdout).toContain('sample.bin');
    const elsewhere = await runCli(['ls', '/'], { cwd: tmpdir(), env });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('TLS_REQUIRED');

    // The launcher's control API: HTTPS with the cluster's certificate, signed requests only.
    const ca = ['--cacert', join(home, 'data', 'tls', 'ca.pem')];
    const control = `127.0.0.1:${basePort + 2}`;
    const status = await runCli(['cluster', 'status', '--json'], { cwd: home, env });
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { processes: unknown[] }).processes).toHaveLength(4);
    expect(codeIn((await curl(`https://${control}/status`, ...ca)).body)).toBe('AUTH_REQUIRED');
    expect(codeIn((await curl(`http://${control}/status`)).body)).toBe('TLS_REQUIRED');
    // tls.metricsPlain: GET /metrics over plain HTTP too (and HTTPS), nothing else.
    const admin = `127.0.0.1:${basePort + 1}`;
    for (const url of [`http://${admin}/metrics`, `https://${admin}/metrics`]) {
      const metrics = await curl(url, ...ca);
      expect(metrics.status, url).toBe(200);
      expect(metrics.body, url).toContain('stripefs_');
    }
    const plainRoute = await curl(`http://${admin}/healthz`);
    expect(plainRoute.status).toBe(503);
    expect(codeIn(plainRoute.body)).toBe('TLS_REQUIRED');
  });
});
