// `stripefs cluster up` as a user runs it: it starts 1 MDS and 6 OSSs as its
// own children, serves a put/get, kills and revives a host on request, stops
// every child on SIGTERM (no process left, a paused one too), pauses and
// resumes a host, and comes back on the same data.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { eventually } from '../helpers/eventually.js';
import { freePortRange } from '../helpers/ports.js';

const PORTS_NEEDED = 3 + 3 * 6;

function startLauncher(dataDir: string, basePort: number): { child: ChildProcess; up: Promise<string> } {
  const child = spawn(
    process.execPath,
    [
      'dist/cli/main.js',
      'cluster',
      'up',
      '--data',
      dataDir,
      '--base-port',
      String(basePort),
      '--replicas',
      '2',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const up = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('Ctrl-C stops every process')) resolve(stdout);
    });
    child.once('exit', (code) => reject(new Error(`launcher exited ${code}\n${stderr}`)));
  });
  return { child, up };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function stopLauncher(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('stripefs cluster up', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stripefs-launcher-'));
  const cleanup: ChildProcess[] = [];

  afterAll(() => {
    for (const child of cleanup) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts, serves a put/get, kills and revives a host, stops every child, restarts on its data', async () => {
    const basePort = await freePortRange(PORTS_NEEDED);
    const env = { STRIPEFS_MDS: `127.0.0.1:${basePort}` };
    const first = startLauncher(dataDir, basePort);
    cleanup.push(first.child);
    const banner = await first.up;
    expect(banner).toContain(`127.0.0.1:${basePort}`);
    expect(banner).toContain(`http://127.0.0.1:${basePort + 1}/api/cluster`);

    const status = await runCli(['cluster', 'status', '--data', dataDir, '--json']);
    expect(status.code).toBe(0);
    const processes = (
      JSON.parse(status.stdout) as { processes: { name: string; pid: number; running: boolean }[] }
    ).processes;
    expect(processes).toHaveLength(7);
    expect(processes.every((p) => p.running && alive(p.pid))).toBe(true);

    const local = join(dataDir, 'payload.bin');
    const payload = randomBytes(3 * 1024 * 1024 + 17);
    writeFileSync(local, payload);
    const put = await runCli(['put', local, '/payload.bin'], { env });
    expect(put.code, put.stderr).toBe(0);

    const killed = await runCli(['cluster', 'kill', '--data', dataDir, '--host', 'host0', '--json']);
    expect(JSON.parse(killed.stdout)).toEqual({ killed: ['oss-host0'] });
    const hostPid = processes.find((p) => p.name === 'oss-host0')!.pid;
    expect(alive(hostPid)).toBe(false);
    // Once the MDS marks the host's OSTs down, get --stats lists them as down while it reads around them.
    const downBack = join(dataDir, 'down.bin');
    await eventually(
      async () => {
        const got = await runCli(['get', '--stats', '/payload.bin', downBack], { env });
        expect(got.code, got.stderr).toBe(0);
        expect(readFileSync(downBack).equals(payload)).toBe(true);
        if (/ost\d+ .* down\n/.test(got.stderr)) return got;
        throw new Error(got.stderr);
      },
      { timeoutMs: 60_000, what: "get --stats to list the killed host's OSTs as down", intervalMs: 250 },
    );
    const badTarget = await runCli(['cluster', 'kill', '--data', dataDir, '--host', 'nosuchhost']);
    expect(badTarget.code).not.toBe(0);
    expect(badTarget.stderr).toContain('no OSS matches');

    const revived = await runCli(['cluster', 'revive', '--data', dataDir, '--all', '--json']);
    expect(JSON.parse(revived.stdout)).toEqual({ revived: ['oss-host0'] });

    // A hung host: paused, still alive, the file still reads back; resumed, it runs again.
    const paused = await runCli(['cluster', 'pause', '--data', dataDir, '--host', 'host1', '--json']);
    expect(JSON.parse(paused.stdout)).toEqual({ paused: ['oss-host1'] });
    const stateOf = async (name: string) =>
      (
        JSON.parse((await runCli(['cluster', 'status', '--data', dataDir, '--json'])).stdout) as {
          processes: { name: string; running: boolean; paused: boolean }[];
        }
      ).processes.find((p) => p.name === name);
    expect(await stateOf('oss-host1')).toMatchObject({ running: true, paused: true });
    const whilePaused = join(dataDir, 'paused.bin');
    const pausedGet = await runCli(['get', '/payload.bin', whilePaused], { env });
    expect(pausedGet.code, pausedGet.stderr).toBe(0);
    expect(readFileSync(whilePaused).equals(payload)).toBe(true);
    const resumed = await runCli(['cluster', 'resume', '--data', dataDir, '--host', 'host1', '--json']);
    expect(JSON.parse(resumed.stdout)).toEqual({ resumed: ['oss-host1'] });
    expect(await stateOf('oss-host1')).toMatchObject({ running: true, paused: false });
    // Stopping the launcher with a host paused still ends every process (checked below).
    const pausedAgain = await runCli(['cluster', 'pause', '--data', dataDir, '--host', 'host2', '--json']);
    expect(JSON.parse(pausedAgain.stdout)).toEqual({ paused: ['oss-host2'] });

    const stopCode = await stopLauncher(first.child);
    expect(stopCode).toBe(0);
    const after = JSON.parse(
      (await runCli(['cluster', 'status', '--data', dataDir, '--json']).catch(() => ({ stdout: '{}' })))
        .stdout || '{}',
    );
    expect(after.processes).toBeUndefined();
    for (const p of processes) expect(alive(p.pid), p.name).toBe(false);

    const second = startLauncher(dataDir, basePort);
    cleanup.push(second.child);
    await second.up;
    const out = join(dataDir, 'back.bin');
    const get = await runCli(['get', '/payload.bin', out], { env });
    expect(get.code, get.stderr).toBe(0);
    expect(readFileSync(out).equals(payload)).toBe(true);
    expect(await stopLauncher(second.child)).toBe(0);
  });
});
