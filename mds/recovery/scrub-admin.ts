// Admin routes of deep scrub and phased weights (see admin.ts for the list),
// validated here: bad input answers REQ_INVALID naming the field.
import type { FastifyInstance } from 'fastify';
import { StripeError } from '../../common/index.js';
import type { HealingParts } from './admin.js';
import type { ScrubScope } from './scrub-plan.js';
import type { ScrubService, ScrubTask } from './scrub-service.js';

function isObject(body: unknown): body is Record<string, unknown> {
  return body !== null && typeof body === 'object' && !Array.isArray(body);
}

function wholeNumber(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new StripeError('REQ_INVALID', `${what}: expected an integer >= 0`);
  return value;
}

/** { pool?, pg?, repair? }: pool by id or name; pg needs pool. */
function parseScrubBody(body: unknown, parts: HealingParts): { scope?: ScrubScope; repair: boolean } {
  if (body === undefined || body === null) return { repair: true };
  if (!isObject(body))
    throw new StripeError('REQ_INVALID', 'scrub body: a JSON object { pool?, pg?, repair? }');
  for (const key of Object.keys(body))
    if (!['pool', 'pg', 'repair'].includes(key))
      throw new StripeError('REQ_INVALID', `unknown scrub field ${key}`);
  if (body.repair !== undefined && typeof body.repair !== 'boolean')
    throw new StripeError('REQ_INVALID', 'repair: expected true or false');
  const repair = body.repair !== false;
  if (body.pool === undefined && body.pg === undefined) return { repair };
  if (body.pool === undefined || body.pg === undefined)
    throw new StripeError('REQ_INVALID', 'scrub of one PG needs both pool and pg');
  const pools = parts.cluster.state.pools;
  const pool =
    typeof body.pool === 'string'
      ? pools.find((p) => p.name === body.pool)
      : pools.find((p) => p.id === body.pool);
  if (!pool) throw new StripeError('REQ_INVALID', `no pool ${JSON.stringify(body.pool)}`);
  return { scope: { poolId: pool.id, pg: wholeNumber(body.pg, 'pg') }, repair };
}

function brief(t: ScrubTask) {
  const { findings: _findings, skipped: _skipped, ...rest } = t;
  return { ...rest, pgsFinished: t.pgsDone + t.pgsSkipped + t.pgsFailed };
}

/** Progress of running scrubs and the last finished one, for /api/health and /api/pgs. */
export function scrubSummary(scrub: ScrubService) {
  const running = scrub.tasks.filter((t) => t.state === 'running').map(brief);
  const done = scrub.tasks.filter((t) => t.state === 'done');
  const last = done[done.length - 1];
  return { activePgs: scrub.scrubbingPgs().size, running, last: last ? brief(last) : null };
}

export function registerScrubAdmin(app: FastifyInstance, parts: HealingParts): void {
  const { scrub, phases, verifyDom } = parts;
  if (verifyDom) app.get('/api/dom/verify', () => verifyDom());
  app.post('/api/scrub', async (request) => {
    const { scope, repair } = parseScrubBody(request.body, parts);
    return scrub.startTask(scope, { trigger: 'admin', repair });
  });
  app.get('/api/scrub', async () => ({
    settings: scrub.settings,
    ...scrubSummary(scrub),
    tasks: scrub.tasks.map(brief),
  }));
  app.get<{ Params: { id: string } }>('/api/scrub/:id', async (request) => {
    if (!/^\d{1,9}$/.test(request.params.id))
      throw new StripeError(
        'REQ_INVALID',
        `scrub task ${JSON.stringify(request.params.id)}: expected a number`,
      );
    return scrub.task(Number(request.params.id));
  });
  app.post('/api/phases', async (request) => {
    const body = request.body;
    if (!isObject(body))
      throw new StripeError('REQ_INVALID', 'phase body: { "ostId": N, "weight": W, "step": S }');
    const ostId = wholeNumber(body.ostId, 'ostId');
    if (typeof body.weight !== 'number' || typeof body.step !== 'number')
      throw new StripeError('REQ_INVALID', 'weight and step: expected numbers');
    return phases.begin(ostId, body.weight, body.step);
  });
  app.get('/api/phases', async () => ({ phases: phases.view() }));
  app.delete<{ Params: { ost: string } }>('/api/phases/:ost', async (request) => {
    if (!/^\d{1,9}$/.test(request.params.ost))
      throw new StripeError('REQ_INVALID', `OST ${JSON.stringify(request.params.ost)}: expected a number`);
    return { cancelled: await phases.cancel(Number(request.params.ost)) };
  });
}
