// The MDS's framed path (common/mds-frames.ts): OpenMany, StatMany, Open and Stat as frames
// on TCP (TLS when the MDS serves TLS) beside gRPC. Each frame becomes a call
// to the same handler gRPC calls, with the same request message and the same
// metadata, so what a call must pass (the signature and its session, per-item
// caps, tickets on the answer, the audit line, job statistics, metrics) is
// checked by the code gRPC calls run through, not by a copy of it. What the
// framed path saves is gRPC's and HTTP/2's own cost per call, which on both
// sides was as much CPU as 20-40 items of a batch.
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { StripeError } from '../common/errors.js';
import { fromGrpcError } from '../common/grpc.js';
import type { Counter } from '../common/index.js';
import {
  decodeMeta,
  encodeFrameError,
  encodeFrameHeader,
  FRAME_REQUEST_MAGIC,
  FRAME_RESPONSE_MAGIC,
  FRAMED_METHODS,
  FrameCutter,
  type FramedMethod,
  type FrameHeader,
  FrameStatus,
  methodOfNumber,
} from '../common/mds-frames.js';
import { type ListeningServer, listenTcp } from '../common/tcp-listen.js';
import { bulkServerTls } from '../common/tls.js';

/** Connections the framed path takes at once (clients keep one each). */
export const FRAME_CONNECTIONS_MAX = 4_096;
/** Calls one connection may have in the MDS at once; past it the MDS reads no more of its frames. */
export const FRAME_CALLS_IN_FLIGHT_MAX = 64;
/** Bytes of answers a client has not taken yet past which the MDS reads no more of its frames. */
export const FRAME_ANSWER_BACKLOG_BYTES = 16 * 1024 * 1024;

type AnyUnary = grpc.handleUnaryCall<unknown, unknown>;

/** What the framed path needs of a method: its handler and its messages' codecs (gRPC's own). */
export interface FramedHandler {
  path: string;
  handler: AnyUnary;
  decode: (body: Buffer) => unknown;
  encode: (response: unknown) => Buffer;
}

export type FrameServer = ListeningServer;

/** The call object a gRPC handler reads: the request, its metadata, its peer and its method's path. */
function callOf(path: string, request: unknown, metadata: grpc.Metadata, peer: string) {
  return {
    request,
    metadata,
    cancelled: false,
    getPeer: () => peer,
    getPath: () => path,
  } as unknown as grpc.ServerUnaryCall<unknown, unknown>;
}

function metadataOf(meta: Buffer): grpc.Metadata {
  const metadata = new grpc.Metadata();
  for (const [key, value] of decodeMeta(meta)) metadata.add(key, value);
  return metadata;
}

/** One answer on the connection; past FRAME_ANSWER_BACKLOG_BYTES unsent the MDS reads no more of its frames. */
function writeAnswer(socket: Socket, callId: number, status: number, body: Buffer): void {
  if (socket.destroyed) return;
  socket.cork();
  socket.write(
    encodeFrameHeader({
      magic: FRAME_RESPONSE_MAGIC,
      kind: status,
      metaBytes: 0,
      callId,
      bodyBytes: body.length,
    }),
  );
  socket.write(body);
  socket.uncork();
  if (socket.writableLength >= FRAME_ANSWER_BACKLOG_BYTES) socket.pause();
}

/** Serves one connection: frames in, each through its handler, answers out in the order they finish. */
function serveConnection(
  socket: Socket,
  handlers: ReadonlyMap<FramedMethod, FramedHandler>,
  calls: Counter<'op'>,
): void {
  const peer = `${socket.remoteAddress ?? ''}:${socket.remotePort ?? 0}`;
  let inFlight = 0;
  const answer = (callId: number, status: number, body: Buffer): void =>
    writeAnswer(socket, callId, status, body);
  // Reads resume once the calls in the MDS and the answers not yet taken by the client are few again.
  const maybeResume = (): void => {
    if (inFlight < FRAME_CALLS_IN_FLIGHT_MAX && socket.writableLength < FRAME_ANSWER_BACKLOG_BYTES)
      socket.resume();
  };
  socket.on('drain', maybeResume);
  const fail = (callId: number, err: unknown): void =>
    answer(callId, FrameStatus.error, encodeFrameError(fromGrpcError(err)));
  const onFrame = (header: FrameHeader, meta: Buffer, body: Buffer): void => {
    const method = methodOfNumber(header.kind);
    const served = method ? handlers.get(method) : undefined;
    if (!method || !served) {
      fail(header.callId, new StripeError('REQ_INVALID', `MDS frame: no method ${header.kind} here`));
      return;
    }
    let call: grpc.ServerUnaryCall<unknown, unknown>;
    try {
      call = callOf(served.path, served.decode(body), metadataOf(meta), peer);
    } catch (err) {
      fail(header.callId, err instanceof StripeError ? err : new StripeError('REQ_INVALID', String(err)));
      return;
    }
    calls.inc({ op: method });
    inFlight++;
    if (inFlight >= FRAME_CALLS_IN_FLIGHT_MAX) socket.pause();
    served.handler(call, (err, value) => {
      inFlight--;
      maybeResume();
      if (err) fail(header.callId, err);
      else
        try {
          answer(header.callId, FrameStatus.ok, served.encode(value));
        } catch (encodeErr) {
          fail(header.callId, encodeErr);
        }
    });
  };
  const cutter = new FrameCutter(FRAME_REQUEST_MAGIC, onFrame);
  socket.on('data', (chunk: Buffer) => {
    try {
      cutter.push(chunk);
    } catch {
      // A broken frame: the stream cannot be followed further.
      socket.destroy();
    }
  });
  socket.on('error', () => socket.destroy());
}

/** Listens on host:port (0: any free port) for framed calls to `handlers`. */
export async function startFrameServer(
  host: string,
  port: number,
  handlers: ReadonlyMap<FramedMethod, FramedHandler>,
  calls: Counter<'op'>,
): Promise<FrameServer> {
  const sockets = new Set<Socket>();
  const serve = (socket: Socket): void => {
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveConnection(socket, handlers, calls);
  };
  const tls = bulkServerTls();
  const server: Server = tls ? createTlsServer(tls, serve) : createServer({ noDelay: true }, serve);
  server.maxConnections = FRAME_CONNECTIONS_MAX;
  return listenTcp(server, host, port, sockets, 'MDS frame server');
}

/** The framed methods' handlers, taken from the service's (as gRPC runs them) with gRPC's codecs. */
export function framedHandlers(
  service: grpc.ServiceDefinition,
  handlers: object,
): ReadonlyMap<FramedMethod, FramedHandler> {
  const served = new Map<FramedMethod, FramedHandler>();
  for (const method of Object.keys(FRAMED_METHODS) as FramedMethod[]) {
    const definition = service[method];
    const handler = (handlers as Record<string, unknown>)[method];
    if (!definition || typeof handler !== 'function') continue;
    served.set(method, {
      path: definition.path,
      handler: handler as AnyUnary,
      decode: (body) => definition.requestDeserialize(body),
      encode: (response) => definition.responseSerialize(response),
    });
  }
  return served;
}
