// Failures under a stripefs mount: a host SIGKILLed while a program reads
// through the mount (replicated:3 and ec:4+2; the program gets identical
// bytes), the whole cluster gone (calls fail with EIO or ETIMEDOUT within the
// mount's operation timeout, never a hung shell, and umount still works),
// and `stripefs umount` while a program holds a file open for writing (the
// mount flushes it first: what was written is there). Run by `npm run test:mount`.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import {
  CLI_SCRIPT,
  isMounted,
  MOUNT_HOOK_TIMEOUT_MS,
  type Mounted,
  mountCluster,
  mountSupport,
  sh,
} from './helpers.js';

const SEED = seedFromEnv();
const unsupported = mountSupport();
if (unsupported) console.warn(`SKIPPED test/mount/failure.test.ts: ${unsupported}`);
else console.log(`mount failure seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

const MiB = 1024 * 1024;
const FILE_BYTES = 24 * MiB;
const LINE_WAIT_MS = 120_000;

/** Reads a file in 1 MiB steps; after `pauseAt` MiB it says "paused" and waits for `go` to exist. */
const READER = `
import hashlib, os, sys, time
path, go, pause_at = sys.argv[1], sys.argv[2], int(sys.argv[3])
h = hashlib.sha256()
with open(path, 'rb') as f:
    n = 0
    while True:
        chunk = f.read(1 << 20)
        if not chunk:
            break
        h.update(chunk)
        n += 1
        if n == pause_at:
            print('paused', flush=True)
            while not os.path.exists(go):
                time.sleep(0.05)
print('sha256', h.hexdigest(), flush=True)
`;

/** Writes `size` bytes of the seeded pattern, says "written" and holds the file open until killed. */
const WRITER = `
import sys, time
path, size = sys.argv[1], int(sys.argv[2])
f = open(path, 'wb', buffering=0)
data = bytes(range(256)) * (size // 256)
f.write(data)
print('written', flush=True)
time.sleep(600)
`;

/** Starts python3 on a script; resolves each awaited line in order. */
function python(script: string, args: string[]) {
  const child = spawn('/usr/bin/python3', [script, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const nextLine = (): Promise<string> => {
    const ready = lines.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no line from ${script} in time: ${stderr}`)),
        LINE_WAIT_MS,
      );
      waiters.push((line) => {
        clearTimeout(timer);
        resolve(line);
      });
      void exited.then((code) => reject(new Error(`${script} exited ${code}: ${stderr}`)));
    });
  };
  return { child, nextLine, exited, stderr: () => stderr };
}

describe.skipIf(unsupported !== undefined)('failures under a stripefs mount', () => {
  let cluster: Cluster;
  let mounted: Mounted;
  let work: string;

  beforeAll(async () => {
    cluster = await startCluster();
    mounted = await mountCluster(cluster.mdsAddress, ['--op-timeout-ms', '20000']);
    work = mkdtempSync(join(tmpdir(), 'stripefs-mount-fail-'));
    writeFileSync(join(work, 'reader.py'), READER);
    writeFileSync(join(work, 'writer.py'), WRITER);
  }, MOUNT_HOOK_TIMEOUT_MS);
  afterAll(async () => {
    await mounted?.stop();
    await cluster?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, MOUNT_HOOK_TIMEOUT_MS);

  for (const [name, layout, victim] of [
    ['replicated:3:host', 'replicated:3:host:1:1M', 0],
    ['ec:4+2:host', 'ec:4+2:host:1M', 1],
  ] as const) {
    it(`${name}: a host SIGKILLed mid-read, the program still reads identical bytes`, async () => {
      const dir = `${mounted.mountpoint}/${name.replace(/[:+]/g, '-')}`;
      const local = join(work, `${victim}.bin`);
      const data = seededBytes(FILE_BYTES, SEED + victim);
      writeFileSync(local, data);
      await sh(
        `mkdir ${dir} && setfattr -n user.stripefs.layout -v ${layout} ${dir} && cp ${local} ${dir}/data.bin`,
      );
      const go = join(work, `go-${victim}`);
      const reader = python(join(work, 'reader.py'), [`${dir}/data.bin`, go, '4']);
      expect(await reader.nextLine()).toBe('paused');
      await cluster.oss[victim]?.kill('SIGKILL');
      writeFileSync(go, '');
      const done = await reader.nextLine();
      expect(done).toBe(`sha256 ${createHash('sha256').update(data).digest('hex')}`);
      expect(await reader.exited).toBe(0);
      await cluster.restartOss(victim);
    });
  }

  it('umount while a program holds a file open for writing: the mount flushes it first', async () => {
    const writer = python(join(work, 'writer.py'), [`${mounted.mountpoint}/held.bin`, String(5 * MiB)]);
    expect(await writer.nextLine()).toBe('written');
    await sh(`node ${CLI_SCRIPT} umount --run-dir ${mounted.runDir} ${mounted.mountpoint}`);
    const exit = await mounted.process.exited;
    expect(exit.code).toBe(0);
    expect(isMounted(mounted.mountpoint)).toBe(false);
    writer.child.kill('SIGKILL');
    const client = await StripeClient.connect({ mds: cluster.mdsAddress });
    try {
      const back = await client.readFile('/held.bin');
      expect(back.length).toBe(5 * MiB);
      expect(back.equals(Buffer.from(new Uint8Array(5 * MiB).map((_, i) => i % 256)))).toBe(true);
    } finally {
      await client.close();
    }
    mounted = await mountCluster(cluster.mdsAddress, ['--op-timeout-ms', '20000']);
  });

  it('the whole cluster gone: calls fail with EIO or ETIMEDOUT within the op timeout, and umount works', async () => {
    await sh(`head -c 3000000 /dev/urandom > ${mounted.mountpoint}/before.bin`);
    await Promise.all([...cluster.oss.map((p) => p.kill('SIGKILL')), cluster.mds.kill('SIGKILL')]);
    // Past the attribute cache (1 s): every call now needs the cluster.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const command of [
      `cat ${mounted.mountpoint}/before.bin > /dev/null`,
      `ls ${mounted.mountpoint}/newdir`,
      `mkdir ${mounted.mountpoint}/x`,
    ]) {
      const error = await sh(command, { timeoutMs: 120_000 }).then(
        () => 'succeeded',
        (err: Error) => err.message,
      );
      expect(error, command).toMatch(/Input\/output error|Connection timed out/);
    }
    await sh(`node ${CLI_SCRIPT} umount --run-dir ${mounted.runDir} ${mounted.mountpoint}`, {
      timeoutMs: 120_000,
    });
    await mounted.process.exited;
    expect(isMounted(mounted.mountpoint)).toBe(false);
  });
});
