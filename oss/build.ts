// Builds a whole OSS from a Config: OSTs, the request core, gRPC, the bulk
// path, the admin server and the MDS link. Tests start it on port 0.
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { adminServerOptions } from '../common/admin-https.js';
import { AuditReporter, type RefusalReport } from '../common/auth/audit-reporter.js';
import { checksumBackend } from '../common/checksum.js';
import type { Config } from '../common/config.js';
import { StripeError } from '../common/errors.js';
import { bindServer, SERVER_OPTIONS, shutdownServer, unary } from '../common/grpc.js';
import { createLogger, type Logger } from '../common/logging.js';
import { type Clock, type Random, seededRandom, systemClock } from '../common/random.js';
import { configureTls } from '../common/tls.js';
import { contract, type PingRequest__Output, type PingResponse } from '../proto/index.js';
import { buildAdminApp } from './admin.js';
import { setReadSpanBytes } from './buffers.js';
import { startBulkServer } from './bulk-server.js';
import { adopterOf, type BulkSocketPath, chooseBulkSocketPath } from './bulk-socket.js';
import { type FaultKnobs, OstFaults, parseFaultKnobs } from './faults.js';
import { ossServiceHandlers } from './grpc-service.js';
import { guardOssHttp } from './http-auth.js';
import { SHUTDOWN_GRACE_MS } from './limits.js';
import { MapView } from './map-view.js';
import { MdsLink } from './mds-link.js';
import { OssMetrics } from './metrics.js';
import { OssCore, type OstHandle } from './ops.js';
import { checkPersistedIds, parseOstIds } from './ost-ids.js';
import { registerRecoveryRoutes } from './recovery/admin.js';
import { registerRecoveryMetrics } from './recovery/metrics.js';
import { Recoverer } from './recovery/recover-pg.js';
import { Scrubber } from './recovery/scrub.js';
import { SourcePool } from './recovery/sources.js';
import { PgScrubber } from './scrub/pg-scrub.js';
import { openOst } from './store/index.js';
import { watchTicketRefusals } from './ticket-metrics.js';
import { TicketGuard } from './tickets.js';

export interface OssDeps {
  clock?: Clock;
  random?: Random;
  logger?: Logger;
}

export interface BuiltOss {
  grpcPort: number;
  bulkPort: number;
  /** How the bulk server reads its sockets (oss/bulk-socket.ts). */
  bulkSocketPath: BulkSocketPath;
  adminPort: number;
  ossId: string;
  osts: { name: string; id: number | null }[];
  core: OssCore;
  close(): Promise<void>;
}

/** The knobs of oss.faults, validated like the admin API's (CONFIG_INVALID naming the bad one). */
function startingKnobs(config: Config): FaultKnobs | undefined {
  const text = config['oss.faults'];
  if (!text) return undefined;
  try {
    return parseFaultKnobs(JSON.parse(text));
  } catch (err) {
    throw new StripeError('CONFIG_INVALID', `oss.faults: ${(err as Error).message}`);
  }
}

async function openOsts(config: Config, logger: Logger): Promise<OstHandle[]> {
  const handles: OstHandle[] = [];
  const knobs = startingKnobs(config);
  for (let i = 0; i < config['oss.osts']; i++) {
    // The knobs come first: the store's own fault sites (a crash before an index commit, a failing fsync) are theirs.
    const faults = new OstFaults((config['oss.faultSeed'] + i) >>> 0);
    if (knobs) faults.set(knobs);
    const ost = await openOst({
      dir: join(config['oss.dataDir'], `ost${i}`),
      name: `ost${i}`,
      capacityBytes: config['oss.ostCapacityBytes'],
      fsync: config['oss.fsync'],
      directIo: config['oss.directIo'],
      smallObjectBytes: config['oss.smallObjectBytes'],
      faults,
    });
    handles.push({ ost, faults });
    const { objectCount, usedBytes, directIo } = ost.usage();
    logger.info({ ost: ost.name, id: ost.id, objects: objectCount, usedBytes, directIo }, 'OST open');
  }
  return handles;
}

