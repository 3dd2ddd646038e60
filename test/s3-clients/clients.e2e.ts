// The S3 gateway (`stripefs s3`, a real process) with the real S3 clients:
// awscli, s3cmd, rclone and boto3 from Debian's packages, and a newer awscli
// and boto3 when PATH has them (they send aws-chunked uploads with CRC32
// trailers by default). Every round trip is checked byte for byte with
// sha256. Run by `npm run test:s3` (scripts/test-s3.sh), which installs them.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchPathOf } from '../../common/auth/scratch.js';
import { resolveIdentity } from '../../common/auth/signing.js';
import { seedFromEnv } from '../../common/random.js';
import { runCli } from '../helpers/cli.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { type StartedProcess, startProcess } from '../helpers/process.js';

const SEED = seedFromEnv();
console.log(`s3 clients seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const ACCESS = 'AKIDS3CLIENTS';
const SECRET = 's3-clients-secret-key';
const MiB = 1024 * 1024;

let cluster: Cluster;
let gateway: StartedProcess;
let endpoint: string;
/** The same gateway over HTTPS (a self-signed certificate): SDKs send CRC32 trailers only over TLS. */
let tlsGateway: StartedProcess;
let tlsEndpoint: string;
let caFile: string;
let work: string;
const gatewayLog: string[] = [];

interface Ran {
  stdout: string;
  stderr: string;
}

/** Runs a client; `env` adds to this process's environment, and a value of '' removes the variable. */
function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const merged: Record<string, string | undefined> = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === '') delete merged[name];
  return new Promise((resolve, reject) => {
    execFile(command, args, { env: merged, maxBuffer: 64 * MiB, timeout: 840_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} ${args.join(' ')} failed: ${err.message}\n${stdout}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Every file under `dir`, relative path -> sha256. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[relative(dir, path)] = sha256(path);
  }
  return out;
}

/** A folder of files like a small dataset: nested, spaces and non-ASCII in names, a 24 MiB file. */
function makeDataset(dir: string, seed: number): void {
  const files: [string, number][] = [
    ['train/shard-000.bin', 3 * MiB + 1],
    ['train/shard-001.bin', 24 * MiB + 7],
    ['train/labels.csv', 4096],
    ['val/shard 000.bin', 700_000],
    ['val/ünïcode-名前.txt', 10],
    ['README.md', 0],
  ];
  for (const [name, size] of files) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), seededBytes(size, seed + size));
  }
}

function awsEnv(tls = false): Record<string, string> {
  return {
    AWS_CA_BUNDLE: tls ? caFile : '',
    AWS_ACCESS_KEY_ID: ACCESS,
    AWS_SECRET_ACCESS_KEY: SECRET,
    AWS_DEFAULT_REGION: 'us-east-1',
    AWS_CONFIG_FILE: join(work, 'aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(work, 'aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
  };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'stripefs-s3-clients-'));
  writeFileSync(join(work, 'aws-config'), '[default]\ns3 =\n  addressing_style = path\n');
  writeFileSync(join(work, 'aws-credentials'), '');
  mkdirSync(join(work, 'keyrings'), { mode: 0o700 });
  cluster = await startCluster();
  const logFile = createWriteStream(join(work, 'gateway.log'));
  gateway = await startProcess({
    script: 'dist/cli/main.js',
    args: [
      's3',
      '--listen',
      '127.0.0.1:0',
      '--mds',
      cluster.mdsAddress,
      '--keyring-dir',
      join(work, 'keyrings'),
    ],
    env: { STRIPEFS_S3_ACCESS_KEY: ACCESS, STRIPEFS_S3_SECRET_KEY: SECRET, STRIPEFS_LOG_LEVEL: 'debug' },
    logTo: logFile,
  });
  endpoint = gateway.ready.endpoint as string;
  gateway.child.stderr?.on('data', (d: Buffer) => gatewayLog.push(d.toString()));
  caFile = join(work, 'cert.pem');
  const keyFile = join(work, 'key.pem');
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    caFile,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  tlsGateway = await startProcess({
    script: 'dist/cli/main.js',
    args: [
      's3',
      '--listen',
      '127.0.0.1:0',
      '--mds',
      cluster.mdsAddress,
      '--tls-cert',
      caFile,
      '--tls-key',
      keyFile,
    ],
    env: { STRIPEFS_S3_ACCESS_KEY: ACCESS, STRIPEFS_S3_SECRET_KEY: SECRET, STRIPEFS_LOG_LEVEL: 'debug' },
  });
  tlsEndpoint = tlsGateway.ready.endpoint as string;
  tlsGateway.child.stderr?.on('data', (d: Buffer) => gatewayLog.push(d.toString()));
});

afterAll(async () => {
  await tlsGateway?.stop();
  await gateway?.stop();
  await cluster?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Payload modes the gateway logged for bodies it received since `from` (its debug log). */
function payloadModes(from: number): string[] {
  return gatewayLog
    .slice(from)
    .join('')
    .split('\n')
    .filter((l) => l.includes('"payload"'))
    .map((l) => {
      const entry = JSON.parse(l) as { payload: string; trailer?: string };
      return entry.trailer ? `${entry.payload}+${entry.trailer}` : entry.payload;
    });
}

/** Debian's client over HTTP, and a newer one on PATH (if any) over HTTPS. */
function awsBinaries(): [string, string, boolean][] {
  const found: [string, string, boolean][] = [['awscli (Debian)', '/usr/bin/aws', false]];
  const onPath = (process.env.PATH ?? '')
    .split(':')
    .map((d) => join(d, 'aws'))
    .find((p) => existsSync(p) && p !== '/usr/bin/aws');
  if (onPath) found.push(['awscli on PATH, over HTTPS', onPath, true]);
  return found;
}

for (const [name, aws, tls] of awsBinaries()) {
  describe(name, () => {
    const bucket = `aws-${tls ? 'path' : 'debian'}`;
    const s3 = (...args: string[]) =>
      run(aws, ['--endpoint-url', tls ? tlsEndpoint : endpoint, ...args], awsEnv(tls));

    it('s3 mb, cp up and down (multipart above 8 MiB), sync both ways, ls, rm, rb', async () => {
      const logFrom = gatewayLog.length;
      await s3('s3', 'mb', `s3://${bucket}`);
      const local = join(work, `${bucket}-src`);
      makeDataset(local, SEED);
      await s3('s3', 'cp', join(local, 'train/shard-001.bin'), `s3://${bucket}/single/shard-001.bin`);
      await s3('s3', 'cp', `s3://${bucket}/single/shard-001.bin`, join(work, `${bucket}-one.bin`));
      expect(sha256(join(work, `${bucket}-one.bin`))).toBe(sha256(join(local, 'train/shard-001.bin')));
      const head = JSON.parse(
        (await s3('s3api', 'head-object', '--bucket', bucket, '--key', 'single/shard-001.bin')).stdout,
      ) as { ETag: string; ContentLength: number };
      expect(head.ETag).toMatch(/-4"$/); // 24 MiB in 8 MiB parts: multipart, md5-of-md5s-4
      // A copy inside the cluster above the multipart threshold: awscli sends UploadPartCopy.
      await s3('s3', 'cp', `s3://${bucket}/single/shard-001.bin`, `s3://${bucket}/copied/shard-001.bin`);
      await s3('s3', 'cp', `s3://${bucket}/copied/shard-001.bin`, join(work, `${bucket}-copied.bin`));
      expect(sha256(join(work, `${bucket}-copied.bin`))).toBe(sha256(join(local, 'train/shard-001.bin')));
      const copiedHead = JSON.parse(
        (await s3('s3api', 'head-object', '--bucket', bucket, '--key', 'copied/shard-001.bin')).stdout,
      ) as { ETag: string };
      expect(copiedHead.ETag).toMatch(/-\d+"$/);
      await s3('s3', 'rm', `s3://${bucket}/copied/shard-001.bin`);
      await s3('s3', 'sync', local, `s3://${bucket}/dataset`);
      const again = await s3('s3', 'sync', local, `s3://${bucket}/dataset`);
      expect(again.stdout.trim(), 'a second sync uploads nothing').toBe('');
      const back = join(work, `${bucket}-back`);
      await s3('s3', 'sync', `s3://${bucket}/dataset`, back);
      expect(tree(back)).toEqual(tree(local));
      const ls = (await s3('s3', 'ls', `s3://${bucket}/dataset/`)).stdout;
      expect(ls).toContain('PRE train/');
      expect(ls).toContain('PRE val/');
      expect(ls).toMatch(/\s0 README\.md/);
      const recursive = (await s3('s3', 'ls', '--recursive', `s3://${bucket}/dataset/`)).stdout
        .trim()
        .split('\n');
      expect(recursive).toHaveLength(6);
      await s3('s3', 'rm', '--recursive', `s3://${bucket}/`);
      expect((await s3('s3', 'ls', '--recursive', `s3://${bucket}/`)).stdout.trim()).toBe('');
      await s3('s3', 'rb', `s3://${bucket}`);
      console.log(`${name} payload modes: ${[...new Set(payloadModes(logFrom))].join(', ')}`);
    });

    it('s3api multipart by hand (create, upload-part, list-parts, list-multipart-uploads, complete, abort) and range gets', async () => {
      await s3('s3', 'mb', `s3://${bucket}-mp`);
      const parts = [
        seededBytes(5 * MiB, SEED + 1),
        seededBytes(5 * MiB, SEED + 2),
        seededBytes(MiB + 3, SEED + 3),
      ];
      const upload = JSON.parse(
        (await s3('s3api', 'create-multipart-upload', '--bucket', `${bucket}-mp`, '--key', 'ckpt/step-1.pt'))
          .stdout,
      ) as { UploadId: string };
      const etags: string[] = [];
      for (const [i, part] of parts.entries()) {
        const file = join(work, `${bucket}-part${i}`);
        writeFileSync(file, part);
        const answer = JSON.parse(
          (
            await s3(
              's3api',
              'upload-part',
              '--bucket',
              `${bucket}-mp`,
              '--key',
              'ckpt/step-1.pt',
              '--part-number',
              String(i + 1),
              '--upload-id',
              upload.UploadId,
              '--body',
              file,
            )
          ).stdout,
        ) as { ETag: string };
        etags.push(answer.ETag);
      }
      const listed = JSON.parse(
        (
          await s3(
            's3api',
            'list-parts',
            '--bucket',
            `${bucket}-mp`,
            '--key',
            'ckpt/step-1.pt',
            '--upload-id',
            upload.UploadId,
          )
        ).stdout,
      ) as { Parts: { PartNumber: number; Size: number }[] };
      expect(listed.Parts.map((p) => p.Size)).toEqual(parts.map((p) => p.length));
      const uploads = JSON.parse(
        (await s3('s3api', 'list-multipart-uploads', '--bucket', `${bucket}-mp`)).stdout,
      ) as { Uploads: { UploadId: string }[] };
      expect(uploads.Uploads.map((u) => u.UploadId)).toEqual([upload.UploadId]);
      const manifest = join(work, `${bucket}-complete.json`);
      writeFileSync(
        manifest,
        JSON.stringify({ Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) }),
      );
      await s3(
        's3api',
        'complete-multipart-upload',
        '--bucket',
        `${bucket}-mp`,
        '--key',
        'ckpt/step-1.pt',
        '--upload-id',
        upload.UploadId,
        '--multipart-upload',
        `file://${manifest}`,
      );
      const whole = Buffer.concat(parts);
      const out = join(work, `${bucket}-got.pt`);
      await s3('s3api', 'get-object', '--bucket', `${bucket}-mp`, '--key', 'ckpt/step-1.pt', out);
      expect(sha256(out)).toBe(createHash('sha256').update(whole).digest('hex'));
      await s3(
        's3api',
        'get-object',
        '--bucket',
        `${bucket}-mp`,
        '--key',
        'ckpt/step-1.pt',
        '--range',
        `bytes=${5 * MiB - 10}-${5 * MiB + 9}`,
        out,
      );
      expect(readFileSync(out).equals(whole.subarray(5 * MiB - 10, 5 * MiB + 10))).toBe(true);
      const aborted = JSON.parse(
        (await s3('s3api', 'create-multipart-upload', '--bucket', `${bucket}-mp`, '--key', 'ckpt/abandoned'))
          .stdout,
      ) as { UploadId: string };
      await s3(
        's3api',
        'abort-multipart-upload',
        '--bucket',
        `${bucket}-mp`,
        '--key',
        'ckpt/abandoned',
        '--upload-id',
        aborted.UploadId,
      );
      const after = JSON.parse(
        (await s3('s3api', 'list-multipart-uploads', '--bucket', `${bucket}-mp`)).stdout || '{}',
      ) as { Uploads?: unknown[] };
      expect(after.Uploads ?? []).toEqual([]);
      const missing = await s3('s3api', 'head-object', '--bucket', `${bucket}-mp`, '--key', 'nope').catch(
        (err: Error) => err.message,
      );
      expect(missing).toMatch(/404|Not Found/);
    });
  });
}

