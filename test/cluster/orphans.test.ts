// A server whose spawner dies without stopping it (SIGKILL runs no handler) stops by itself:
// cli/process.ts names the spawner in STRIPEFS_PARENT_PID and common/parent-watch.ts watches it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(probe: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('an MDS whose spawner is SIGKILLed exits by itself', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'stripefs-orphan-'));
  const processModule = resolve('dist/cli/process.js');
  const spawner = `
    const { startProcess } = await import(${JSON.stringify(processModule)});
    const mds = await startProcess({ script: 'dist/mds/main.js', env: {
      STRIPEFS_MDS_DATA_DIR: ${JSON.stringify(dataDir)}, STRIPEFS_MDS_GRPC_PORT: '0', STRIPEFS_MDS_ADMIN_PORT: '0' } });
    console.log(JSON.stringify({ mdsPid: mds.child.pid }));
    setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['--input-type=module', '-e', spawner], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const mdsPid = await new Promise<number>((ok, fail) => {
      createInterface({ input: parent.stdout! }).once('line', (line) =>
        ok((JSON.parse(line) as { mdsPid: number }).mdsPid),
      );
      parent.once('exit', (code) => fail(new Error(`spawner exited (${code}) before its MDS was ready`)));
    });
    expect(alive(mdsPid)).toBe(true);
    parent.kill('SIGKILL');
    // Liveness bound only: the MDS checks its parent every second, and a loaded machine may be slow.
    await waitFor(() => !alive(mdsPid), 60_000, `MDS pid ${mdsPid} to exit after its spawner was killed`);
    expect(alive(mdsPid)).toBe(false);
  } finally {
    parent.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
