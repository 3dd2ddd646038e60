// The S3 gateway as a fastify app, built apart from listen() so tests can
// inject requests. Every request is authenticated (AWS Signature V4), carried
// out as the identity that signed it (s3/actors.ts), routed by method, bucket,
// key and query to one operation (s3/ops/), and answered with the operation's
// reply or an S3 error document. A refusal the gateway decides itself (no
// key, a bad signature, an address outside an allow-list) goes to the MDS's
// audit log through `reportRefusal`; those the MDS decides are logged there.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { StripeClient } from '../client/index.js';
import type { RefusalReport } from '../common/auth/audit-reporter.js';
import type { Identity as Keyring } from '../common/auth/keyring.js';
import type { Logger } from '../common/logging.js';
import { type Actor, Actors, actorOf } from './actors.js';
import { ByteBudget } from './budget.js';
import type { CredentialStore } from './credentials.js';
import { type ErrorSubject, s3Error, wireOf } from './errors.js';
import { S3_LIMITS } from './limits.js';
import { errorReply, isPump, type S3Reply } from './reply.js';
import { queryMap, type S3Request, splitUrl, targetOf } from './request.js';
import { route } from './router.js';
import { verifySignatureV2 } from './sigv2.js';
import { type Authenticated, verifySignature } from './sigv4/verify.js';

export interface GatewayOptions {
  /** The gateway's own client: configured key pairs act as it. */
  client: StripeClient;
  /** The identity the own client signs as (its folder under /.stripefs-s3/id); default 'gateway'. */
  ownName?: string;
  credentials: CredentialStore;
  /** A client that signs as a stripefs identity (default: StripeClient.connect to `mds`). */
  connectAs?: (keyring: Keyring) => Promise<StripeClient>;
  /** The MDS address identities' clients connect to (when connectAs is not given). */
  mds?: string;
  /** Where refusals the gateway decides go (the MDS's audit log); default: nowhere. */
  reportRefusal?: (report: RefusalReport) => void;
  /** The region reported by GetBucketLocation and HeadBucket. */
  region: string;
  /** Virtual-hosted-style base domain (bucket.DOMAIN); '' for path style only. */
  domain: string;
  /** Smallest part but the last of a multipart upload (S3: 5 MiB). */
  partBytesMin: number;
  log: Logger;
  /** Serve HTTPS with this PEM certificate and key. */
  tls?: { cert: Buffer; key: Buffer };
  /** The clock signatures are checked against (tests move it). */
  nowMs?: () => number;
}

const PASS_THROUGH_TYPE = 'application/x-stripefs-s3-body';

/** What every operation may use: `client` and `scratch` are the acting identity's. */
export interface Gateway {
  client: StripeClient;
  /** The acting identity's own folder (staging files, multipart uploads). */
  scratch: string;
  actor: Actor;
  region: string;
  partBytesMin: number;
  uploads: ByteBudget;
  log: Logger;
}

function subjectOf(request: {
  bucket: string | undefined;
  key: string | undefined;
  query: Map<string, string>;
}): ErrorSubject {
  if (request.query.has('uploadId')) return 'upload';
  return request.key === undefined ? 'bucket' : 'object';
}

async function send(reply: FastifyReply, answer: S3Reply, requestId: string): Promise<void> {
  const headers = { ...answer.headers, 'x-amz-request-id': requestId, server: 'stripefs' };
  if (isPump(answer.body)) {
    // Written here, not by fastify: the pump reuses its buffers once the socket has taken them.
    reply.hijack();
    reply.raw.writeHead(answer.status, headers);
    try {
      await answer.body.pump(reply.raw);
      reply.raw.end();
    } catch (err) {
      // The headers are out: a body that fails is cut short, as fastify does with a failed stream.
      reply.raw.destroy(err as Error);
    }
    return;
  }
  void reply.status(answer.status).headers(headers);
  // No body: nothing for fastify to serialize (it would add a charset to a stored Content-Type).
  if (answer.body === undefined || answer.body === '') await reply.send();
  else await reply.send(answer.body);
}

