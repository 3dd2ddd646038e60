// A server started by a launcher or a test (cli/process.ts sets STRIPEFS_PARENT_PID) stops when
// that parent is gone. A parent killed with SIGKILL (a test worker given up on, a launcher killed
// by hand) cannot stop its children, and orphaned clusters used to pile up, heartbeating and
// holding ports, until the machine was rebooted. Servers started any other way (compose, a
// service manager, by hand) do not watch.

/** How often a server checks that its parent is still there. */
export const PARENT_CHECK_INTERVAL_MS = 1_000;

/** The environment variable through which a spawner names itself. */
export const PARENT_PID_ENV = 'STRIPEFS_PARENT_PID';

/**
 * Calls `onOrphaned` once when this process's parent is no longer the process named in
 * STRIPEFS_PARENT_PID (it exited and this process was re-parented). Returns a stop function;
 * the timer never keeps the process alive.
 */
export function watchParent(env: NodeJS.ProcessEnv, onOrphaned: () => void): () => void {
  const raw = env[PARENT_PID_ENV];
  if (raw === undefined || raw === '') return () => {};
  const parentPid = Number(raw);
  if (!Number.isInteger(parentPid) || parentPid <= 0) {
    throw new Error(`${PARENT_PID_ENV}=${raw} is not a process id; unset it or give the spawner's pid`);
  }
  const timer = setInterval(() => {
    if (process.ppid === parentPid) return;
    clearInterval(timer);
    onOrphaned();
  }, PARENT_CHECK_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
