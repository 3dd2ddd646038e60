// stripefs under a real docker engine (`npm run test:compose`, scripts/test-compose.sh prepares
// docker): docker-compose.yml is built and brought up, and the host's CLI puts a 64 MiB ec 4+2
// file through the published ports; the container holding one of its data chunks is killed and
// the file reads back byte for byte; another chunk's container is cut off the network and the
// file reads back again, from the host and from the CLI inside the network; everything is
// reconnected and started and the cluster returns to HEALTH_OK; a paused container is marked
// down and read around; compose/rack3.yml grows the cluster by a rack, which fills and settles;
// `down -v` leaves no container, network or volume. Auth is on: the MDS writes the admin and
// OSS keyrings into the host folder STRIPEFS_KEYRING_DIR (here a temporary one), the host CLI
// signs with that admin keyring and is refused without it; a host client's batched stats go
// over the MDS's published framed port. It prints what it measured: image
// build, image size, up, time to healthy.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StripeClient } from '../../client/index.js';
import { runCli } from '../helpers/cli.js';
import { freePortRange } from '../helpers/ports.js';

const ROOT = resolve('.');
const COMPOSE = (process.env.STRIPEFS_COMPOSE ?? 'docker-compose').split(' ');
const PROJECT = `stripefs-e2e-${process.pid}`;
const NETWORK = `${PROJECT}_default`;
/** The MDS, then three ports per OSS: 7070..7090, and compose/rack3.yml's 7091..7096. */
const PORT_FIRST = 7070;
const PORT_LAST = 7096;
const FILE_BYTES = 64 * 1024 * 1024;
const OSTS = 12;
const OSTS_GROWN = 16;
const FILES = ['docker-compose.yml', 'compose/rack3.yml'];
const COMMAND_TIMEOUT_MS = 300_000;

interface Ran {
  stdout: string;
  stderr: string;
  ms: number;
}

