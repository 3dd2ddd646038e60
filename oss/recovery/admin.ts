// Admin routes of recovery and scrub on the OSS: POST /api/scrub runs a pass
// now (optionally of one OST: { "ostId": N }) and answers its report;
// GET /api/scrub gives the totals and the last report; GET /api/recovery the
// recovery counters of this OSS.
import type { FastifyInstance } from 'fastify';
import { StripeError } from '../../common/errors.js';
import type { Recoverer } from './recover-pg.js';
import type { Scrubber } from './scrub.js';

export function registerRecoveryRoutes(app: FastifyInstance, scrubber: Scrubber, recoverer: Recoverer): void {
  app.post<{ Body: { ostId?: unknown } | undefined }>('/api/scrub', async (req) => {
    const raw = req.body?.ostId;
    if (raw !== undefined && (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0))
      throw new StripeError('REQ_INVALID', 'scrub body: { "ostId": integer } or nothing');
    return scrubber.run(raw as number | undefined);
  });
  app.get('/api/scrub', async () => ({ totals: scrubber.totals, last: scrubber.last ?? null }));
  app.get('/api/recovery', async () => ({
    ...recoverer.counters,
    objectsRepaired: recoverer.objectsRepaired,
  }));
}