function isSignatureV2(authorization: string | undefined, query: Map<string, string>): boolean {
  if (authorization !== undefined) return authorization.startsWith('AWS ');
  return query.has('AWSAccessKeyId') && query.has('Signature');
}

/** How a request's body travels (for the debug log): the payload mode, a trailer, a checksum header. */
function payloadOf(
  context: { method: string; resource: string },
  auth: Authenticated,
  headers: IncomingHttpHeaders,
): Record<string, unknown> {
  const p = auth.payload;
  const payload = p.kind === 'chunked' ? `chunked-${p.signing ? 'signed' : 'unsigned'}` : p.kind;
  const checksum = Object.keys(headers).find((h) => h.startsWith('x-amz-checksum-'));
  return { ...context, payload, trailer: headers['x-amz-trailer'], checksum };
}

/** The request as S3 names it, authenticated. Throws coded errors; `context` is filled as it learns. */
async function authenticate(
  options: GatewayOptions,
  raw: IncomingMessage,
  context: { method: string; resource: string; requestId: string; subject: ErrorSubject },
): Promise<S3Request> {
  const { rawPath, rawQuery } = splitUrl(raw.url ?? '/');
  let target: ReturnType<typeof targetOf>;
  let query: Map<string, string>;
  try {
    target = targetOf(rawPath, raw.headers.host, options.domain);
    query = queryMap(rawQuery);
    context.resource = decodeURIComponent(rawPath);
  } catch (err) {
    throw err instanceof URIError ? s3Error('InvalidArgument', 'the URL has a malformed %-escape') : err;
  }
  context.subject = subjectOf({ ...target, query });
  const signed = {
    method: context.method,
    rawPath,
    rawQuery,
    rawHeaders: raw.rawHeaders,
    nowMs: (options.nowMs ?? Date.now)(),
  };
  const auth = isSignatureV2(raw.headers.authorization, query)
    ? await verifySignatureV2(signed, options.credentials, target.fromHost ? target.bucket : undefined)
    : await verifySignature(signed, options.credentials);
  if (context.method === 'PUT' || context.method === 'POST')
    options.log.debug(payloadOf(context, auth, raw.headers), 'S3 body');
  const { bucket, key } = target;
  return {
    method: context.method,
    bucket,
    key,
    query,
    headers: raw.headers,
    raw,
    auth,
    requestId: context.requestId,
    resource: context.resource,
  };
}

/** The access key a request names (unverified), for the audit record of its refusal. */
function claimedAccessKey(raw: IncomingMessage): string {
  const authorization = raw.headers.authorization ?? '';
  const url = raw.url ?? '';
  const found =
    /Credential=([^/,\s]+)\//.exec(authorization) ??
    /^AWS ([^:\s]+):/.exec(authorization) ??
    /[?&]X-Amz-Credential=([^%&/]+)/.exec(url) ??
    /[?&]AWSAccessKeyId=([^&]+)/.exec(url);
  return (found?.[1] ?? '').slice(0, 128);
}

/** Refusals the gateway decides itself; the MDS audits its own (AUTH_DENIED and the like). */
function decidedHere(err: unknown, code: string): boolean {
  return (
    code === 'S3_ACCESS_DENIED' ||
    code === 'S3_SIGNATURE_MISMATCH' ||
    (err as { details?: { door?: unknown } }).details?.door === 's3'
  );
}

/** What every request shares; the acting identity's client and folder are added per request. */
type Shared = Omit<Gateway, 'client' | 'scratch' | 'actor'> & { actors: Actors };