describe('s3cmd', () => {
  const config = () => {
    const file = join(work, 's3cmd.cfg');
    const hostPort = endpoint.replace('http://', '');
    writeFileSync(
      file,
      `[default]\naccess_key = ${ACCESS}\nsecret_key = ${SECRET}\nhost_base = ${hostPort}\nhost_bucket = ${hostPort}\nuse_https = False\nsignature_v2 = False\nbucket_location = us-east-1\n`,
    );
    return file;
  };
  const s3cmd = (...args: string[]) => run('s3cmd', ['-c', config(), ...args]);

  it('mb, put (multipart in 5 MiB chunks), get, info, sync, ls, del, rb', async () => {
    await s3cmd('mb', 's3://s3cmd-bucket');
    const local = join(work, 's3cmd-src');
    makeDataset(local, SEED + 100);
    await s3cmd(
      'put',
      '--multipart-chunk-size-mb=5',
      join(local, 'train/shard-001.bin'),
      's3://s3cmd-bucket/big.bin',
    );
    await s3cmd('get', 's3://s3cmd-bucket/big.bin', join(work, 's3cmd-big.bin'));
    expect(sha256(join(work, 's3cmd-big.bin'))).toBe(sha256(join(local, 'train/shard-001.bin')));
    const info = (await s3cmd('info', 's3://s3cmd-bucket/big.bin')).stdout;
    expect(info).toMatch(/File size:\s+25165831/);
    await s3cmd('sync', `${local}/`, 's3://s3cmd-bucket/set/');
    const back = join(work, 's3cmd-back');
    mkdirSync(back);
    await s3cmd('sync', 's3://s3cmd-bucket/set/', `${back}/`);
    expect(tree(back)).toEqual(tree(local));
    const ls = (await s3cmd('ls', 's3://s3cmd-bucket/set/')).stdout;
    expect(ls).toContain('DIR  s3://s3cmd-bucket/set/train/');
    await s3cmd('del', '--recursive', '--force', 's3://s3cmd-bucket/');
    await s3cmd('rb', 's3://s3cmd-bucket');
  });
});