function run(
  file: string,
  args: string[],
  timeoutMs = COMMAND_TIMEOUT_MS,
  env: Record<string, string> = {},
): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolveRun, reject) => {
    execFile(
      file,
      args,
      {
        cwd: ROOT,
        maxBuffer: 2 * FILE_BYTES,
        timeout: timeoutMs,
        encoding: 'latin1',
        env: { ...process.env, ...env },
      },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${file} ${args.join(' ')} failed: ${err.message}\n${stderr}`));
        else resolveRun({ stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

/**
 * docker-compose.yml and compose/rack3.yml themselves when their ports are free here; else the
 * same files with every port moved to a free range (a local cluster or another run may hold
 * 7070..7096 on this machine).
 */
async function composeFiles(dir: string): Promise<{ files: string[]; mdsPort: number }> {
  const checks = await Promise.all(
    Array.from({ length: PORT_LAST - PORT_FIRST + 1 }, (_, i) => portFree(PORT_FIRST + i)),
  );
  if (checks.every(Boolean)) return { files: FILES.map((f) => join(ROOT, f)), mdsPort: PORT_FIRST };
  const base = await freePortRange(PORT_LAST - PORT_FIRST + 1);
  const files = FILES.map((name, i) => {
    const moved = readFileSync(join(ROOT, name), 'utf8').replace(/\b70[789]\d\b/g, (port) =>
      Number(port) <= PORT_LAST ? String(Number(port) - PORT_FIRST + base) : port,
    );
    const file = join(dir, `compose-${i}.yml`);
    writeFileSync(file, moved);
    return file;
  });
  console.log(`ports ${PORT_FIRST}..${PORT_LAST} are taken here: running on ${base}.. instead`);
  return { files, mdsPort: base };
}

describe('docker compose, end to end', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stripefs-compose-'));
  /** Where the MDS writes the keyrings (docker-compose.yml's STRIPEFS_KEYRING_DIR). */
  const keyringDir = join(dir, 'keyrings');
  let files = FILES.map((f) => join(ROOT, f));
  let grown = false;
  /** docker compose with the base file, and after growth the rack3 file too. */
  const compose = (args: string[], timeoutMs?: number) =>
    run(
      COMPOSE[0] as string,
      [
        ...COMPOSE.slice(1),
        '-p',
        PROJECT,
        ...(grown ? files : files.slice(0, 1)).flatMap((f) => ['-f', f]),
        '--project-directory',
        ROOT,
        ...args,
      ],
      timeoutMs,
      { STRIPEFS_KEYRING_DIR: keyringDir },
    );
  const measured: Record<string, string> = {};

  afterAll(async () => {
    grown = true;
    await compose(['down', '-v', '--remove-orphans']).catch((err: unknown) => console.error(err));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the host, survives a killed and a cut-off host, heals, and leaves nothing behind', async () => {
    const startedMs = performance.now();
    const chosen = await composeFiles(dir);
    files = chosen.files;
    const env = {
      STRIPEFS_MDS: `127.0.0.1:${chosen.mdsPort}`,
      STRIPEFS_KEYRING: join(keyringDir, 'admin.keyring'),
    };
    const cli = async (args: string[]) => {
      const started = performance.now();
      const result = await runCli(args, { env, timeoutMs: COMMAND_TIMEOUT_MS });
      expect(result.code, `stripefs ${args.join(' ')}: ${result.stderr}`).toBe(0);
      return { ...result, ms: performance.now() - started };
    };

    const build = await compose(['build']);
    measured['image build'] = `${(build.ms / 1000).toFixed(1)} s`;
    const size = await run('docker', ['image', 'inspect', '-f', '{{.Size}}', 'stripefs:latest']);
    measured['image size'] = `${(Number(size.stdout) / 1e6).toFixed(0)} MB`;
    const up = await compose(['up', '-d']);
    measured.up = `${(up.ms / 1000).toFixed(1)} s`;
    const healthy = await cli(['health', '--wait', '240', '--expect-osts', String(OSTS)]);
    measured['up to HEALTH_OK'] = `${((up.ms + healthy.ms) / 1000).toFixed(1)} s`;
    expect(healthy.stdout).toMatch(/^HEALTH_OK/);
    // Auth is on: the keyrings are the MDS's (0600), and a CLI without the admin's is refused.
    for (const name of ['admin.keyring', 'oss.keyring'])
      expect(statSync(join(keyringDir, name)).mode & 0o777, name).toBe(0o600);
    const refused = await runCli(['ls', '/'], { env: { ...env, STRIPEFS_KEYRING: '' }, cwd: dir });
    expect(refused.stderr).toContain('AUTH_REQUIRED');
    const identities = JSON.parse((await cli(['auth', 'ls', '--json'])).stdout) as {
      name: string;
      service: boolean;
    }[];
    expect(identities.map((i) => `${i.name} ${i.service}`)).toEqual(['admin false', 'oss true']);

    // Every OSS announced its configured OST ids, whatever order the containers started in.
    const df = JSON.parse((await cli(['df', '--json'])).stdout) as { id: number; host: string }[];
    expect(df.map((row) => [row.id, row.host]).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual(
      Array.from({ length: OSTS }, (_, id) => [id, `host${Math.floor(id / 2)}`]),
    );

    // A host client's batched stats take the MDS's framed path through its published port.
    const host = await StripeClient.connect({
      mds: env.STRIPEFS_MDS,
      keyring: env.STRIPEFS_KEYRING,
    });
    try {
      await Promise.all(Array.from({ length: 8 }, () => host.stat('/')));
      expect(host.stats().mdsFrames).toMatchObject({ fallbacks: 0 });
      expect(host.stats().mdsFrames.calls, 'StatMany calls framed from the host').toBeGreaterThan(0);
    } finally {
      await host.close();
    }

    const local = join(dir, 'sample.bin');
    const payload = randomBytes(FILE_BYTES);
    writeFileSync(local, payload);
    await cli(['put', '--ec', '4+2', local, '/sample.bin']);
    const stripe = JSON.parse((await cli(['getstripe', '--json', '/sample.bin'])).stdout) as {
      objects: { objectId: string; osts: number[] }[];
    };
    const hostOfChunk = (chunk: number) => {
      const ost = stripe.objects.find((o) => o.objectId.endsWith(`.c${chunk}`))?.osts[0];
      return df.find((row) => row.id === ost)?.host as string;
    };
    const readBack = async (name: string) => {
      const back = join(dir, name);
      await cli(['get', '/sample.bin', back]);
      expect(readFileSync(back).equals(payload), `${name} differs from what was put`).toBe(true);
    };

    // A host failure: the container holding data chunk 0 is killed.
    const killed = hostOfChunk(0);
    await compose(['kill', `oss-${killed}`]);
    await readBack('after-kill.bin');

    // A partition: the container of data chunk 1 is cut off the network (still running).
    const cut = hostOfChunk(1);
    expect(cut).not.toBe(killed);
    const cutId = (await compose(['ps', '-q', `oss-${cut}`])).stdout.trim();
    await run('docker', ['network', 'disconnect', NETWORK, cutId]);
    await readBack('after-partition.bin');

    // The CLI inside the network reads by service names and cluster addresses.
    const inside = await compose(['run', '--rm', '-T', 'cli', 'get', '/sample.bin', '-']);
    expect(
      Buffer.from(inside.stdout, 'latin1').equals(payload),
      'the CLI in the network read other bytes',
    ).toBe(true);

    // Heal: reconnect under its service name, start what was killed, wait for HEALTH_OK.
    await run('docker', ['network', 'connect', '--alias', `oss-${cut}`, NETWORK, cutId]);
    await compose(['start']);
    const healed = await cli(['health', '--wait', '240', '--expect-osts', String(OSTS)]);
    expect(healed.stdout).toMatch(/^HEALTH_OK/);
    await readBack('after-heal.bin');

    // A hung host: the container of data chunk 2 is paused, marked down, and read around.
    const paused = hostOfChunk(2);
    await compose(['pause', `oss-${paused}`]);
    const downOsts = df.filter((row) => row.host === paused).map((row) => `ost${row.id} (${paused})`);
    const pausedDeadline = Date.now() + 60_000;
    for (;;) {
      const report = JSON.parse((await runCli(['health', '--json'], { env })).stdout) as {
        osts: { down: string[] };
      };
      if (downOsts.every((ost) => report.osts.down.includes(ost))) break;
      expect(Date.now(), `${downOsts.join(', ')} not marked down within 60 s of the pause`).toBeLessThan(
        pausedDeadline,
      );
      await new Promise((done) => setTimeout(done, 250));
    }
    await readBack('while-paused.bin');
    await compose(['unpause', `oss-${paused}`]);

    // Grow by a rack with the second file; PGs move onto it and settle.
    grown = true;
    await compose(['up', '-d']);
    const settled = await cli(['health', '--wait', '240', '--expect-osts', String(OSTS_GROWN)]);
    expect(settled.stdout).toMatch(/^HEALTH_OK/);
    expect(settled.stdout).toContain(`OSTs: ${OSTS_GROWN} total`);
    await readBack('after-growth.bin');

    const down = await compose(['down', '-v']);
    grown = false;
    measured.down = `${(down.ms / 1000).toFixed(1)} s`;
    const label = `label=com.docker.compose.project=${PROJECT}`;
    for (const kind of ['container', 'network', 'volume']) {
      const listed = await run('docker', [
        kind,
        'ls',
        ...(kind === 'container' ? ['-a'] : []),
        '-q',
        '--filter',
        label,
      ]);
      expect(listed.stdout.trim(), `${kind}s left after down -v`).toBe('');
    }
    measured['this test'] = `${((performance.now() - startedMs) / 1000).toFixed(1)} s`;
    const prepMs = Number(process.env.STRIPEFS_COMPOSE_PREP_MS ?? 0);
    if (prepMs > 0) measured['docker, base images, npm build before it'] = `${(prepMs / 1000).toFixed(1)} s`;
    console.log(
      `compose test measured (${COMPOSE.join(' ')}):\n${Object.entries(measured)
        .map(([what, value]) => `  ${what.padEnd(40)} ${value}`)
        .join('\n')}`,
    );
  });
});