/** Authenticates, acts as the identity that signed, and answers with the operation's reply. */
async function answer(
  shared: Shared,
  options: GatewayOptions,
  raw: IncomingMessage,
  reply: FastifyReply,
  context: { method: string; resource: string; requestId: string; subject: ErrorSubject },
): Promise<void> {
  const request = await authenticate(options, raw, context);
  const { actor, release } = await shared.actors.acquire(request.auth.identity);
  // Held until the answer is sent (a GET streams after its operation returns).
  reply.raw.once('finish', release);
  reply.raw.once('close', release);
  const gateway: Gateway = { ...shared, client: actor.client, scratch: actor.scratch, actor };
  await send(reply, await route(gateway, request, raw.socket?.remoteAddress), context.requestId);
}

/** Answers one request: its operation's reply, or the S3 error document of what it threw. */
async function handle(
  shared: Shared,
  options: GatewayOptions,
  raw: IncomingMessage,
  reply: FastifyReply,
): Promise<void> {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const context = {
    method: raw.method ?? 'GET',
    resource: raw.url ?? '/',
    requestId,
    subject: 'bucket' as ErrorSubject,
  };
  try {
    await answer(shared, options, raw, reply, context);
  } catch (err) {
    const wire = wireOf(err, context.subject);
    if (wire.http >= 500)
      shared.log.warn(
        { err, requestId, method: context.method, resource: context.resource },
        'S3 request failed',
      );
    if (decidedHere(err, wire.code))
      options.reportRefusal?.({
        identity: claimedAccessKey(raw),
        address: raw.socket?.remoteAddress ?? '',
        op: `s3:${context.method}`,
        paths: [context.resource.slice(0, 1024)],
        result: wire.code,
        door: 's3',
      });
    const answer = errorReply(err, context.subject, context);
    const sizeBytes = (err as { details?: { sizeBytes?: unknown } }).details?.sizeBytes;
    if (wire.s3Code === 'InvalidRange' && typeof sizeBytes === 'number')
      answer.headers['content-range'] = `bytes */${sizeBytes}`;
    if (!reply.sent) await send(reply, answer, requestId);
  }
}

export function buildS3Gateway(options: GatewayOptions): FastifyInstance {
  const mds = options.mds;
  const connectAs =
    options.connectAs ??
    ((keyring: Keyring) => {
      if (mds === undefined) throw new Error('buildS3Gateway needs mds or connectAs to act as identities');
      return StripeClient.connect({ mds, keyring });
    });
  const shared: Shared = {
    actors: new Actors(actorOf(options.ownName ?? 'gateway', options.client), connectAs),
    region: options.region,
    partBytesMin: options.partBytesMin,
    uploads: new ByteBudget(S3_LIMITS.uploadBytesInFlightMax, S3_LIMITS.uploadsQueuedMax),
    log: options.log,
  };
  const app = Fastify({
    logger: false,
    routerOptions: { maxParamLength: 64 * 1024 },
    requestTimeout: 0,
    exposeHeadRoutes: false,
    ...(options.tls ? { https: options.tls } : {}),
  }) as unknown as FastifyInstance;
  app.addHook('onClose', () => shared.actors.close());
  // Bodies are streamed by the operations themselves, never parsed by fastify: whatever
  // Content-Type a client sends (none, empty, not a media type at all) is set aside for the
  // handler, and fastify sees one it hands through untouched.
  const originalType = new WeakMap<object, string | undefined>();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(PASS_THROUGH_TYPE, (_request, _payload, done) => done(null, undefined));
  app.addHook('onRequest', async (request) => {
    originalType.set(request.raw, request.raw.headers['content-type']);
    request.raw.headers['content-type'] = PASS_THROUGH_TYPE;
  });
  const handler = (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const contentType = originalType.get(request.raw);
    if (contentType === undefined) delete request.raw.headers['content-type'];
    else request.raw.headers['content-type'] = contentType;
    return handle(shared, options, request.raw, reply);
  };
  app.route({ method: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'], url: '/*', handler });
  app.route({ method: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'], url: '/', handler });
  return app;
}
