// Starts a real stripefs server (or any node script that prints the ready
// line) as a child process, waits for its ready line, and stops it. The local
// launcher uses it, and so does every test that needs real MDS and OSS
// processes (through test/helpers/process.ts).
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { PARENT_PID_ENV } from '../common/parent-watch.js';

export interface ReadyLine {
  event: 'ready';
  server: string;
  grpcPort: number;
  adminPort: number;
  [key: string]: unknown;
}

export interface StartedProcess {
  readonly ready: ReadyLine;
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Last lines the process wrote to stderr (its log), for failure messages. */
  stderrTail(): string;
  /** SIGTERM, then SIGKILL after graceMs; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export interface StartOptions {
  script: string;
  args?: string[];
  env?: Record<string, string>;
  readyTimeoutMs?: number;
  /** Also append the child's stderr (its log) to this stream. */
  logTo?: NodeJS.WritableStream;
  /**
   * A command that execs node, put in front of it: e.g. ['ip', 'netns',
   * 'exec', NAME] runs the server inside a network namespace.
   */
  execVia?: string[];
}

const STDERR_TAIL_LINES = 40;

/**
 * Every child still running. When this process exits (a launcher that
 * crashes, a test worker that gives up on a timed-out test) they are killed
 * with it. A parent killed with SIGKILL runs no handler, so each child is also told our pid
 * (STRIPEFS_PARENT_PID) and stops by itself once we are gone (common/parent-watch.ts).
 */
const liveChildren = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});

/**
 * Node flags a server is started with (the launcher, the test and bench clusters, the Dockerfile
 * and docker-compose.yml give them). The MDS's: an old generation of 128 MiB before V8 sizes it by
 * what survives. Its live heap is small (about 20 MiB), and once V8 had sized the old generation
 * by it, serving files' bytes on the MDS (a reply of up to 4 MiB per call) ran a mark-compact
 * every 2 MiB or so promoted: 17-29 per 3,000 files read, and 0.30-0.39 ms of MDS CPU per file
 * against 0.10-0.15 with the flag (0-1 of them), in alternate rounds at load 37-45
 * (docs/ARCHITECTURE.md, "The MDS's old generation starts at 128 MiB").
 */
export const MDS_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=128'];

/**
 * The OSS's, for the same reason: its live heap is about 20 MiB, and with V8 sizing the old
 * generation by it, 64 KiB writes (16 in flight, 6 OSSs) ran a mark-compact or an incremental
 * marking about every 2 s per OSS, 20-50 per 15 s phase across six OSSs, none with the flag
 * (docs/ARCHITECTURE.md, "The OSS's old generation starts at 128 MiB too").
 */
export const OSS_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=128'];

/** The Node flags of a server's entry point (`dist/mds/main.js` ...): the MDS's and the OSS's, none for others. */
export function nodeFlagsOf(script: string): string[] {
  const path = script.replace(/\\/g, '/');
  if (path.endsWith('mds/main.js')) return [...MDS_NODE_FLAGS];
  if (path.endsWith('oss/main.js')) return [...OSS_NODE_FLAGS];
  return [];
}

export async function startProcess(options: StartOptions): Promise<StartedProcess> {
  const [command, ...prefix] = [...(options.execVia ?? []), process.execPath];
  const node = [...prefix, ...nodeFlagsOf(options.script), options.script, ...(options.args ?? [])];
  const child = spawn(command as string, node, {
    env: {
      ...process.env,
      STRIPEFS_LOG_LEVEL: 'warn',
      [PARENT_PID_ENV]: String(process.pid),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    options.logTo?.write(`${line}\n`);
    tail.push(line);
    if (tail.length > STDERR_TAIL_LINES) tail.shift();
  });
  liveChildren.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      liveChildren.delete(child);
      resolve({ code, signal });
    });
  });
  const ready = await new Promise<ReadyLine>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not ready in time: it is not left running without an owner.
      child.kill('SIGKILL');
      reject(new Error(`${options.script} not ready in time:\n${tail.join('\n')}`));
    }, options.readyTimeoutMs ?? 60_000);
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as ReadyLine;
        if (parsed.event === 'ready') {
          clearTimeout(timer);
          resolve(parsed);
        }
      } catch {
        // not the ready line
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`${options.script} exited (${code ?? signal}) before ready:\n${tail.join('\n')}`));
    });
  });
  const kill = async (signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const stop = async (graceMs = 5_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { ready, child, exited, stderrTail: () => tail.join('\n'), stop, kill };
}
