// The dashboard on the MDS's admin server:
//   GET /dashboard/                 the page (static files, copied next to this module at build)
//   GET /api/dashboard              the latest sample and the charts' history (JSON)
//   GET /api/dashboard/events       server-sent events: `hello` (sample and history), then
//                                   `sample` (sample and its history point) each time one is taken
// The page loads nothing from elsewhere: its scripts and styles (uPlot included, vendored from npm
// at build) come from this server, and its Content-Security-Policy forbids any other origin.
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { StripeError } from '../../common/errors.js';
import type { DashboardSampler } from './sampler.js';

/** Dashboards watching at once (each holds one open response). */
export const DASHBOARD_VIEWERS_MAX = 64;
/** A comment on every open event stream this often, so proxies and browsers keep it open. */
const KEEPALIVE_MS = 15_000;

/** Every file the page is made of: the only files this server reads. */
const FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'charts.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
  'vendor/uPlot.iife.min.js': 'text/javascript; charset=utf-8',
  'vendor/uPlot.min.css': 'text/css; charset=utf-8',
};

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'";

const PUBLIC_DIR = new URL('./public/', import.meta.url);

async function fileBody(name: string, cache: Map<string, Buffer>): Promise<Buffer> {
  const cached = cache.get(name);
  if (cached) return cached;
  const body = await readFile(new URL(name, PUBLIC_DIR)).catch((err: NodeJS.ErrnoException) => {
    throw new StripeError(
      'REQ_INTERNAL',
      `dashboard file ${name} is missing next to the MDS (${err.code}): run npm run build, which copies mds/dashboard/public and uPlot there`,
    );
  });
  cache.set(name, body);
  return body;
}

function sendEvent(res: ServerResponse, event: string, data: unknown): boolean {
  return res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

export function registerDashboard(app: FastifyInstance, sampler: DashboardSampler, sampleMs: number): void {
  const cache = new Map<string, Buffer>();
  const streams = new Set<ServerResponse>();
  app.get('/dashboard', async (_request, reply) => reply.redirect('/dashboard/'));
  app.get<{ Params: { '*': string } }>('/dashboard/*', async (request, reply) => {
    const name = request.params['*'] || 'index.html';
    const type = FILES[name];
    if (!type) throw new StripeError('NS_NOT_FOUND', `no dashboard file ${JSON.stringify(name)}`);
    void reply.header('content-type', type).header('content-security-policy', CSP);
    return fileBody(name, cache);
  });
  app.get('/api/dashboard', async () => {
    if (!sampler.latest) await sampler.sample();
    return { sampleMs, snapshot: sampler.latest ?? null, history: sampler.historyPoints() };
  });
  app.get('/api/dashboard/events', async (request, reply) => {
    if (streams.size >= DASHBOARD_VIEWERS_MAX)
      throw new StripeError(
        'REQ_UNAVAILABLE',
        `${DASHBOARD_VIEWERS_MAX} dashboards are watching already; close one, or poll GET /api/dashboard`,
      );
    if (!sampler.latest) await sampler.sample();
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    streams.add(res);
    sendEvent(res, 'hello', { sampleMs, snapshot: sampler.latest ?? null, history: sampler.historyPoints() });
    // A viewer that does not keep up misses samples instead of growing this server's buffers.
    const unsubscribe = sampler.subscribe((snapshot, point) => {
      if (!res.writableNeedDrain) sendEvent(res, 'sample', { snapshot, point });
    });
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    const end = (): void => {
      unsubscribe();
      clearInterval(keepalive);
      streams.delete(res);
    };
    request.raw.on('close', end);
    res.on('close', end);
  });
  // Open event streams never end on their own: end them so the server can close.
  app.addHook('preClose', async () => {
    for (const res of streams) res.end();
  });
}
