// The gRPC face of the MDS: thin handlers that decode, call one operation and
// encode. Coded errors cross the wire via common/grpc.ts; placement errors
// are given their registry codes here, at the edge.
import type * as grpc from '@grpc/grpc-js';
import { type Logger, StripeError, toGrpcError, unary } from '../common/index.js';
import { PlacementError } from '../placement/index.js';
import type { HealthServiceHandlers } from '../proto/gen/stripefs/v1/HealthService.js';
import type { MdsServiceHandlers } from '../proto/gen/stripefs/v1/MdsService.js';
import type {
  HeartbeatRequest__Output,
  HeartbeatResponse,
  WatchMapRequest__Output,
  WatchMapResponse,
} from '../proto/index.js';
import { pathsOf } from './audit/events.js';
import { readAudit } from './audit/read.js';
import { Gate, type MdsMethod } from './auth/access.js';
import { authOps, identityToWire } from './auth/admin-ops.js';
import type { Principal } from './auth/guard.js';
import type { ClusterService } from './cluster/service.js';
import { stateToWire } from './cluster/wire.js';
import type { MdsMetrics } from './metrics.js';
import type { Namespace } from './namespace.js';
import { commit } from './ops/commit.js';
import { create } from './ops/create.js';
import { commitMany, createMany, unlinkMany } from './ops/many.js';
import { mkdir } from './ops/mkdir.js';
import { open, openMany } from './ops/open.js';
import { readdir } from './ops/readdir.js';
import { readlink } from './ops/readlink.js';
import { rmdir, unlink } from './ops/remove.js';
import { rename } from './ops/rename.js';
import { setAttr } from './ops/setattr.js';
import { setLayout } from './ops/setlayout.js';
import { stat, statMany } from './ops/stat.js';
import { statfs } from './ops/statfs.js';
import { symlink } from './ops/symlink.js';
import { getXattr } from './ops/xattr-get.js';
import { listXattrs } from './ops/xattr-list.js';
import { removeXattr } from './ops/xattr-remove.js';
import { setXattr } from './ops/xattr-set.js';
import type { RecoveryService } from './recovery/service.js';
import { pgHolders } from './recovery/wire.js';

/** A refused call is audited whatever its method; any other failure of an audited method too. */
function auditFailure(
  gate: Gate,
  who: Principal | undefined,
  call: grpc.ServerUnaryCall<unknown, unknown>,
  method: MdsMethod,
  request: Record<string, unknown>,
  err: unknown,
): void {
  if (!gate.auditor) return;
  const code = err instanceof StripeError ? err.code : 'REQ_INTERNAL';
  if (code.startsWith('AUTH_')) gate.auditor.refused(who, call, method, pathsOf(request), code);
  else void gate.auditor.done(who, call, method, request, code);
}

/**
 * A change's audit line, begun as soon as the call's first mutation is handed to the group commit
 * (Namespace.inScope), so that the line's fdatasync runs beside the commit's instead of after it;
 * the answer still waits for both. Only for calls whose answer waits for their line.
 */
function earlyAudit(
  gate: Gate,
  who: Principal | undefined,
  call: grpc.ServerUnaryCall<unknown, unknown>,
  method: MdsMethod,
  request: Record<string, unknown>,
): { submitted(): void; line: Promise<void> | undefined } | undefined {
  const auditor = gate.auditor;
  if (!auditor?.waitsFor(method)) return undefined;
  const audit = {
    line: undefined as Promise<void> | undefined,
    submitted() {
      audit.line ??= auditor.done(who, call, method, request, 'OK');
    },
  };
  return audit;
}

/** The handler of `method`; its metrics use the method's name in lower camel case (mkdir, statMany). */
function coded<Req, Res>(
  metrics: MdsMetrics,
  gate: Gate,
  method: MdsMethod,
  fn: (request: Req, who: Principal | undefined) => Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  const name = `${method[0]?.toLowerCase()}${method.slice(1)}`;
  return unary<Req, Res>(async (request, call) => {
    const end = metrics.latency.startTimer({ op: name });
    let who: Principal | undefined;
    try {
      who = await gate.admit(call, method, request as Record<string, unknown>);
      const audit = earlyAudit(gate, who, call, method, request as Record<string, unknown>);
      const response = await gate.inScope(audit, () => fn(request, who));
      await gate.stamp(who, method, request as Record<string, unknown>, response);
      await (audit?.line ?? gate.auditor?.done(who, call, method, request as Record<string, unknown>, 'OK'));
      return response;
    } catch (err) {
      auditFailure(gate, who, call, method, request as Record<string, unknown>, err);
      const code =
        err instanceof StripeError ? err.code : err instanceof PlacementError ? err.code : 'REQ_INTERNAL';
      metrics.errors.inc({ op: name, code });
      if (err instanceof PlacementError) throw new StripeError(err.code, err.message);
      throw err;
    } finally {
      end();
    }
  });
}