/** The OSS's metrics, with each OST's usage read when scraped. */
function metricsOf(handles: OstHandle[]): OssMetrics {
  return new OssMetrics(() =>
    handles.map((h) => ({
      label: h.ost.name,
      usedBytes: () => h.ost.usage().usedBytes,
      totalBytes: () => h.ost.usage().capacityBytes,
      objectCount: () => h.ost.usage().objectCount,
      directWriteBytes: () => h.ost.usage().directWriteBytes,
      pagedWriteBytes: () => h.ost.usage().pagedWriteBytes,
      logBytes: () => h.ost.usage().log?.bytes ?? 0,
      logLiveBytes: () => h.ost.usage().log?.liveBytes ?? 0,
      logReplayedRounds: () => h.ost.usage().log?.replayedRounds ?? 0,
      fileFsyncs: () => h.ost.usage().syncs?.fileFsyncs ?? 0,
      fileSyncRequests: () => h.ost.usage().syncs?.fileRequests ?? 0,
    })),
  );
}

/**
 * The OSS's ticket guard, its keys kept in <oss.dataDir>/ticket-keys.json, its refusals counted;
 * and the reporter that sends refusals to the MDS's audit log once `send` is set (the MDS link).
 */
function openTickets(config: Config, ossId: string, clock: Clock, metrics: OssMetrics, logger: Logger) {
  const tickets = new TicketGuard(
    join(config['oss.dataDir'], 'ticket-keys.json'),
    () => clock.nowMs(),
    ossId,
  );
  const to: { send?: (reports: RefusalReport[], dropped: number) => Promise<void> } = {};
  const reporter = new AuditReporter(
    (reports, dropped) =>
      to.send ? to.send(reports, dropped) : Promise.reject(new Error('not linked to the MDS yet')),
    (err) => logger.warn({ err: (err as Error).message }, 'cannot write refusals to the MDS audit log'),
  );
  watchTicketRefusals(
    tickets,
    metrics.registry,
    logger,
    () => clock.nowMs(),
    (r) => reporter.report(r),
  );
  return { tickets, reporter, to };
}

/** What the admin HTTP API's gate needs of the configuration and the clock. */
function httpAuthOptions(config: Config, clock: Clock) {
  return {
    metricsOpen: config['auth.metricsOpen'],
    windowMs: config['mds.authWindowMs'],
    nowMs: () => clock.nowMs(),
  };
}

/**
 * The bulk server's socket path, said loudly when it had to fall back (oss/bulk-socket.ts). With
 * TLS the server reads the TLS socket's decrypted stream: the plain path.
 */
async function bulkSocketPathOf(
  wantUserBuffer: boolean,
  logger: Logger,
  metrics: OssMetrics,
): Promise<{ path: BulkSocketPath; problem?: string }> {
  const socket = await chooseBulkSocketPath(wantUserBuffer);
  if (socket.problem)
    logger.warn(
      { bulkSocketPath: socket.path, reason: socket.problem, node: process.version },
      "bulk server: Node's socket internals are not as stripefs expects, so the bulk path reads plain sockets (a fresh buffer per read: slower); report it with this Node version",
    );
  metrics.setBulkSocketPath(socket.path);
  return socket;
}

