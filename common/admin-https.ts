// HTTPS on the admin HTTP ports (the MDS's and each OSS's admin API, their
// /metrics, the local launcher's control API) of a server that holds a
// certificate (tls.cert, tls.key: the one its gRPC and bulk ports present).
// One port serves both: a connection whose first byte opens a TLS handshake
// (22) goes to the HTTPS server, any other to a plain HTTP server that answers
// TLS_REQUIRED (a coded JSON body saying to use https:// and the cluster's CA,
// where a TLS alert would mean nothing to curl or a browser), except the
// requests `plainAllowed` names (GET /metrics with tls.metricsPlain, for a
// Prometheus without the CA), which it serves as the HTTPS server would. A
// plain connection carries one request (`connection: close`), so closing the
// server never waits on one.
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { StripeError } from './errors.js';
import { tlsSettings } from './tls-settings.js';

/** The first byte of a TLS record that opens a handshake. */
const TLS_HANDSHAKE_BYTE = 0x16;
/** How long a new connection may stay silent before it is dropped (it has not said which it speaks). */
const FIRST_BYTE_TIMEOUT_MS = 10_000;

export interface AdminHttpsOptions {
  cert: Buffer;
  key: Buffer;
  /** Requests also served over plain HTTP (none: every plain request is TLS_REQUIRED). */
  plainAllowed?: (method: string, url: string) => boolean;
}

/** GET /metrics (any query): what tls.metricsPlain lets through over plain HTTP. */
export function isMetricsRequest(method: string, url: string): boolean {
  return method === 'GET' && (url === '/metrics' || url.startsWith('/metrics?'));
}

function refusePlain(response: Parameters<RequestListener>[1]): void {
  const err = new StripeError(
    'TLS_REQUIRED',
    "this admin port speaks HTTPS only: use https:// and the cluster's CA (tls.ca; curl --cacert data/tls/ca.pem)",
  );
  response.writeHead(err.httpStatus, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(err.toJSON()));
}

/** Calls `then` with whether the socket's first byte opens a TLS handshake, that byte put back. */
function sniff(socket: Socket, then: (tls: boolean) => void): void {
  const drop = (): void => {
    socket.destroy();
  };
  socket.on('error', drop);
  socket.setTimeout(FIRST_BYTE_TIMEOUT_MS, drop);
  const peek = (): void => {
    const first = socket.read(1) as Buffer | null;
    if (first === null) {
      socket.once('readable', peek);
      return;
    }
    socket.removeListener('error', drop);
    socket.setTimeout(0);
    socket.unshift(first);
    then(first[0] === TLS_HANDSHAKE_BYTE);
  };
  peek();
}

/**
 * A fastify `serverFactory`: an HTTPS server with `options`' certificate whose port also answers
 * plain HTTP (refused, or the requests `plainAllowed` names).
 */
export function adminHttpsFactory(options: AdminHttpsOptions): (handler: RequestListener) => Server {
  return (handler) => {
    const server = createHttpsServer({ cert: options.cert, key: options.key }, handler);
    const plainSockets = new Set<Socket>();
    const plain = createHttpServer((request, response) => {
      response.setHeader('connection', 'close');
      if (options.plainAllowed?.(request.method ?? '', request.url ?? '')) handler(request, response);
      else refusePlain(response);
    });
    const startTls = server.listeners('connection') as ((socket: Socket) => void)[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      sniff(socket, (tls) => {
        if (tls) {
          for (const listener of startTls) listener.call(server, socket);
          return;
        }
        plainSockets.add(socket);
        socket.once('close', () => plainSockets.delete(socket));
        plain.emit('connection', socket);
      });
    });
    // fastify's close ends idle connections; plain ones, which it does not know of, with them.
    const closeIdle = server.closeIdleConnections.bind(server);
    server.closeIdleConnections = () => {
      closeIdle();
      for (const socket of plainSockets) socket.destroy();
    };
    return server as unknown as Server;
  };
}

/**
 * The fastify options of an admin HTTP server of this process: HTTPS when it serves TLS (a
 * certificate in its settings, common/tls-settings.ts), else none (plain HTTP).
 */
export function adminServerOptions(metricsPlain: boolean): {
  serverFactory?: (handler: RequestListener) => Server;
} {
  const tls = tlsSettings();
  if (!tls?.cert || !tls.key) return {};
  return {
    serverFactory: adminHttpsFactory({
      cert: tls.cert,
      key: tls.key,
      ...(metricsPlain ? { plainAllowed: isMetricsRequest } : {}),
    }),
  };
}
