// stripefs mount MOUNTPOINT: the cluster as a POSIX file system (FUSE), in the
// foreground until Ctrl-C, SIGTERM or `stripefs umount MOUNTPOINT`; `--stats`
// prints a running mount's numbers. The mount code loads only for these
// commands (it pulls in the FUSE binding).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { loadConfig } from '../../common/config.js';
import { StripeError } from '../../common/errors.js';
import type { MountStatsSnapshot } from '../../mount/index.js';
import { type ConnectFlags, cliJobId } from '../connect.js';
import { formatBytes, table } from '../format.js';
import { printJson } from '../output.js';

interface MountFlags extends ConnectFlags {
  attrTimeoutMs?: string;
  entryTimeoutMs?: string;
  opTimeoutMs?: string;
  maxWrite?: string;
  maxRead?: string;
  allowOther?: boolean;
  runDir?: string;
  stats?: boolean;
  json?: boolean;
  debug?: boolean;
}

function configOf(flags: MountFlags) {
  return loadConfig({
    env: process.env,
    overrides: {
      'mds.address': flags.mds,
      'mount.attrTimeoutMs': flags.attrTimeoutMs,
      'mount.entryTimeoutMs': flags.entryTimeoutMs,
      'mount.opTimeoutMs': flags.opTimeoutMs,
      'mount.maxWriteBytes': flags.maxWrite,
      'mount.maxReadBytes': flags.maxRead,
      'mount.allowOther': flags.allowOther === false ? 'false' : undefined,
      'mount.runDir': flags.runDir,
    },
  });
}

export function statsText(s: MountStatsSnapshot): string {
  const rows = Object.entries(s.ops)
    .sort(([, a], [, b]) => b.count - a.count)
    .map(([op, o]) => [
      op,
      String(o.count),
      String(o.errors),
      o.count ? (o.totalMs / o.count).toFixed(3) : '-',
      o.maxMs.toFixed(1),
    ]);
  const errnos = Object.entries(s.errnos)
    .map(([e, n]) => `${e} ${n}`)
    .join(', ');
  return [
    `${s.mountpoint}: up ${(s.uptimeMs / 1000).toFixed(0)} s, ${s.openFiles} open files, ` +
      `read ${formatBytes(s.bytesRead)}, written ${formatBytes(s.bytesWritten)}`,
    `attribute cache: ${s.attrCache.entries} entries, ${s.attrCache.hits} hits, ${s.attrCache.misses} misses`,
    `errors: ${errnos || 'none'}`,
    table(['op', 'count', 'errors', 'mean ms', 'max ms'], rows),
  ].join('\n');
}

async function printStats(mountpoint: string, flags: MountFlags): Promise<void> {
  const { readState } = await import('../../mount/index.js');
  const config = configOf(flags);
  const state = readState(config['mount.runDir'], mountpoint);
  if (!state) throw new StripeError('MOUNT_POINT_INVALID', `no stripefs mount is running at ${mountpoint}`);
  const response = await fetch(`${state.adminUrl}/stats`).catch(() => {
    throw new StripeError(
      'MOUNT_POINT_INVALID',
      `the mount at ${mountpoint} (pid ${state.pid}) does not answer`,
    );
  });
  const stats = (await response.json()) as MountStatsSnapshot;
  if (flags.json) printJson(stats);
  else process.stdout.write(`${statsText(stats)}\n`);
}

