// Builds an MDS from a configuration: database, namespace, cluster map,
// destroy worker, gRPC and admin servers. Tests start it on port 0, in
// process or through mds/main.ts as a real child process.
import { mkdirSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { adminServerOptions } from '../common/admin-https.js';
import {
  bindServer,
  ChannelCache,
  type Clock,
  type Config,
  createLogger,
  type Logger,
  SERVER_OPTIONS,
  shutdownServer,
  systemClock,
} from '../common/index.js';
import { configureTls } from '../common/tls.js';
import { contract } from '../proto/index.js';
import { buildAdmin } from './admin.js';
import { Gate } from './auth/access.js';
import { guardAdminHttp } from './auth/http.js';
import { openAudit, openAuth, ticketing } from './auth/open.js';
import { ClusterService } from './cluster/service.js';
import { GroupCommitter } from './commit.js';
import { ClusterWatch } from './dashboard/watch.js';
import { type MdsDb, openDb } from './db.js';
import { DestroyWorker } from './destroy/worker.js';
import { verifyDom } from './dom-verify.js';
import { type FrameServer, framedHandlers, startFrameServer } from './frame-server.js';
import { healthHandlers, mdsHandlers } from './grpc-service.js';
import { configuredDefault } from './layout.js';
import { createMdsMetrics, type MdsMetrics, registerChannelGauge } from './metrics.js';
import { Namespace } from './namespace.js';
import { recoveryView, registerRecoveryAdmin, registerRecoveryMetrics } from './recovery/admin.js';
import { WeightPhases } from './recovery/phases.js';
import { ScrubService, scrubSettingsOf } from './recovery/scrub-service.js';
import { RecoveryService } from './recovery/service.js';
import { OstHealthTracker } from './recovery/slow-osts.js';

/** How long close() lets in-flight calls finish before cutting them. */
export const SHUTDOWN_GRACE_MS = 2_000;

export interface MdsDeps {
  clock?: Clock;
  logger?: Logger;
  /** A failed database write; by default the process exits so it restarts from disk. */
  onFatal?: (err: unknown) => void;
}

export interface MdsHandle {
  grpcPort: number;
  adminPort: number;
  /** The framed path's port (0: mds.frames is off). */
  framePort: number;
  close(): Promise<void>;
}

async function openCluster(
  config: Config,
  db: MdsDb,
  committer: GroupCommitter,
  clock: Clock,
  logger: Logger,
): Promise<ClusterService> {
  const cluster = new ClusterService(
    db,
    committer,
    clock,
    {
      heartbeatTimeoutMs: config['mds.heartbeatTimeoutMs'],
      outGraceMs: config['mds.outGraceMs'],
      heartbeatIntervalMs: config['mds.heartbeatIntervalMs'],
      pgCount: config['mds.pgCount'],
    },
    logger,
  );
  await cluster.init();
  return cluster;
}

/** The port a listening fastify server got (`fallback` when it says none). */
function portOf(app: { server: { address(): unknown } }, fallback: number): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? (address as { port: number }).port : fallback;
}

/** A failed database write ends the process (exit 70): its state is no longer what it answered. */
function exitOnFatal(logger: Logger): (err: unknown) => void {
  return (err) => {
    logger.fatal({ err }, 'database write failed; exiting');
    process.exit(70);
  };
}

/** The framed path beside gRPC (mds/frame-server.ts), serving `handlers`; none with mds.frames off. */
function framesOf(
  config: Config,
  service: grpc.ServiceDefinition,
  handlers: object,
  metrics: MdsMetrics,
): Promise<FrameServer | undefined> {
  if (!config['mds.frames']) return Promise.resolve(undefined);
  const served = framedHandlers(service, handlers);
  return startFrameServer(config['mds.bindHost'], config['mds.framePort'], served, metrics.framedCalls);
}