describe('rclone', () => {
  const env = () => ({
    RCLONE_CONFIG_SF_TYPE: 's3',
    RCLONE_CONFIG_SF_PROVIDER: 'Other',
    RCLONE_CONFIG_SF_ENDPOINT: endpoint,
    RCLONE_CONFIG_SF_ACCESS_KEY_ID: ACCESS,
    RCLONE_CONFIG_SF_SECRET_ACCESS_KEY: SECRET,
    RCLONE_CONFIG_SF_REGION: 'us-east-1',
    RCLONE_CONFIG_SF_FORCE_PATH_STYLE: 'true',
    RCLONE_CONFIG: join(work, 'rclone.conf'),
    // An inherited AWS_CA_BUNDLE makes this rclone refuse its own HTTP transport.
    AWS_CA_BUNDLE: '',
  });
  const rclone = (...args: string[]) =>
    run('rclone', ['--s3-upload-cutoff', '5M', '--s3-chunk-size', '5M', ...args], env());

  it('copy, check (ETags against MD5s), lsf, sync with deletes, check --download', async () => {
    const local = join(work, 'rclone-src');
    makeDataset(local, SEED + 200);
    await rclone('mkdir', 'sf:rclone-bucket');
    await rclone('copy', local, 'sf:rclone-bucket/set');
    await rclone('check', local, 'sf:rclone-bucket/set');
    const lsf = (await rclone('lsf', '-R', 'sf:rclone-bucket/set')).stdout.trim().split('\n').sort();
    expect(lsf).toEqual([
      'README.md',
      'train/',
      'train/labels.csv',
      'train/shard-000.bin',
      'train/shard-001.bin',
      'val/',
      'val/shard 000.bin',
      'val/ünïcode-名前.txt',
    ]);
    rmSync(join(local, 'train/labels.csv'));
    writeFileSync(join(local, 'val/new.txt'), 'added');
    await rclone('sync', local, 'sf:rclone-bucket/set');
    await rclone('check', local, 'sf:rclone-bucket/set');
    await rclone('check', '--download', local, 'sf:rclone-bucket/set');
    const back = join(work, 'rclone-back');
    await rclone('copy', 'sf:rclone-bucket/set', back);
    expect(tree(back)).toEqual(tree(local));
    await rclone('purge', 'sf:rclone-bucket');
  });
});

