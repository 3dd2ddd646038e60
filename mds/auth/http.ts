// The gate of the MDS's admin HTTP API. Every route but /healthz (the
// containers' health checks), the dashboard's static files (no data in them)
// and, with auth.metricsOpen, GET /metrics needs an admin identity: a signed
// request (Authorization: Stripefs ..., common/auth/http-auth.ts), or, for
// reads only, a bearer ticket of scope @http (the Authorization header, or
// the dashboard's cookie) that POST /api/auth/token hands to a signed or
// bearer caller. A bearer ticket changes nothing: a leaked dashboard link can
// watch, not act, until it expires or its session is evicted. Refusals are
// answered with their code and audited (door mds-http); requests that change
// something are audited with their result.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { credentialOf, errorCodeOfPayload, httpSignedMethod } from '../../common/auth/http-auth.js';
import { checkHttpTicket, HTTP_SCOPE } from '../../common/auth/ticket.js';
import { type Clock, StripeError } from '../../common/index.js';
import type { Gate } from './access.js';

export const TOKEN_COOKIE = 'stripefs_token';
/** The header of the MDS's own requests to its admin API (the dashboard's sampler, by inject). */
const INTERNAL_HEADER = 'x-stripefs-internal';
const internal = new WeakMap<object, string>();

/** Headers that let this process's own in-process requests (app.inject) through the gate of `app`. */
export function internalHeadersOf(app: object): Record<string, string> {
  let secret = internal.get(app);
  if (!secret) {
    secret = randomBytes(32).toString('base64url');
    internal.set(app, secret);
  }
  return { [INTERNAL_HEADER]: secret };
}

function isInternal(app: object, request: FastifyRequest): boolean {
  const given = request.headers[INTERNAL_HEADER];
  const secret = internal.get(app);
  return typeof given === 'string' && secret !== undefined && given === secret;
}
/** The route that hands out bearer tickets (the dashboard renews its cookie there). */
export const TOKEN_ROUTE = '/api/auth/token';

interface HttpCaller {
  name: string;
  clientId: string;
  address: string | undefined;
}

/** Routes served without a key. */
function isOpen(method: string, path: string, metricsOpen: boolean): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (path === '/healthz') return true;
  if (path === '/metrics') return metricsOpen;
  return path === '/dashboard' || path.startsWith('/dashboard/');
}

function cookieToken(header: string | undefined): string | undefined {
  const found = /(?:^|;\s*)stripefs_token=([^;]*)/.exec(header ?? '');
  return found ? decodeURIComponent(found[1] as string) : undefined;
}

function addressOf(request: FastifyRequest): string | undefined {
  return request.socket.remoteAddress;
}

/** The name a refused request claimed (unverified). */
function claimedName(request: FastifyRequest): string {
  const credential = credentialOf(request.headers.authorization);
  const text = credential.kind === 'none' ? cookieToken(request.headers.cookie) : credential.value;
  const words = (text ?? '').split(' ');
  return (credential.kind === 'signed' ? words[1] : words[6]) ?? '';
}

function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0] as string;
}

/** The admin identity a request proves, or its coded refusal. */
function callerOf(gate: Gate, request: FastifyRequest, nowMs: number): HttpCaller {
  const guard = gate.guard;
  const tickets = gate.tickets;
  if (!guard || !tickets) throw new Error('the admin HTTP gate runs only with auth on');
  const address = addressOf(request);
  const header = credentialOf(request.headers.authorization);
  const bearer =
    header.kind === 'bearer'
      ? header.value
      : header.kind === 'none'
        ? cookieToken(request.headers.cookie)
        : undefined;
  if (header.kind === 'signed') {
    const method = httpSignedMethod(request.method, request.headers.host ?? '', request.url);
    const who = guard.verify(header.value, method, address);
    if (!who.identity.record.admin)
      throw new StripeError(
        'AUTH_DENIED',
        `the admin HTTP API needs an admin identity; ${who.identity.record.name} is not one`,
        {
          identity: who.identity.record.name,
        },
      );
    return { name: who.identity.record.name, clientId: who.session.clientId, address };
  }
  if (bearer === undefined)
    throw new StripeError(
      'AUTH_REQUIRED',
      `${request.method} ${pathOf(request)} needs an admin identity: sign it (the CLI does, with its keyring), or open the dashboard from \`stripefs dashboard\``,
    );
  const ticket = checkHttpTicket(bearer, tickets.keysById(), nowMs, (id) => tickets.isRevoked(id));
  const readOnly = request.method === 'GET' || request.method === 'HEAD';
  if (!readOnly && !(request.method === 'POST' && pathOf(request) === TOKEN_ROUTE))
    throw new StripeError(
      'AUTH_DENIED',
      `a bearer ticket only reads; ${request.method} ${pathOf(request)} must be signed`,
      {
        identity: ticket.name,
      },
    );
  // A ticket outlives nothing: its identity must still be an admin now.
  if (!guard.identities.get(ticket.name)?.record.admin)
    throw new StripeError('AUTH_DENIED', `${ticket.name} is no longer an admin identity`, {
      identity: ticket.name,
    });
  return { name: ticket.name, clientId: ticket.clientId, address };
}

