// Runs the built `stripefs` CLI as a user would, capturing its output and exit code.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';

/** The built CLI, by absolute path: a test may run it from another folder (`cwd`). */
export const CLI_SCRIPT = resolve('dist/cli/main.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  options: { env?: Record<string, string>; input?: Buffer; timeoutMs?: number; cwd?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_SCRIPT, ...args], {
      env: { ...process.env, ...options.env },
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`stripefs ${args.join(' ')} timed out\n${Buffer.concat(err).toString()}`));
    }, options.timeoutMs ?? 180_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
    child.stdin.end(options.input);
  });
}

/** Stops a `stripefs cluster up` launcher (SIGTERM stops its servers) and waits for it to exit. */
export async function stopLauncher(launcher: ChildProcess | undefined): Promise<void> {
  if (!launcher || launcher.exitCode !== null) return;
  const exited = new Promise((resolve) => launcher.once('exit', resolve));
  launcher.kill('SIGTERM');
  await exited;
}
