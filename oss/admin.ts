// The OSS admin HTTP server (fastify), built apart from listen() so tests can
// use inject(): health, Prometheus metrics, OST usage, where an object's bytes
// lie, and the fault knobs.
import Fastify, { type FastifyInstance } from 'fastify';
import type { adminServerOptions } from '../common/admin-https.js';
import { StripeError } from '../common/errors.js';
import { parseFaultKnobs } from './faults.js';
import type { OssMetrics } from './metrics.js';
import type { OssCore } from './ops.js';

export interface AdminDeps {
  core: OssCore;
  metrics: OssMetrics;
  ossId: string;
  /** How the bulk server reads its sockets (oss/bulk-socket.ts). */
  bulkSocketPath: string;
}

function ostIdParam(raw: string): number {
  if (!/^\d+$/.test(raw))
    throw new StripeError('REQ_INVALID', `OST id ${JSON.stringify(raw)} is not a number`);
  return Number(raw);
}

/** Where an object's bytes lie on this OSS's disk (a file of its own, or a record in a log segment). */
function registerLocationRoute(app: FastifyInstance, core: OssCore): void {
  app.get<{ Params: { id: string; objectId: string } }>(
    '/api/osts/:id/objects/:objectId/location',
    async (req) => {
      const ostId = ostIdParam(req.params.id);
      const location = await core.handle(ostId).ost.locate(req.params.objectId);
      if (!location)
        throw new StripeError('OBJ_NOT_FOUND', `object ${req.params.objectId} not found on OST ${ostId}`);
      return { id: ostId, objectId: req.params.objectId, ...location };
    },
  );
}

export function buildAdminApp(
  { core, metrics, ossId, bulkSocketPath }: AdminDeps,
  /** HTTPS when the OSS serves TLS (common/admin-https.ts); none: plain HTTP. */
  server: ReturnType<typeof adminServerOptions> = {},
): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024, ...server });
  app.setErrorHandler((err: unknown, _req, reply) => {
    const status = (err as { statusCode?: number }).statusCode;
    const message = err instanceof Error ? err.message : String(err);
    const stripeErr =
      err instanceof StripeError
        ? err
        : new StripeError(
            status === 413 ? 'REQ_TOO_LARGE' : status && status < 500 ? 'REQ_INVALID' : 'REQ_INTERNAL',
            message,
          );
    void reply.status(stripeErr.httpStatus).send(stripeErr.toJSON());
  });
  app.get('/healthz', async () => ({
    ok: !core.closing,
    server: 'oss',
    ossId,
    mapEpoch: core.mapView.epoch,
    bulkSocketPath,
    osts: core.handles.map((h) => ({ name: h.ost.name, id: h.ost.id ?? null })),
  }));
  app.get('/metrics', async (_req, reply) => {
    void reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
  app.get('/api/osts', async () =>
    core.handles.map((h) => {
      const { usedBytes, capacityBytes, objectCount, log, syncs, handles } = h.ost.usage();
      return {
        id: h.ost.id ?? null,
        name: h.ost.name,
        usedBytes,
        totalBytes: capacityBytes,
        objectCount,
        // Durability requests of object files and of the index log, and the syncs that served them (grouped).
        ...(syncs ? { syncs } : {}),
        // Opens of object files made and avoided (oss/store/read-handles.ts).
        ...(handles ? { handles } : {}),
        // The segment log of small objects (oss.smallObjectBytes): its segments, bytes, live bytes, compactions.
        ...(log ? { log } : {}),
        faults: h.faults.current,
      };
    }),
  );
  // Job statistics as this OSS counts them (the MDS sums every OSS's: GET /api/jobs there).
  app.get('/api/jobs', async () => ({
    entriesMax: core.jobs.entriesMax,
    dropped: core.jobs.dropped,
    entries: core.jobs.view(),
  }));
  app.put<{ Params: { id: string } }>('/api/osts/:id/faults', async (req) => {
    const ostId = ostIdParam(req.params.id);
    const knobs = parseFaultKnobs(req.body);
    core.setFaults(ostId, knobs);
    return { id: ostId, faults: core.handle(ostId).faults.current };
  });
  registerLocationRoute(app, core);
  app.delete<{ Params: { id: string } }>('/api/osts/:id/faults', async (req) => {
    const ostId = ostIdParam(req.params.id);
    core.setFaults(ostId, null);
    return { id: ostId, faults: {} };
  });
  return app;
}