const ACTIONS = { OST_ACTION_OUT: 'out', OST_ACTION_IN: 'in', OST_ACTION_REWEIGHT: 'reweight' } as const;

/** A heartbeat's answer: the map epoch, and which copies of the OSS's OSTs missed writes (the OSS refuses them). */
async function heartbeat(
  cluster: ClusterService,
  recovery: RecoveryService | undefined,
  r: HeartbeatRequest__Output,
): Promise<HeartbeatResponse> {
  await cluster.heartbeat(r);
  // The epoch of the map the list is computed from, in the same turn: the OSS serves reads made
  // with that map or an older one (OssCore.refuseAheadOfList).
  return {
    mapEpoch: cluster.state.map.epoch,
    staleCopies: recovery?.staleCopiesOf(r.osts.map((o) => o.ostId)) ?? [],
    readLeaseMs: cluster.readLeaseMs,
    writableEpoch: cluster.writableEpoch,
  };
}

export function mdsHandlers(
  ns: Namespace,
  cluster: ClusterService,
  metrics: MdsMetrics,
  logger: Logger,
  recovery?: RecoveryService,
  gate: Gate = new Gate(undefined, ns),
  /** The framed path's port, told to clients by GetMap (0: none; mds/frame-server.ts). */
  framePort: () => number = () => 0,
): MdsServiceHandlers {
  return {
    Mkdir: coded(metrics, gate, 'Mkdir', (r, who) => mkdir(ns, r, gate.makeCheck(who))),
    Rmdir: coded(metrics, gate, 'Rmdir', (r) => rmdir(ns, r)),
    Create: coded(metrics, gate, 'Create', (r) => create(ns, r)),
    Open: coded(metrics, gate, 'Open', (r) => open(ns, r)),
    OpenMany: coded(metrics, gate, 'OpenMany', (r, who) => openMany(ns, r, gate.openCheck(who))),
    Stat: coded(metrics, gate, 'Stat', (r) => stat(ns, r)),
    StatMany: coded(metrics, gate, 'StatMany', (r, who) =>
      statMany(ns, r, gate.itemCheck(who, 'lookup', 'StatMany')),
    ),
    Readdir: coded(metrics, gate, 'Readdir', (r) => readdir(ns, r)),
    Rename: coded(metrics, gate, 'Rename', (r) => rename(ns, r)),
    Unlink: coded(metrics, gate, 'Unlink', (r) => unlink(ns, r)),
    Commit: coded(metrics, gate, 'Commit', (r) => commit(ns, r)),
    SetLayout: coded(metrics, gate, 'SetLayout', (r) => setLayout(ns, r)),
    SetAttr: coded(metrics, gate, 'SetAttr', (r) => setAttr(ns, r)),
    GetXattr: coded(metrics, gate, 'GetXattr', (r) => getXattr(ns, r)),
    SetXattr: coded(metrics, gate, 'SetXattr', (r) => setXattr(ns, r)),
    ListXattrs: coded(metrics, gate, 'ListXattrs', (r) => listXattrs(ns, r)),
    RemoveXattr: coded(metrics, gate, 'RemoveXattr', (r) => removeXattr(ns, r)),
    Symlink: coded(metrics, gate, 'Symlink', (r) => symlink(ns, r)),
    Readlink: coded(metrics, gate, 'Readlink', (r) => readlink(ns, r)),
    Statfs: coded(metrics, gate, 'Statfs', async () => statfs(ns, cluster.usage)),
    // Items that fail count as errors of the single operation.
    CreateMany: coded(metrics, gate, 'CreateMany', (r, who) =>
      createMany(
        ns,
        r,
        (e) => metrics.errors.inc({ op: 'create', code: e.code }),
        gate.itemCheck(who, 'w', 'CreateMany'),
      ),
    ),
    CommitMany: coded(metrics, gate, 'CommitMany', (r, who) =>
      commitMany(ns, r, (e) => metrics.errors.inc({ op: 'commit', code: e.code }), gate.commitCheck(who)),
    ),
    UnlinkMany: coded(metrics, gate, 'UnlinkMany', (r, who) =>
      unlinkMany(
        ns,
        r,
        (e) => metrics.errors.inc({ op: 'unlink', code: e.code }),
        gate.itemCheck(who, 'w', 'UnlinkMany'),
      ),
    ),
    ...clusterHandlers(cluster, metrics, logger, gate, recovery, framePort),
    ...authHandlers(gate, metrics),
  };
}

