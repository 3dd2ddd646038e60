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
//      TLS (an alert or nothing), not the bulk protocol.
// A cluster with TLS loses a host: recovery copies what it held from the
// other OSSs (OSS to OSS, bulk and gRPC over TLS), and a second loss then
// loses no byte. Then `stripefs cluster up --tls` makes the CA and certificate in
// <data>/tls (keys 0600) and the CLI from the folder above uses them.
import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
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
    // The MDS's admin port is plain HTTP: a TLS client there is told the server does not speak TLS.
    const plain = new URL(cluster.mdsAdminUrl).host;
    expect(await codeOf(StripeClient.connect({ mds: plain, tls: cluster.tls }))).toBe('TLS_NOT_SERVED');

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
    const child = spawn(process.execPath, [CLI_SCRIPT, ...args, '--base-port', String(basePort)], {
      cwd: home,
      env: { ...process.env, ...env },
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
  });
});
