// The MDS admin HTTP API (fastify, built apart from listen() so tests can
// inject): health, metrics, the cluster map with usage and states, PG state
// counts, and the OST out/in/reweight/remove actions.
import Fastify, { type FastifyInstance } from 'fastify';
import type { adminServerOptions } from '../common/admin-https.js';
import { StripeError } from '../common/index.js';
import { PlacementError } from '../placement/index.js';
import type { ClusterService } from './cluster/service.js';
import { stateToWire } from './cluster/wire.js';
import type { MdsMetrics } from './metrics.js';
import { summarizePgs } from './pgstate.js';

function parseOstId(raw: string): number {
  if (!/^\d{1,9}$/.test(raw))
    throw new StripeError('REQ_INVALID', `OST id ${JSON.stringify(raw)}: expected a number`);
  return Number(raw);
}

/** The destroy queue as /api/destroy-queue shows it. */
export interface DestroyQueueView {
  /** Records (removed files) waiting. */
  files: number;
  /** Records finished since the MDS started. */
  completed: number;
  /** Deletes not sent since start because the OST was down or its OSS was backing off. */
  skippedDeletes: number;
  /** Passes of the worker over the queue since start (each looks at every due record). */
  passes: number;
}

/** What recovery adds to the admin API (PG summary with recovery states, slow OSTs). */
export interface AdminRecoveryView {
  pgs(): unknown;
  slow(): { ostId: number; reason: string }[];
}

/** How the admin port serves: HTTPS when the MDS serves TLS (common/admin-https.ts); none: plain HTTP. */
type AdminServer = ReturnType<typeof adminServerOptions>;

/** GET /api/cluster: the map with each OST's usage (and slow mark), counts, and the write fences. */
function clusterAnswer(cluster: ClusterService, recovery: AdminRecoveryView | undefined) {
  const wire = stateToWire(cluster.state, cluster.usage);
  const slow = new Map((recovery?.slow() ?? []).map((v) => [v.ostId, v.reason]));
  const map = {
    ...wire,
    osts: (wire.osts ?? []).map((o) =>
      slow.has(o.id ?? -1) ? { ...o, slow: true, slowReason: slow.get(o.id ?? -1) } : o,
    ),
  };
  return {
    epoch: map.epoch,
    // Which epochs writes may use yet, and what each fence still waits for (mds/cluster/fences.ts).
    fences: cluster.fenceStatus(),
    counts: {
      osts: map.osts.length,
      up: map.osts.filter((o) => o.state?.up).length,
      in: map.osts.filter((o) => o.state?.in).length,
      usedBytes: map.osts.reduce((sum, o) => sum + Number(o.usedBytes ?? 0), 0),
      totalBytes: map.osts.reduce((sum, o) => sum + Number(o.totalBytes ?? 0), 0),
    },
    map,
  };
}

export function buildAdmin(
  cluster: ClusterService,
  metrics: MdsMetrics,
  destroyQueue: () => Promise<DestroyQueueView>,
  recovery?: AdminRecoveryView,
  server: AdminServer = {},
): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024, ...server });
  app.setErrorHandler((err, _request, reply) => {
    const coded =
      err instanceof StripeError
        ? err
        : err instanceof PlacementError
          ? new StripeError(err.code, err.message)
          : (err as { statusCode?: number }).statusCode === 400
            ? new StripeError('REQ_INVALID', (err as Error).message)
            : new StripeError('REQ_INTERNAL', (err as Error).message);
    void reply.status(coded.httpStatus).send(coded.toJSON());
  });
  app.get('/healthz', async () => ({ status: 'ok', server: 'mds', mapEpoch: cluster.state.map.epoch }));
  app.get('/api/destroy-queue', () => destroyQueue());
  app.get('/metrics', async (_request, reply) => {
    metrics.mapEpoch.set(cluster.state.map.epoch);
    metrics.detectorStalled.set(cluster.stalledMs / 1000);
    metrics.destroyQueued.set((await destroyQueue()).files);
    void reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  app.get('/api/cluster', async () => clusterAnswer(cluster, recovery));
  app.get('/api/pgs', async () => recovery?.pgs() ?? summarizePgs(cluster.state));
  app.post<{ Params: { id: string } }>('/api/osts/:id/out', async (request) => ({
    mapEpoch: await cluster.admin(parseOstId(request.params.id), 'out'),
  }));
  app.post<{ Params: { id: string } }>('/api/osts/:id/in', async (request) => ({
    mapEpoch: await cluster.admin(parseOstId(request.params.id), 'in'),
  }));
  // Removes OSTs for good (one map change for all of them: a whole host at once).
  app.post<{ Body: { ostIds?: unknown } }>('/api/osts/remove', async (request) => {
    const ids = request.body?.ostIds;
    if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => !Number.isInteger(id) || id < 0))
      throw new StripeError(
        'REQ_INVALID',
        'remove needs a JSON body { "ostIds": [id, ...] } with at least one id',
      );
    const ostIds = [...new Set(ids as number[])];
    return { mapEpoch: await cluster.remove(ostIds), removed: ostIds };
  });
  app.post<{ Params: { id: string }; Body: { weight?: unknown } }>(
    '/api/osts/:id/reweight',
    async (request) => {
      const weight = request.body?.weight;
      if (typeof weight !== 'number')
        throw new StripeError('REQ_INVALID', 'reweight needs a JSON body { "weight": number }');
      return { mapEpoch: await cluster.admin(parseOstId(request.params.id), 'reweight', weight) };
    },
  );
  return app;
}