export async function buildMds(config: Config, deps: MdsDeps = {}): Promise<MdsHandle> {
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? createLogger('mds', config['log.level']);
  configureTls(config); // its gRPC port, and its calls to the OSSs (common/tls.ts)
  const rootDefault = configuredDefault(config['mds.defaultLayout']);
  mkdirSync(config['mds.dataDir'], { recursive: true });
  const db = await openDb(config['mds.dataDir']);
  const onFatal = deps.onFatal ?? exitOnFatal(logger);
  const committer = new GroupCommitter(db, onFatal);
  const cluster = await openCluster(config, db, committer, clock, logger);
  const auth = await openAuth(config, db, committer, clock, logger);
  const tickets = ticketing(auth?.tickets, config, clock, onFatal);
  // One channel to each OSS for recovery, scrub and destroy alike (common/channels.ts), with
  // the MDS's service ticket when the OSSs check tickets.
  const ossChannels = new ChannelCache(contract().OssService, tickets.channelOptions);
  const recovery = new RecoveryService(
    db,
    committer,
    cluster,
    clock,
    logger,
    {
      maxBytesPerSec: config['mds.recoveryMaxBytesPerSec'],
      maxActivePgs: config['mds.recoveryMaxActivePgs'],
      paused: false,
    },
    ossChannels,
    config['mds.missedWritesPerPgMax'],
  );
  await recovery.init();
  const ostHealth = new OstHealthTracker(
    { factor: config['mds.slowOstFactor'], minMs: config['mds.slowOstLatencyMsMin'] },
    () => clock.monotonicMs(),
  );
  const watch = new ClusterWatch(config, clock);
  cluster.onHeartbeat = watch.alongside((req) => ostHealth.record(req));
  const scrub = new ScrubService(
    cluster,
    recovery.holders,
    clock,
    logger,
    scrubSettingsOf(config),
    ossChannels,
    db,
    (ops) => committer.submit(ops),
  );
  await scrub.init();
  const phases = new WeightPhases(
    db,
    committer,
    cluster,
    recovery,
    clock,
    logger,
    config['mds.newOstWeightSteps'],
  );
  await phases.init();
  const healing = { recovery, cluster, health: ostHealth, scrub, phases, verifyDom: () => verifyDom(ns) };
  const ns = new Namespace(db, committer, clock, rootDefault, {
    epoch: () => cluster.state.map.epoch,
    map: () => cluster.state.map,
    ensurePool: (rule) => cluster.ensurePool(rule),
  });
  await ns.init();
  const destroyer = new DestroyWorker(
    db,
    committer,
    cluster,
    clock,
    logger,
    ossChannels,
    () => ns.lastMutationMs,
  );
  ns.onDestroyQueued = () => destroyer.wake();
  const metrics = createMdsMetrics(() => committer.writes, ns.dom);
  registerChannelGauge(metrics.registry, ossChannels);
  const gate = new Gate(auth?.guard, ns, openAudit(config, clock), auth?.tickets);
  const server = new grpc.Server(SERVER_OPTIONS);
  const v1 = contract();
  let framePort = 0;
  const handlers = watch.observe(mdsHandlers(ns, cluster, metrics, logger, recovery, gate, () => framePort));
  server.addService(v1.MdsService.service, handlers);
  server.addService(v1.HealthService.service, healthHandlers(cluster));
  const grpcPort = await bindServer(server, config['mds.bindHost'], config['mds.grpcPort']);
  const frames = await framesOf(config, v1.MdsService.service, handlers, metrics);
  framePort = frames?.port ?? 0;
  const https = adminServerOptions(config['tls.metricsPlain']); // when it serves TLS
  const admin = buildAdmin(cluster, metrics, () => destroyer.view(), recoveryView(healing), https);
  guardAdminHttp(admin, gate, config['auth.metricsOpen'], clock);
  registerRecoveryAdmin(admin, healing);
  registerRecoveryMetrics(metrics.registry, healing);
  watch.serve(admin, metrics.registry, cluster, logger);
  await admin.listen({ host: config['mds.bindHost'], port: config['mds.adminPort'] });
  const adminPort = portOf(admin, config['mds.adminPort']);
  cluster.start();
  tickets.start();
  destroyer.start();
  recovery.start();
  scrub.start();
  phases.start();
  logger.info({ grpcPort, adminPort, framePort, epoch: cluster.state.map.epoch }, 'mds started');

  const close = async (): Promise<void> => {
    cluster.stop();
    tickets.stop();
    recovery.stop();
    scrub.stop();
    phases.stop();
    await frames?.close();
    await shutdownServer(server, SHUTDOWN_GRACE_MS);
    await admin.close();
    await destroyer.stop();
    ossChannels.closeAll();
    await gate.auditor?.log.close();
    await committer.idle();
    await db.close();
  };
  return { grpcPort, adminPort, framePort, close };
}
