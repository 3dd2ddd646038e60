// Operating a running cluster as an admin does, with the CLI run from a folder that is not the
// repository (the server entry points come from the package) and told where the cluster is by
// STRIPEFS_MDS only: `health --wait` started before the cluster waits for its MDS; the cluster
// grows by a rack (`cluster add --rack`) and rebalances onto it; a host dies, its OSTs are marked
// out, `ost rm` refuses while they are up, in or still needed, `pg wait-clean` waits with dead
// OSTs in the map, then `ost rm` removes them and the cluster is HEALTH_OK with every byte
// there; the dead host's old folder cannot come back into the map. Also: what an unreachable MDS
// or launcher is reported as.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { adminFetch } from '../helpers/admin-http.js';
import { CLI_SCRIPT, type CliResult, runCli } from '../helpers/cli.js';
import { freePortRange } from '../helpers/ports.js';

const OSS_AFTER_GROWTH = 6;
const FILES = 8;

/** Runs the CLI in the background, resolving `said` once stderr holds `text`. */
function spawnCli(args: string[], env: Record<string, string>, cwd: string, text: string) {
  const child = spawn(process.execPath, [CLI_SCRIPT, ...args], { cwd, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  let onSaid: () => void = () => {};
  const said = new Promise<void>((resolve) => {
    onSaid = resolve;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (stderr.includes(text)) onSaid();
  });
  const done = new Promise<CliResult>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, said, done };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

describe('the lifecycle of a running cluster: grow, lose a host, drain, remove', () => {
  const work = mkdtempSync(join(tmpdir(), 'stripefs-lifecycle-'));
  const children: ChildProcess[] = [];

  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(work, { recursive: true, force: true });
  });

  it('grows by a rack, loses a host, heals and removes it, from another folder', {
    timeout: 300_000,
  }, async () => {
    const basePort = await freePortRange(3 + 3 * OSS_AFTER_GROWTH);
    const env = { STRIPEFS_MDS: `127.0.0.1:${basePort}` };
    const admin = `http://127.0.0.1:${basePort + 1}`;
    const cli = (args: string[]) => runCli(args, { env, cwd: work, timeoutMs: 180_000 });
    const ok = async (args: string[]) => {
      const result = await cli(args);
      expect(result.code, `stripefs ${args.join(' ')}: ${result.stderr}`).toBe(0);
      return result;
    };
    const refused = async (args: string[], code: string) => {
      const result = await cli(args);
      expect(result.code, `stripefs ${args.join(' ')} should be refused`).toBe(1);
      expect(result.stderr).toContain(`stripefs: ${code} `);
      return result;
    };

    // health --wait, started before any MDS listens, waits for it.
    const waiting = spawnCli(
      ['health', '--wait', '120', '--expect-osts', '8'],
      env,
      work,
      'waiting for the MDS',
    );
    children.push(waiting.child);
    await waiting.said;
    const dataDir = join(work, 'cluster');
    const launcher = spawnCli(
      [
        'cluster',
        'up',
        '--data',
        dataDir,
        '--base-port',
        String(basePort),
        '--racks',
        '2',
        '--hosts-per-rack',
        '2',
        '--replicas',
        '3',
        '--ost-capacity',
        String(256 * 1024 * 1024),
      ],
      {},
      work,
      'OSTs up',
    );
    children.push(launcher.child);
    // The launcher's control API listens once its banner is out (after every OST is up).
    await new Promise<void>((resolve, reject) => {
      let banner = '';
      launcher.child.stdout?.on('data', (chunk: Buffer) => {
        banner += chunk.toString();
        if (banner.includes('Ctrl-C stops every process')) resolve();
      });
      launcher.child.once('exit', (code) => reject(new Error(`the launcher exited ${code}`)));
    });
    const healthy = await waiting.done;
    expect(healthy.code, healthy.stderr).toBe(0);
    expect(healthy.stdout).toMatch(/^HEALTH_OK/);

    const payloads = Array.from({ length: FILES }, (_, i) => randomBytes(1024 * 1024 + 4096 * i));
    for (const [i, payload] of payloads.entries()) {
      writeFileSync(join(work, `f${i}`), payload);
      await ok(['put', join(work, `f${i}`), `/f${i}`]);
    }

    // Grow by a rack: two OSSs start into the running cluster and PGs move onto them.
    const added = JSON.parse((await ok(['cluster', 'add', '--rack', '--json'])).stdout);
    expect(added).toEqual({ added: ['oss-host4', 'oss-host5'], osts: 12 });
    expect((await ok(['pg', 'wait-clean', '--timeout', '120'])).stdout).toMatch(/^clean after/);
    const onNewRack = await until('data on the new rack', async () => {
      const df = JSON.parse((await ok(['df', '--json'])).stdout) as {
        id: number;
        rack: string;
        usedBytes: number;
      }[];
      const rows = df.filter((row) => row.rack === 'rack2');
      expect(rows.map((row) => row.id).sort((a, b) => a - b)).toEqual([8, 9, 10, 11]);
      const bytes = rows.reduce((sum, row) => sum + row.usedBytes, 0);
      return bytes > 0 ? bytes : undefined;
    });
    expect(onNewRack).toBeGreaterThan(0);

    // Lose a host (the launcher found by STRIPEFS_MDS alone) and hold recovery back.
    expect(JSON.parse((await ok(['cluster', 'kill', '--host', 'host1', '--json'])).stdout)).toEqual({
      killed: ['oss-host1'],
    });
    const pause = (paused: boolean) =>
      adminFetch(`${admin}/api/recovery`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ paused }),
      });
    expect((await pause(true)).ok).toBe(true);
    await until('host1 down', async () => {
      const report = JSON.parse((await cli(['health', '--json'])).stdout) as { osts: { down: string[] } };
      return report.osts.down.length === 2 ? true : undefined;
    });
    await refused(['ost', 'rm', '0'], 'MAP_OST_UP');
    await refused(['ost', 'rm', '--host', 'host1'], 'MAP_OST_IN');
    await ok(['ost', 'out', '2']);
    await ok(['ost', 'out', '3']);
    const notDrained = await refused(['ost', 'rm', '--host', 'host1'], 'MAP_OST_NOT_DRAINED');
    expect(notDrained.stderr).toContain('stripefs pg wait-clean');

    // Heal with the dead OSTs still in the map, then remove them.
    expect((await pause(false)).ok).toBe(true);
    const clean = await ok(['pg', 'wait-clean', '--timeout', '120']);
    expect(clean.stderr).toMatch(/PGs: \d+\/\d+ clean/);
    expect(JSON.parse((await ok(['ost', 'rm', '--host', 'host1', '--json'])).stdout)).toMatchObject({
      removed: [2, 3],
    });
    const health = await ok(['health', '--wait', '60']);
    expect(health.stdout).toMatch(/^HEALTH_OK/);
    expect(health.stdout).toContain('OSTs: 10 total, 10 up, 10 in');
    for (const [i, payload] of payloads.entries()) {
      await ok(['get', `/f${i}`, join(work, `back${i}`)]);
      expect(readFileSync(join(work, `back${i}`)).equals(payload), `/f${i}`).toBe(true);
    }

    // The dead host's folder still holds its objects: it cannot come back into the map.
    expect(JSON.parse((await ok(['cluster', 'revive', '--host', 'host1', '--json'])).stdout)).toEqual({
      revived: ['oss-host1'],
    });
    const log = join(dataDir, 'logs', 'oss-host1.log');
    await until('the refusal in the OSS log', async () =>
      existsSync(log) && readFileSync(log, 'utf8').includes('removed from the map (stripefs ost rm)')
        ? true
        : undefined,
    );
    const df = JSON.parse((await ok(['df', '--json'])).stdout) as { host: string }[];
    expect(df).toHaveLength(10);
    expect(df.some((row) => row.host === 'host1')).toBe(false);

    const stopped = new Promise((resolve) => launcher.child.once('exit', resolve));
    launcher.child.kill('SIGTERM');
    expect(await stopped).toBe(0);
  });

  it('says what to do when no MDS or launcher answers', async () => {
    const port = await freePortRange(3);
    const env = { STRIPEFS_MDS: `127.0.0.1:${port}` };
    const df = await runCli(['df'], { env, cwd: work });
    expect(df.code).toBe(1);
    expect(df.stderr).toContain(`cannot reach the MDS at 127.0.0.1:${port} (STRIPEFS_MDS)`);
    expect(df.stderr).toContain('stripefs cluster up');
    expect(df.stderr).toContain('STRIPEFS_MDS');
    expect(df.stderr).not.toContain('Resolution note');
    const put = await runCli(['put', join(work, 'nothing'), '/x', '--mds', `127.0.0.1:${port}`], {
      cwd: work,
    });
    expect(put.stderr).toContain(`cannot reach the MDS at 127.0.0.1:${port} (--mds)`);
    const kill = await runCli(['cluster', 'kill', '--host', 'host0'], { env, cwd: work });
    expect(kill.code).toBe(1);
    expect(kill.stderr).toContain(`no local cluster launcher answers at http://127.0.0.1:${port + 2}`);
    expect(kill.stderr).toContain(`STRIPEFS_MDS=127.0.0.1:${port}`);
    const noState = await runCli(['cluster', 'status', '--data', join(work, 'none')], { cwd: work });
    expect(noState.stderr).toContain(
      `no running local cluster is recorded in ${join(work, 'none', 'cluster.json')}`,
    );
  });
});