export async function buildOss(config: Config, deps: OssDeps = {}): Promise<BuiltOss> {
  const ossId = config['oss.id'];
  if (!ossId) throw new StripeError('CONFIG_INVALID', 'oss.id (STRIPEFS_OSS_ID) is required to start an OSS');
  const tls = configureTls(config); // its ports, and its calls to the MDS and OSSs (common/tls.ts)
  setReadSpanBytes(config['oss.readSpanBytes']); // process-wide: one OSS per process outside tests
  const logger = deps.logger ?? createLogger('oss', config['log.level']);
  const random = deps.random ?? seededRandom((deps.clock ?? systemClock).nowMs() >>> 0);
  const crc = checksumBackend();
  if (crc.problem)
    logger.warn(
      { crc32c: crc.name, reason: crc.problem },
      'crc32c runs without the stripefs SSE4.2 addon (about 3x slower): run npm run build with a C compiler present',
    );
  const ostIds = parseOstIds(config['oss.ostIds'], config['oss.osts']);
  const handles = await openOsts(config, logger);
  try {
    checkPersistedIds(
      handles.map((h) => ({ name: h.ost.name, id: h.ost.id })),
      ostIds,
    );
  } catch (err) {
    for (const h of handles) await h.ost.close();
    throw err;
  }
  const metrics = metricsOf(handles);
  const mapView = new MapView();
  const clock = deps.clock ?? systemClock;
  const core = new OssCore(handles, mapView, metrics, logger, clock, config['oss.jobsMax']);
  const bindHost = config['oss.bindHost'];
  const advertise = config['oss.advertiseHost'] || bindHost;
  const publicHost = config['oss.publicHost'];

  // Data-path tickets: checked on both doors, minted for this OSS's own calls to the others.
  const { tickets, reporter, to } = openTickets(config, ossId, clock, metrics, logger);
  const sources = new SourcePool(tickets);
  const recoverer = new Recoverer(core, sources, logger);
  let link: MdsLink | undefined;
  const scrubber = new Scrubber(
    core,
    async (bad) => (link ? link.reportBadChunk(bad) : false),
    { bytesPerSec: config['oss.scrubBytesPerSec'], intervalMs: config['oss.scrubIntervalMs'] },
    logger,
  );
  registerRecoveryMetrics(metrics.registry, recoverer, scrubber);

  const grpcServer = new grpc.Server(SERVER_OPTIONS);
  const v1 = contract();
  grpcServer.addService(
    v1.OssService.service,
    ossServiceHandlers(core, recoverer, new PgScrubber(sources, logger), tickets),
  );
  grpcServer.addService(v1.HealthService.service, {
    Ping: unary<PingRequest__Output, PingResponse>(async (req) => ({
      payload: req.payload,
      server: 'oss',
      mapEpoch: mapView.epoch,
    })),
  });
  const grpcPort = await bindServer(grpcServer, bindHost, config['oss.grpcPort']);
  const socket = await bulkSocketPathOf(config['oss.bulkUserBuffer'] && !tls, logger, metrics);
  const bulk = await startBulkServer(
    core,
    bindHost,
    config['oss.bulkPort'],
    adopterOf(socket.path, () => metrics.bulkSocketFallbacks.inc()),
    tickets,
  );
  const admin = buildAdminApp(
    { core, metrics, ossId, bulkSocketPath: socket.path },
    adminServerOptions(config['tls.metricsPlain']),
  );
  guardOssHttp(admin, tickets, httpAuthOptions(config, clock), (r) => reporter.report(r));
  registerRecoveryRoutes(admin, scrubber, recoverer);
  await admin.listen({ host: bindHost, port: config['oss.adminPort'] });
  const adminPort = (admin.server.address() as { port: number }).port;

  link = new MdsLink(
    {
      mdsAddress: config['mds.address'],
      ossId,
      host: config['oss.host'] || ossId,
      rack: config['oss.rack'],
      datacenter: config['oss.datacenter'],
      grpcAddress: `${advertise}:${grpcPort}`,
      bulkAddress: `${advertise}:${bulk.port}`,
      adminAddress: `${advertise}:${adminPort}`,
      ...(publicHost
        ? {
            publicGrpcAddress: `${publicHost}:${grpcPort}`,
            publicBulkAddress: `${publicHost}:${bulk.port}`,
            publicAdminAddress: `${publicHost}:${adminPort}`,
          }
        : {}),
      ...(ostIds ? { ostIds } : {}),
    },
    core,
    metrics,
    logger,
    random,
    tickets,
  );
  to.send = (reports, dropped) => (link as MdsLink).reportAudit(reports, dropped);
  const registered = link.start();
  scrubber.start();
  // An OST without a persisted id cannot be addressed yet: wait for the first registration.
  if (handles.some((h) => h.ost.id === undefined)) await registered;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      scrubber.stop();
      await core.drain(SHUTDOWN_GRACE_MS);
      await reporter.close();
      link?.stop();
      sources.close();
      await Promise.all([shutdownServer(grpcServer, 1_000), bulk.close(), admin.close()]);
      for (const h of handles) await h.ost.close();
    })();
    return closing;
  };
  return {
    grpcPort,
    bulkPort: bulk.port,
    bulkSocketPath: socket.path,
    adminPort,
    ossId,
    osts: handles.map((h) => ({ name: h.ost.name, id: h.ost.id ?? null })),
    core,
    close,
  };
}