type ClusterMethod =
  | 'GetMap'
  | 'WatchMap'
  | 'RegisterOss'
  | 'Heartbeat'
  | 'ReportBadChunk'
  | 'GetPgHolders'
  | 'AdminOst';

/** The cluster map, OSS registration and heartbeats, bad-chunk reports, PG holders, OST administration. */
function clusterHandlers(
  cluster: ClusterService,
  metrics: MdsMetrics,
  logger: Logger,
  gate: Gate,
  recovery: RecoveryService | undefined,
  framePort: () => number,
): Pick<MdsServiceHandlers, ClusterMethod> {
  return {
    GetMap: coded(metrics, gate, 'GetMap', async (r) => {
      const state = await cluster.atEpoch(r.epoch);
      return {
        map: stateToWire(state, state === cluster.state ? cluster.usage : undefined),
        writableEpoch: cluster.writableEpoch,
        ...(framePort() > 0 ? { framePort: framePort() } : {}),
      };
    }),
    WatchMap: (call) => watchMap(cluster, gate, call),
    RegisterOss: coded(metrics, gate, 'RegisterOss', async (r) => {
      const { ids } = await cluster.register(r);
      return {
        osts: [...ids].map(([name, id]) => ({ name, id })),
        // As for Heartbeat: the epoch the stale list below is computed at.
        mapEpoch: cluster.state.map.epoch,
        heartbeatIntervalMs: cluster.heartbeatIntervalMs,
        staleCopies: recovery?.staleCopiesOf([...ids.values()]) ?? [],
        readLeaseMs: cluster.readLeaseMs,
        ...gate.forOss(),
      };
    }),
    Heartbeat: coded(metrics, gate, 'Heartbeat', async (r) => ({
      ...(await heartbeat(cluster, recovery, r)),
      ...gate.forOss(),
    })),
    ReportBadChunk: coded(metrics, gate, 'ReportBadChunk', async (r) => {
      if (!recovery) {
        logger.warn({ ostId: r.ostId, objectId: r.objectId, reason: r.reason }, 'bad chunk reported');
        return { repairScheduled: false };
      }
      return { repairScheduled: await recovery.reportBadChunk(r) };
    }),
    GetPgHolders: coded(metrics, gate, 'GetPgHolders', async (r) =>
      pgHolders(cluster.state, recovery?.holders, r),
    ),
    AdminOst: coded(metrics, gate, 'AdminOst', async (r) => {
      const action = ACTIONS[r.action as keyof typeof ACTIONS];
      if (!action)
        throw new StripeError('REQ_INVALID', `AdminOst action ${r.action}: expected OUT, IN or REWEIGHT`);
      return { mapEpoch: await cluster.admin(r.ostId, action, r.weight) };
    }),
  };
}

type AuthMethod =
  | 'AuthAdd'
  | 'AuthList'
  | 'AuthGet'
  | 'AuthSetCaps'
  | 'AuthRotate'
  | 'AuthRemove'
  | 'ReadAudit'
  | 'ListClients'
  | 'EvictClient'
  | 'GetTickets'
  | 'AuthWhoami'
  | 'ReportAudit';

