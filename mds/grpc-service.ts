// The gRPC face of the MDS: thin handlers that decode, call one operation and
// encode. Coded errors cross the wire via common/grpc.ts; placement errors
// are given their registry codes here, at the edge.
import type * as grpc from '@grpc/grpc-js';
import { type Logger, StripeError, unary } from '../common/index.js';
import { PlacementError } from '../placement/index.js';
import type { HealthServiceHandlers } from '../proto/gen/stripefs/v1/HealthService.js';
import type { MdsServiceHandlers } from '../proto/gen/stripefs/v1/MdsService.js';
import type { WatchMapRequest__Output, WatchMapResponse } from '../proto/index.js';
import type { ClusterService } from './cluster/service.js';
import { stateToWire } from './cluster/wire.js';
import type { MdsMetrics } from './metrics.js';
import type { Namespace } from './namespace.js';
import { commit } from './ops/commit.js';
import { create } from './ops/create.js';
import { createMany, unlinkMany } from './ops/many.js';
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

function coded<Req, Res>(
  name: string,
  metrics: MdsMetrics,
  fn: (request: Req) => Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return unary<Req, Res>(async (request) => {
    const end = metrics.latency.startTimer({ op: name });
    try {
      return await fn(request);
    } catch (err) {
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

export function mdsHandlers(
  ns: Namespace,
  cluster: ClusterService,
  metrics: MdsMetrics,
  logger: Logger,
  recovery?: RecoveryService,
): MdsServiceHandlers {
  return {
    Mkdir: coded('mkdir', metrics, (r) => mkdir(ns, r)),
    Rmdir: coded('rmdir', metrics, (r) => rmdir(ns, r)),
    Create: coded('create', metrics, (r) => create(ns, r)),
    Open: coded('open', metrics, (r) => open(ns, r)),
    OpenMany: coded('openMany', metrics, (r) => openMany(ns, r)),
    Stat: coded('stat', metrics, (r) => stat(ns, r)),
    StatMany: coded('statMany', metrics, (r) => statMany(ns, r)),
    Readdir: coded('readdir', metrics, (r) => readdir(ns, r)),
    Rename: coded('rename', metrics, (r) => rename(ns, r)),
    Unlink: coded('unlink', metrics, (r) => unlink(ns, r)),
    Commit: coded('commit', metrics, (r) => commit(ns, r)),
    SetLayout: coded('setLayout', metrics, (r) => setLayout(ns, r)),
    SetAttr: coded('setAttr', metrics, (r) => setAttr(ns, r)),
    GetXattr: coded('getXattr', metrics, (r) => getXattr(ns, r)),
    SetXattr: coded('setXattr', metrics, (r) => setXattr(ns, r)),
    ListXattrs: coded('listXattrs', metrics, (r) => listXattrs(ns, r)),
    RemoveXattr: coded('removeXattr', metrics, (r) => removeXattr(ns, r)),
    Symlink: coded('symlink', metrics, (r) => symlink(ns, r)),
    Readlink: coded('readlink', metrics, (r) => readlink(ns, r)),
    Statfs: coded('statfs', metrics, async () => statfs(ns, cluster.usage)),
    // Items that fail count as errors of the single operation.
    CreateMany: coded('createMany', metrics, (r) =>
      createMany(ns, r, (e) => metrics.errors.inc({ op: 'create', code: e.code })),
    ),
    UnlinkMany: coded('unlinkMany', metrics, (r) =>
      unlinkMany(ns, r, (e) => metrics.errors.inc({ op: 'unlink', code: e.code })),
    ),
    GetMap: coded('getMap', metrics, async (r) => {
      const state = await cluster.atEpoch(r.epoch);
      return { map: stateToWire(state, state === cluster.state ? cluster.usage : undefined) };
    }),
    WatchMap: (call) => watchMap(cluster, call),
    RegisterOss: coded('registerOss', metrics, async (r) => {
      const { ids, epoch } = await cluster.register(r);
      return {
        osts: [...ids].map(([name, id]) => ({ name, id })),
        mapEpoch: epoch,
        heartbeatIntervalMs: cluster.heartbeatIntervalMs,
      };
    }),
    Heartbeat: coded('heartbeat', metrics, async (r) => ({ mapEpoch: await cluster.heartbeat(r) })),
    ReportBadChunk: coded('reportBadChunk', metrics, async (r) => {
      if (!recovery) {
        logger.warn({ ostId: r.ostId, objectId: r.objectId, reason: r.reason }, 'bad chunk reported');
        return { repairScheduled: false };
      }
      return { repairScheduled: recovery.reportBadChunk(r) };
    }),
    GetPgHolders: coded('getPgHolders', metrics, async (r) => pgHolders(cluster.state, recovery?.holders, r)),
    AdminOst: coded('adminOst', metrics, async (r) => {
      const action = ACTIONS[r.action as keyof typeof ACTIONS];
      if (!action)
        throw new StripeError('REQ_INVALID', `AdminOst action ${r.action}: expected OUT, IN or REWEIGHT`);
      return { mapEpoch: await cluster.admin(r.ostId, action, r.weight) };
    }),
  };
}

/** Sends the current map if newer than the caller's, then every new epoch until the caller leaves. */
function watchMap(
  cluster: ClusterService,
  call: grpc.ServerWritableStream<WatchMapRequest__Output, WatchMapResponse>,
): void {
  let sentEpoch = call.request.knownEpoch;
  const send = (): void => {
    const state = cluster.state;
    if (state.map.epoch <= sentEpoch) return;
    sentEpoch = state.map.epoch;
    call.write({ map: stateToWire(state, cluster.usage) });
  };
  const unsubscribe = cluster.subscribe(send, () => call.end());
  const end = (): void => {
    unsubscribe();
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
