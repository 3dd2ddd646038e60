// `stripefs mount`: the client library behind a FUSE mount point. Connects,
// mounts, serves the stats at a small admin address, records where it can be
// found (mount/state.ts), and on stop (SIGINT, SIGTERM, `stripefs umount`)
// flushes every open file, unmounts and leaves nothing behind.
import { statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { type ClientLimits, StripeClient } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import type { Logger } from '../common/logging.js';
import { AttrCache } from './attr-cache.js';
import type { MountContext } from './context.js';
import { type FuseOps, type FuseOptions, loadFuse } from './fuse-binding.js';
import { MOUNT_LIMITS } from './limits.js';
import { OpenFiles } from './open-files.js';
import { fileOps, ioOps } from './ops-data.js';
import { attrOps, entryOps, lookupOps, xattrOps } from './ops-meta.js';
import { removeState, writeState } from './state.js';
import { MountStats, type MountStatsSnapshot, statsToMetrics } from './stats.js';

export interface MountOptions extends FuseOptions {
  mountpoint: string;
  mds: string;
  runDir: string;
  log: Logger;
  limits?: Partial<ClientLimits>;
  /** The job the mount's requests are counted under (default: the client library's, resolveJobId). */
  jobId?: string;
}

export interface RunningMount {
  readonly mountpoint: string;
  readonly adminUrl: string;
  /** The binding was rebuilt with correct times (scripts/build-fuse.mjs); false: utimens is unreliable. */
  readonly bindingRebuilt: boolean;
  stats(): MountStatsSnapshot;
  /** Flushes open files (bounded), unmounts, closes the client. Safe to call twice. */
  stop(): Promise<void>;
  /** Resolves once stopped. */
  readonly stopped: Promise<void>;
}

function checkMountpoint(mountpoint: string): void {
  let isDir = false;
  try {
    isDir = statSync(mountpoint).isDirectory();
  } catch {
    throw new StripeError('MOUNT_POINT_INVALID', `${mountpoint} does not exist: mkdir it first`);
  }
  if (!isDir) throw new StripeError('MOUNT_POINT_INVALID', `${mountpoint} is not a directory`);
  const parent = statSync(resolve(mountpoint, '..'));
  if (parent.dev !== statSync(mountpoint).dev)
    throw new StripeError(
      'MOUNT_POINT_INVALID',
      `${mountpoint} is already a mount point: stripefs umount ${mountpoint}`,
    );
}

function adminServer(stats: () => MountStatsSnapshot): Server {
  return createServer((req, res) => {
    if (req.url === '/stats') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(stats()));
    } else if (req.url === '/metrics') {
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
      res.end(statsToMetrics(stats()));
    } else {
      res.writeHead(404).end();
    }
  });
}

async function flushAll(ctx: MountContext): Promise<void> {
  const flushing = Promise.allSettled(
    ctx.files.all().map((file) => file.lock.exclusive(() => file.handle.close())),
  );
  const timeout = new Promise<void>((done) => setTimeout(done, MOUNT_LIMITS.stopFlushMs).unref());
  await Promise.race([flushing, timeout]);
}

export async function startMount(options: MountOptions): Promise<RunningMount> {
  const mountpoint = resolve(options.mountpoint);
  const binding = loadFuse();
  checkMountpoint(mountpoint);
  const client = await StripeClient.connect({
    mds: options.mds,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.jobId ? { jobId: options.jobId } : {}),
  });
  const ctx: MountContext = {
    client,
    attrs: new AttrCache(options.attrTimeoutMs),
    files: new OpenFiles(),
    stats: new MountStats(),
    log: options.log,
    uid: process.getuid?.() ?? 0,
    gid: process.getgid?.() ?? 0,
  };
  const stats = (): MountStatsSnapshot =>
    ctx.stats.snapshot({
      mountpoint,
      openFiles: ctx.files.size,
      attrCache: { entries: ctx.attrs.size, hits: ctx.attrs.hits, misses: ctx.attrs.misses },
      bindingRebuilt: binding.rebuilt,
    });
  const ops: FuseOps = {
    init: (cb) => cb(0),
    ...lookupOps(ctx),
    ...entryOps(ctx),
    ...attrOps(ctx),
    ...xattrOps(ctx),
    ...fileOps(ctx),
    ...ioOps(ctx),
  };
  const session = binding.create(mountpoint, ops, options);
  const admin = adminServer(stats);
  try {
    await session.mount();
    await new Promise<void>((done) => admin.listen(0, '127.0.0.1', done));
  } catch (err) {
    admin.close();
    await client.close();
    throw err instanceof StripeError
      ? err
      : new StripeError('MOUNT_UNAVAILABLE', `mounting ${mountpoint} failed: ${(err as Error).message}`);
  }
  const adminUrl = `http://127.0.0.1:${(admin.address() as AddressInfo).port}`;
  writeState(options.runDir, { pid: process.pid, mountpoint, adminUrl, mds: options.mds });
  if (!binding.rebuilt)
    options.log.warn(
      'fuse-native runs on its prebuild: times set through the mount (touch, cp -p, tar, rsync) are wrong; run npm run build with libfuse2 installed',
    );
  let stopping: Promise<void> | undefined;
  let markStopped!: () => void;
  const stopped = new Promise<void>((done) => {
    markStopped = done;
  });
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await flushAll(ctx);
      await session.unmount().catch((err: unknown) => options.log.warn({ err }, 'unmount failed'));
      removeState(options.runDir, mountpoint);
      admin.close();
      await client.close();
      markStopped();
    })();
    return stopping;
  };
  return { mountpoint, adminUrl, bindingRebuilt: binding.rebuilt, stats, stop, stopped };
}