async function mount(mountpoint: string, flags: MountFlags): Promise<void> {
  if (flags.stats) return printStats(mountpoint, flags);
  const config = configOf(flags);
  // The logger (pino) and the mount load only for this command (cli/program.ts stays light).
  const { startMount } = await import('../../mount/index.js');
  const { createLogger } = await import('../../common/logging.js');
  const log = createLogger('mount', config['log.level']);
  const running = await startMount({
    mountpoint,
    mds: config['mds.address'],
    jobId: cliJobId(),
    runDir: config['mount.runDir'],
    attrTimeoutMs: config['mount.attrTimeoutMs'],
    entryTimeoutMs: config['mount.entryTimeoutMs'],
    opTimeoutMs: config['mount.opTimeoutMs'],
    maxWriteBytes: config['mount.maxWriteBytes'],
    maxReadBytes: config['mount.maxReadBytes'],
    allowOther: config['mount.allowOther'],
    debug: flags.debug ?? false,
    log,
  });
  const stop = (signal: string): void => {
    log.info({ signal }, 'unmounting');
    void running.stop();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  const adminPort = Number(new URL(running.adminUrl).port);
  // One line, as the servers' ready lines (cli/process.ts reads it).
  const ready = { event: 'ready', server: 'mount', grpcPort: 0, adminPort, mountpoint: running.mountpoint };
  if (flags.json) process.stdout.write(`${JSON.stringify(ready)}\n`);
  else
    process.stderr.write(
      `stripefs: ${running.mountpoint} mounted (MDS ${config['mds.address']}, pid ${process.pid}); ` +
        `numbers: stripefs mount --stats ${running.mountpoint}; stop: stripefs umount ${running.mountpoint} or Ctrl-C\n`,
    );
  await running.stopped;
  process.stderr.write(`stripefs: ${running.mountpoint} unmounted\n`);
}

async function umount(mountpoint: string, flags: MountFlags): Promise<void> {
  const { alive, detachMount, MOUNT_LIMITS, readState, removeState } = await import('../../mount/index.js');
  const config = configOf(flags);
  const state = readState(config['mount.runDir'], mountpoint);
  if (state && alive(state.pid)) {
    // The mount process flushes its open files, unmounts and exits.
    process.kill(state.pid, 'SIGTERM');
    const deadline = Date.now() + MOUNT_LIMITS.umountWaitMs;
    while (alive(state.pid) && Date.now() < deadline) await sleep(100);
    if (!alive(state.pid)) return;
    process.stderr.write(`stripefs: pid ${state.pid} did not stop in time: detaching ${mountpoint}\n`);
  }
  // No process (it was killed) or one that hangs: detach what the kernel still has mounted.
  if (state) removeState(config['mount.runDir'], mountpoint);
  await detachMount(mountpoint);
}

export function registerMountCommands(program: Command): void {
  program
    .command('mount <mountpoint>')
    .description(
      'mount the cluster at MOUNTPOINT with FUSE (needs root, /dev/fuse and libfuse2); runs until Ctrl-C or stripefs umount',
    )
    .option('--mds <host:port>', 'MDS address')
    .option('--attr-timeout-ms <ms>', 'kernel attribute cache time (mount.attrTimeoutMs)')
    .option('--entry-timeout-ms <ms>', 'kernel name lookup cache time (mount.entryTimeoutMs)')
    .option('--op-timeout-ms <ms>', 'a call not answered in this long fails (mount.opTimeoutMs)')
    .option('--max-write <bytes>', 'largest write the kernel sends (mount.maxWriteBytes)')
    .option('--max-read <bytes>', 'largest read the kernel sends (mount.maxReadBytes)')
    .option('--no-allow-other', 'only the user who mounted may use the mount')
    .option('--run-dir <dir>', 'where running mounts are recorded (mount.runDir)')
    .option('--stats', 'print the numbers of the mount running at MOUNTPOINT and exit')
    .option('--debug', "print every FUSE request (libfuse's debug output)")
    .option('--json', 'a JSON ready line (or, with --stats, JSON numbers)')
    .action((mountpoint: string, flags: MountFlags) => mount(mountpoint, flags));
  program
    .command('umount <mountpoint>')
    .description(
      'stop the mount at MOUNTPOINT: its open files are flushed first; a mount whose process died is detached',
    )
    .option('--run-dir <dir>', 'where running mounts are recorded (mount.runDir)')
    .action((mountpoint: string, flags: MountFlags) => umount(mountpoint, flags));
}
