// A real cluster (test/helpers/cluster.ts) mounted with the real CLI
// (`stripefs mount --json`, its ready line) at a fresh folder, for the mount
// tests and the mount bench. mountSupport() says why FUSE cannot be used here
// (not root, no /dev/fuse, no libfuse2, no binding) so callers skip loudly.
import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type StartedProcess, startProcess } from '../helpers/process.js';

export const CLI_SCRIPT = 'dist/cli/main.js';
/** Generous: on a loaded shared host a mount's start (connect, map, mount) can take a while. */
const MOUNT_READY_TIMEOUT_MS = 120_000;
/** beforeAll/afterAll of the mount tests: a cluster start plus a mount. */
export const MOUNT_HOOK_TIMEOUT_MS = 300_000;

/** Why the mount tests cannot run here, or undefined when they can. */
export function mountSupport(): string | undefined {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not root (FUSE mounts in the tests need root)';
  const probe = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', "import('./dist/mount/index.js').then((m) => m.checkFuse())"],
    { encoding: 'utf8' },
  );
  if (probe.status !== 0)
    return (probe.stderr.match(/MOUNT_UNAVAILABLE[^\n]*|Error[^\n]*/)?.[0] ?? probe.stderr).trim();
  return undefined;
}

export interface Mounted {
  mountpoint: string;
  /** The MDS the mount speaks to. */
  mds: string;
  process: StartedProcess;
  adminUrl: string;
  runDir: string;
  /** SIGTERM (the CLI unmounts), then waits; detaches whatever is left. */
  stop(): Promise<void>;
}

/** `stripefs mount` of the cluster at `mdsAddress` on a fresh folder (`env`: more of its environment). */
export async function mountCluster(
  mdsAddress: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Mounted> {
  const base = mkdtempSync(join(tmpdir(), 'stripefs-mnt-'));
  const mountpoint = join(base, 'mnt');
  const runDir = join(base, 'run');
  spawnSync('mkdir', ['-p', mountpoint]);
  const detach = async (): Promise<void> => {
    await new Promise<void>((done) => execFile('fusermount', ['-uz', mountpoint], () => done()));
    rmSync(base, { recursive: true, force: true });
  };
  let proc: StartedProcess;
  try {
    proc = await startProcess({
      script: CLI_SCRIPT,
      args: ['mount', mountpoint, '--mds', mdsAddress, '--run-dir', runDir, '--json', ...args],
      env,
      readyTimeoutMs: MOUNT_READY_TIMEOUT_MS,
    });
  } catch (err) {
    // A mount that was not ready in time was killed: nothing of it stays mounted.
    await detach();
    throw err;
  }
  const stop = async (): Promise<void> => {
    await proc.stop(30_000);
    await detach();
  };
  return {
    mountpoint,
    mds: mdsAddress,
    process: proc,
    adminUrl: `http://127.0.0.1:${proc.ready.adminPort}`,
    runDir,
    stop,
  };
}

/** Whether the kernel has something mounted at `path` (also a dead mount, whose stat fails with ENOTCONN). */
export function isMounted(path: string): boolean {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1] === path);
}

/** Runs a shell command (bash -c); resolves with its output, rejects with it on a non-zero exit. */
export function sh(command: string, options: { cwd?: string; timeoutMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      ['-c', command],
      { cwd: options.cwd, timeout: options.timeoutMs ?? 300_000, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${command}\nexit ${err.code ?? err.signal}\n${stdout}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}
