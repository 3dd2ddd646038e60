// The gate of an OSS's admin HTTP API (faults, usage, job counts, scrub):
// once the MDS runs with auth (this OSS holds ticket keys), every route but
// /healthz (the containers' health checks) and, with auth.metricsOpen,
// GET /metrics needs a request signed by an admin identity (Authorization:
// Stripefs ..., common/auth/http-auth.ts). The OSS checks it alone, with the
// admin identities' stored keys the MDS sends in every heartbeat answer (a
// stored key verifies, it cannot sign), its own replay window, and the
// revoked sessions the MDS sends; so rotation, removal and eviction reach it
// within a heartbeat. Refusals, and requests that change something, go to the
// MDS's audit log (door oss-http).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RefusalReport } from '../common/auth/audit-reporter.js';
import { credentialOf, errorCodeOfPayload, httpSignedMethod } from '../common/auth/http-auth.js';
import { SignatureVerifier, type Verified } from '../common/auth/verifier.js';
import { StripeError } from '../common/errors.js';
import type { AdminKeyEntry, TicketGuard } from './tickets.js';

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] as string;
}

function isOpen(method: string, path: string, metricsOpen: boolean): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  return path === '/healthz' || (path === '/metrics' && metricsOpen);
}

export function guardOssHttp(
  app: FastifyInstance,
  tickets: TicketGuard,
  options: { metricsOpen: boolean; windowMs: number; nowMs: () => number },
  report: (report: RefusalReport) => void,
): void {
  const verifier = new SignatureVerifier<AdminKeyEntry>(
    (name) => tickets.adminKey(name),
    options.nowMs,
    options.windowMs,
    (clientId) => tickets.isRevoked(clientId),
  );
  const callers = new WeakMap<object, Verified<AdminKeyEntry>>();
  const audit = (request: FastifyRequest, identity: string, result: string) =>
    report({
      identity,
      address: request.socket.remoteAddress ?? '',
      op: `HTTP ${request.method} ${pathOf(request)}`,
      paths: [],
      result,
      door: 'oss-http',
    });
  app.addHook('onRequest', async (request, reply) => {
    // Without keys from the MDS (it runs without auth) this OSS checks nothing, as for tickets.
    if (!tickets.enforcing || isOpen(request.method, pathOf(request), options.metricsOpen)) return;
    const credential = credentialOf(request.headers.authorization);
    try {
      if (credential.kind !== 'signed')
        throw new StripeError(
          'AUTH_REQUIRED',
          `${request.method} ${pathOf(request)} needs a request signed by an admin identity (the CLI signs with its keyring)`,
        );
      const method = httpSignedMethod(request.method, request.headers.host ?? '', request.url);
      callers.set(request.raw, verifier.verify(credential.value, method, request.socket.remoteAddress));
    } catch (err) {
      const coded =
        err instanceof StripeError ? err : new StripeError('REQ_INTERNAL', (err as Error).message);
      audit(request, credential.kind === 'signed' ? (credential.value.split(' ')[1] ?? '') : '', coded.code);
      return reply.code(coded.httpStatus).send(coded.toJSON());
    }
  });
  const results = new WeakMap<object, string>();
  app.addHook('onSend', async (request, reply, payload) => {
    const code = reply.statusCode >= 400 ? errorCodeOfPayload(payload) : undefined;
    if (code !== undefined) results.set(request.raw, code);
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const caller = callers.get(request.raw);
    if (!caller || request.method === 'GET' || request.method === 'HEAD') return;
    audit(request, caller.name, reply.statusCode < 400 ? 'OK' : (results.get(request.raw) ?? 'REQ_INTERNAL'));
  });
}