/** stripefs auth add|ls|get|caps|rotate|rm, audit and client ls|evict (admin-only by the gate). */
function authHandlers(gate: Gate, metrics: MdsMetrics): Pick<MdsServiceHandlers, AuthMethod> {
  const revoke = gate.tickets ? (clientId: string) => gate.tickets?.revoke(clientId) : undefined;
  const auth = gate.guard ? authOps(gate.guard.identities, gate.guard.sessions, revoke) : undefined;
  const authOff = async (): Promise<never> => {
    throw new StripeError(
      'REQ_INVALID',
      'this MDS runs without auth (mds.auth false): it keeps no identities',
    );
  };
  return {
    AuthAdd: coded(metrics, gate, 'AuthAdd', (r) => (auth ? auth.add(r) : authOff())),
    AuthList: coded(metrics, gate, 'AuthList', () => (auth ? auth.list() : authOff())),
    AuthGet: coded(metrics, gate, 'AuthGet', (r) => (auth ? auth.get(r) : authOff())),
    AuthSetCaps: coded(metrics, gate, 'AuthSetCaps', (r) => (auth ? auth.setCaps(r) : authOff())),
    AuthRotate: coded(metrics, gate, 'AuthRotate', (r) => (auth ? auth.rotate(r) : authOff())),
    AuthRemove: coded(metrics, gate, 'AuthRemove', (r) => (auth ? auth.remove(r) : authOff())),
    ListClients: coded(metrics, gate, 'ListClients', () => (auth ? auth.clients() : authOff())),
    EvictClient: coded(metrics, gate, 'EvictClient', (r) => (auth ? auth.evict(r) : authOff())),
    GetTickets: coded(metrics, gate, 'GetTickets', async (r, who) => ({
      tickets: await gate.ticketsFor(who, { inodes: r.inodes.map(Number), service: r.service }),
    })),
    ReadAudit: coded(metrics, gate, 'ReadAudit', async (r) => {
      if (!gate.auditor) throw new StripeError('REQ_INVALID', 'this MDS keeps no audit log');
      return { lines: await readAudit(gate.auditor.log, gate.auditor.files, r) };
    }),
    AuthWhoami: coded(metrics, gate, 'AuthWhoami', async (_r, who) =>
      who ? { identity: identityToWire(who.identity), address: who.address ?? '' } : authOff(),
    ),
    ReportAudit: coded(metrics, gate, 'ReportAudit', async (r, who) => {
      if (!gate.auditor) throw new StripeError('REQ_INVALID', 'this MDS keeps no audit log');
      await gate.auditor.reported(who, r);
      return {};
    }),
  };
}

/** Sends the current map if newer than the caller's, then every new epoch until the caller leaves. */
function watchMap(
  cluster: ClusterService,
  gate: Gate,
  call: grpc.ServerWritableStream<WatchMapRequest__Output, WatchMapResponse>,
): void {
  gate.admit(call, 'WatchMap', {}).then(
    () => streamMap(cluster, call),
    (err: unknown) => {
      gate.auditor?.refused(
        undefined,
        call,
        'WatchMap',
        [],
        err instanceof StripeError ? err.code : 'REQ_INTERNAL',
      );
      call.destroy(toGrpcError(err) as Error);
    },
  );
}

function streamMap(
  cluster: ClusterService,
  call: grpc.ServerWritableStream<WatchMapRequest__Output, WatchMapResponse>,
): void {
  let sentEpoch = call.request.knownEpoch;
  let sentWritable = -1;
  // Every new map, and the writable epoch whenever it moves on (with the map or alone).
  const send = (): void => {
    const state = cluster.state;
    const writableEpoch = cluster.writableEpoch;
    const newMap = state.map.epoch > sentEpoch;
    if (!newMap && writableEpoch <= sentWritable) return;
    sentEpoch = Math.max(sentEpoch, state.map.epoch);
    sentWritable = writableEpoch;
    call.write({ ...(newMap ? { map: stateToWire(state, cluster.usage) } : {}), writableEpoch });
  };
  const unsubscribe = cluster.subscribe(send, () => call.end());
  const unwatch = cluster.onWritable(send);
  const end = (): void => {
    unsubscribe();
    unwatch();
  };
  call.on('cancelled', end);
  call.on('close', end);
  call.on('error', end);
  send();
}

export function healthHandlers(cluster: ClusterService): HealthServiceHandlers {
  return {
    Ping: unary(async (r) => ({ payload: r.payload, server: 'mds', mapEpoch: cluster.state.map.epoch })),
  };
}
