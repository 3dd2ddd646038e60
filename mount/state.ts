// Where a running mount can be found by `stripefs mount --stats` and
// `stripefs umount`: one small JSON file per mount point, named by a hash of
// its absolute path, holding the process id and the admin address.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export interface MountState {
  pid: number;
  mountpoint: string;
  adminUrl: string;
  mds: string;
}

/** The folder of mount state files: `runDir` (mount.runDir) or a default by user. */
export function stateDir(runDir: string): string {
  const uid = process.getuid?.() ?? 0;
  const dir = runDir || (uid === 0 ? '/run/stripefs' : join(tmpdir(), `stripefs-${uid}`));
  return join(dir, 'mounts');
}

function stateFile(runDir: string, mountpoint: string): string {
  const key = createHash('sha256').update(resolve(mountpoint)).digest('hex').slice(0, 16);
  return join(stateDir(runDir), `${key}.json`);
}

export function writeState(runDir: string, state: MountState): void {
  mkdirSync(stateDir(runDir), { recursive: true });
  writeFileSync(stateFile(runDir, state.mountpoint), `${JSON.stringify(state)}\n`);
}

export function readState(runDir: string, mountpoint: string): MountState | undefined {
  try {
    const state = JSON.parse(readFileSync(stateFile(runDir, mountpoint), 'utf8')) as MountState;
    return state.mountpoint === resolve(mountpoint) ? state : undefined;
  } catch {
    return undefined;
  }
}

export function removeState(runDir: string, mountpoint: string): void {
  rmSync(stateFile(runDir, mountpoint), { force: true });
}

/** True while a process with this id exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
