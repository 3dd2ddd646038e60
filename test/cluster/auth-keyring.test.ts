// `stripefs cluster up` (what `npm start` runs) with no keyring configured:
// the MDS writes the admin keyring into the data folder (mode 0600), the OSSs sign
// with a service identity's keyring beside it, and the
// CLI run from the folder above it signs with it without any flag, so the
// README's tour works; from another folder the same command is refused with
// AUTH_REQUIRED and says where a keyring comes from.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { httpAuthorization } from '../../common/auth/http-auth.js';
import { generateIdentity } from '../../common/auth/keyring.js';
import { CallSigner } from '../../common/auth/proof.js';
import { CLI_SCRIPT, runCli, stopLauncher } from '../helpers/cli.js';
import { freePortRange } from '../helpers/ports.js';

describe('cluster up makes the admin keyring the CLI uses', () => {
  const home = mkdtempSync(join(tmpdir(), 'stripefs-keyring-up-'));
  let launcher: ChildProcess | undefined;

  afterAll(async () => {
    await stopLauncher(launcher);
    rmSync(home, { recursive: true, force: true });
  });

  it('writes data/admin.keyring 0600 and the CLI from that folder signs with it', async () => {
    const basePort = await freePortRange(3 + 3);
    // No keyring from the suite: this is a user's first `npm start`.
    const env = { STRIPEFS_KEYRING: '', STRIPEFS_MDS: `127.0.0.1:${basePort}` };
    const child = spawn(
      process.execPath,
      [
        CLI_SCRIPT,
        'cluster',
        'up',
        '--racks',
        '1',
        '--hosts-per-rack',
        '1',
        '--osts-per-host',
        '1',
        '--base-port',
        String(basePort),
      ],
      { cwd: home, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    launcher = child;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      let err = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ctrl-C')) resolve();
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      child.once('exit', (code) => reject(new Error(`launcher exited ${code}\n${err}`)));
    });
    expect(statSync(join(home, 'data', 'admin.keyring')).mode & 0o777).toBe(0o600);

    const listed = await runCli(['auth', 'ls', '--json'], { cwd: home, env });
    expect(listed.code, listed.stderr).toBe(0);
    // The OSSs sign as a service identity of their own (data/oss.keyring), not as the admin.
    expect(JSON.parse(listed.stdout)).toEqual([
      expect.objectContaining({ name: 'admin', caps: 'rw /', admin: true, service: false }),
      expect.objectContaining({ name: 'oss', caps: '', admin: false, service: true }),
    ]);
    expect(statSync(join(home, 'data', 'oss.keyring')).mode & 0o777).toBe(0o600);
    const sessions = await runCli(['client', 'ls', '--json'], { cwd: home, env });
    const byIdentity = (JSON.parse(sessions.stdout) as { identity: string }[]).map((c) => c.identity);
    expect(byIdentity).toContain('oss');
    writeFileSync(join(home, 'sample.bin'), Buffer.alloc(100_000, 7));
    const put = await runCli(['put', join(home, 'sample.bin'), '/sample.bin'], { cwd: home, env });
    expect(put.code, put.stderr).toBe(0);

    const elsewhere = join(home, 'elsewhere');
    mkdirSync(elsewhere);
    const refused = await runCli(['ls', '/'], { cwd: elsewhere, env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('AUTH_REQUIRED');
    expect(refused.stderr).toContain('keyring');
    const flagged = await runCli(['--keyring', join(home, 'data', 'admin.keyring'), 'ls', '/'], {
      cwd: elsewhere,
      env,
    });
    expect(flagged.code, flagged.stderr).toBe(0);
    expect(flagged.stdout).toContain('sample.bin');

    // The launcher's control API takes only requests the admin keyring signed.
    const control = `http://127.0.0.1:${basePort + 2}`;
    const codeAt = async (path: string, init: RequestInit = {}) =>
      ((await (await fetch(`${control}${path}`, init)).json()) as { code?: string }).code ?? 'OK';
    const stranger = CallSigner.of(generateIdentity('admin'));
    const body = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"all":true}' };
    expect(await codeAt('/status')).toBe('AUTH_REQUIRED');
    expect(await codeAt('/pause', body)).toBe('AUTH_REQUIRED');
    expect(
      await codeAt('/status', {
        headers: { authorization: httpAuthorization(stranger, 'GET', `${control}/status`) },
      }),
    ).toBe('AUTH_INVALID');
    const status = await runCli(['cluster', 'status', '--json'], { cwd: home, env });
    expect(status.code, status.stderr).toBe(0);
    const processes = (JSON.parse(status.stdout) as { processes: { running: boolean; paused: boolean }[] })
      .processes;
    expect(processes.every((p) => p.running && !p.paused)).toBe(true);
  });
});