/** Writes one line of the audit log for an admin HTTP request (a refusal, or a change and its result). */
function audit(gate: Gate, request: FastifyRequest, caller: HttpCaller | undefined, result: string): void {
  void gate.auditor?.log.append({
    identity: caller?.name ?? claimedName(request),
    client: caller?.clientId ?? '',
    address: addressOf(request) ?? '',
    op: `HTTP ${request.method} ${pathOf(request)}`,
    paths: [],
    result,
    door: 'mds-http',
  });
}

/** A fresh bearer ticket for the caller's session, as JSON and as the dashboard's cookie. */
function tokenRoute(
  app: FastifyInstance,
  gate: Gate,
  callers: WeakMap<object, HttpCaller>,
  clock: Clock,
): void {
  app.post(TOKEN_ROUTE, async (request, reply: FastifyReply) => {
    const caller = callers.get(request.raw);
    if (!caller || !gate.tickets)
      throw new StripeError('REQ_INVALID', 'this MDS runs without auth: its admin API needs no token');
    const ttlMs = gate.tickets.ttlMs;
    const token = gate.tickets.mint({
      scope: HTTP_SCOPE,
      write: false,
      clientId: caller.clientId,
      name: caller.name,
    });
    // Over HTTPS (an MDS with TLS) the browser is told never to send it over plain HTTP.
    const secure = request.protocol === 'https' ? '; Secure' : '';
    void reply.header(
      'set-cookie',
      `${TOKEN_COOKIE}=${encodeURIComponent(token)}; Path=/; HttpOnly; SameSite=Strict${secure}; Max-Age=${Math.floor(ttlMs / 1000)}`,
    );
    return { token, expiresMs: clock.nowMs() + ttlMs, identity: caller.name };
  });
}

/** Puts the gate in front of every route of `app` (nothing when auth is off). */
export function guardAdminHttp(app: FastifyInstance, gate: Gate, metricsOpen: boolean, clock: Clock): void {
  const callers = new WeakMap<object, HttpCaller>();
  const results = new WeakMap<object, string>();
  tokenRoute(app, gate, callers, clock);
  if (!gate.guard || !gate.tickets) return;
  app.addHook('onRequest', async (request, reply) => {
    if (isOpen(request.method, pathOf(request), metricsOpen) || isInternal(app, request)) return;
    try {
      callers.set(request.raw, callerOf(gate, request, clock.nowMs()));
    } catch (err) {
      const coded =
        err instanceof StripeError ? err : new StripeError('REQ_INTERNAL', (err as Error).message);
      audit(gate, request, undefined, coded.code);
      return reply.code(coded.httpStatus).send(coded.toJSON());
    }
  });
  // The code an error answer carries, for the audit record of a change.
  app.addHook('onSend', async (request, reply, payload) => {
    const code = reply.statusCode >= 400 ? errorCodeOfPayload(payload) : undefined;
    if (code !== undefined) results.set(request.raw, code);
    return payload;
  });
  app.addHook('onResponse', async (request, reply) => {
    const caller = callers.get(request.raw);
    if (!caller || request.method === 'GET' || request.method === 'HEAD') return;
    audit(
      gate,
      request,
      caller,
      reply.statusCode < 400 ? 'OK' : (results.get(request.raw) ?? 'REQ_INTERNAL'),
    );
  });
}