/** Debian's boto3 over HTTP, and a newer one on PATH (if any) over HTTPS. */
function pythons(): [string, string, boolean][] {
  const found: [string, string, boolean][] = [['boto3 (Debian python3-boto3)', '/usr/bin/python3', false]];
  const onPath = (process.env.PATH ?? '')
    .split(':')
    .map((d) => join(d, 'python3'))
    .find((p) => existsSync(p) && p !== '/usr/bin/python3');
  if (onPath) found.push(['boto3 on PATH, over HTTPS', onPath, true]);
  return found;
}

for (const [name, python, tls] of pythons()) {
  describe(name, () => {
    it('round trips, transfer-manager multipart, presigned URLs, a paginated listing of thousands of keys, batch deletes', async (context) => {
      const hasBoto3 = await run(python, ['-c', 'import boto3']).then(
        () => true,
        () => false,
      );
      if (!hasBoto3 && tls) context.skip();
      const logFrom = gatewayLog.length;
      const bucket = tls ? 'boto3-path' : 'boto3-debian';
      // Debian's boto3 lists 10,000 keys (the figure); the second client 1,200 (two pages of
      // 1,000, the last one short), so the suite stays within its few minutes.
      const keyCount = tls ? 1_200 : 10_000;
      const { stdout } = await run(
        python,
        [
          join('test', 's3-clients', 'boto3_suite.py'),
          tls ? tlsEndpoint : endpoint,
          bucket,
          work,
          String(keyCount),
        ],
        awsEnv(tls),
      );
      const seen = JSON.parse(stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
      console.log(
        `${name}: ${JSON.stringify(seen)}; payload modes: ${[...new Set(payloadModes(logFrom))].join(', ')}`,
      );
      expect(seen).toMatchObject({
        roundTrips: 3,
        presignedDefault: 'AWSAccessKeyId',
        presignedV4: 'X-Amz-Algorithm',
        listedKeys: keyCount,
        listedPages: Math.ceil(keyCount / 1000),
        deleted: keyCount,
        missingKeyCode: 'NoSuchKey',
      });
      expect(seen.managedCopyEtag, 'the transfer manager copied in parts').toMatch(/-6"$/);
      // Listed before the copy (copies/big.bin) is made.
      expect(seen.topPrefixes).toEqual(['many/', 'models/', 'presigned/', 'rt/']);
    });
  });
}

describe("a stripefs identity's S3 key (stripefs auth s3-key), with awscli and boto3", () => {
  const identityEnv = (pair: { accessKeyId: string; secretAccessKey: string }) => ({
    ...awsEnv(),
    AWS_ACCESS_KEY_ID: pair.accessKeyId,
    AWS_SECRET_ACCESS_KEY: pair.secretAccessKey,
  });
  const aws = existsSync('/usr/bin/aws') ? '/usr/bin/aws' : 'aws';

  it('acts with its caps: its bucket round-trips, another bucket is AccessDenied and unchanged', async () => {
    const cli = (args: string[]) => runCli([...args, '--mds', cluster.mdsAddress], { cwd: work });
    const keyring = join(work, 'keyrings', 'alice.keyring');
    expect((await cli(['auth', 'add', 'alice', '--caps', 'rw /ids-alice', '-o', keyring])).code).toBe(0);
    const key = await runCli(['auth', 's3-key', keyring, '--json'], { cwd: work });
    const alice = JSON.parse(key.stdout) as { accessKeyId: string; secretAccessKey: string };
    const asAdmin = (...args: string[]) => run(aws, ['--endpoint-url', endpoint, ...args], awsEnv());
    const asAlice = (...args: string[]) =>
      run(aws, ['--endpoint-url', endpoint, ...args], identityEnv(alice));
    const refused = (...args: string[]) =>
      asAlice(...args).then(
        () => 'allowed',
        // A refused HEAD (awscli's first step of a download) has no body: HTTP 403 alone.
        (err: Error) => (/AccessDenied|\(403\)/.test(err.message) ? 'AccessDenied' : err.message),
      );
    const file = join(work, 'ids.bin');
    writeFileSync(file, seededBytes(9 * MiB + 3, SEED + 77));
    await asAdmin('s3', 'mb', 's3://ids-alice');
    await asAdmin('s3', 'mb', 's3://ids-other');
    await asAdmin('s3', 'cp', file, 's3://ids-other/secret.bin');
    await asAlice('s3', 'cp', file, 's3://ids-alice/mine.bin');
    await asAlice('s3', 'cp', 's3://ids-alice/mine.bin', join(work, 'ids-back.bin'));
    expect(sha256(join(work, 'ids-back.bin'))).toBe(sha256(file));
    const buckets = (await asAlice('s3', 'ls')).stdout;
    expect(buckets).toContain('ids-alice');
    expect(buckets).not.toContain('ids-other');
    expect(await refused('s3', 'ls', 's3://ids-other/')).toBe('AccessDenied');
    expect(await refused('s3', 'cp', 's3://ids-other/secret.bin', join(work, 'stolen.bin'))).toBe(
      'AccessDenied',
    );
    expect(await refused('s3', 'cp', file, 's3://ids-other/planted.bin')).toBe('AccessDenied');
    expect(await refused('s3', 'rm', 's3://ids-other/secret.bin')).toBe('AccessDenied');
    expect(await refused('s3', 'cp', 's3://ids-alice/mine.bin', 's3://ids-other/copied.bin')).toBe(
      'AccessDenied',
    );
    expect(await refused('s3', 'rb', 's3://ids-other')).toBe('AccessDenied');
    const other = (await asAdmin('s3', 'ls', 's3://ids-other/')).stdout;
    expect(other).toContain('secret.bin');
    expect(other).not.toContain('planted.bin');
    expect(other).not.toContain('copied.bin');
    await asAdmin('s3', 'cp', 's3://ids-other/secret.bin', join(work, 'ids-secret.bin'));
    expect(sha256(join(work, 'ids-secret.bin'))).toBe(sha256(file));
    // boto3: a presigned URL of alice's for another bucket is refused; one for hers is served.
    const presigned = await run(
      '/usr/bin/python3',
      [
        '-c',
        [
          'import sys, urllib.request, urllib.error, boto3',
          "s3 = boto3.client('s3', endpoint_url=sys.argv[1])",
          'def fetch(bucket, key):',
          "    url = s3.generate_presigned_url('get_object', Params={'Bucket': bucket, 'Key': key})",
          '    try:',
          '        return urllib.request.urlopen(url).status',
          '    except urllib.error.HTTPError as e:',
          '        return e.code',
          "print(fetch('ids-alice', 'mine.bin'), fetch('ids-other', 'secret.bin'))",
        ].join('\n'),
        endpoint,
      ],
      identityEnv(alice),
    );
    expect(presigned.stdout.trim()).toBe('200 403');
  });
});

it('the gateway left no staging files behind', async () => {
  const { StripeClient } = await import('../../client/index.js');
  const client = await StripeClient.connect({ mds: cluster.mdsAddress });
  try {
    const own = scratchPathOf(resolveIdentity(undefined)?.name ?? 'gateway');
    expect((await client.listPage(`${own}/tmp`)).entries).toEqual([]);
    expect((await client.listPage(`${scratchPathOf('alice')}/tmp`)).entries).toEqual([]);
  } finally {
    await client.close();
  }
  expect(statSync(join(work, 'gateway.log')).size).toBeGreaterThan(0);
});
