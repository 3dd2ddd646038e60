// gRPC edges: map StripeError <-> gRPC status, build servers and clients with
// the limits from limits.ts. Codes travel in the `stripefs-code` trailer so a
// client gets back exactly the code the server raised.
import * as grpc from '@grpc/grpc-js';
import { ERROR_CODES, type ErrorCode, isErrorCode, StripeError } from './errors.js';
import { LIMITS } from './limits.js';
import { serverCredentials } from './tls.js';

export const CODE_METADATA_KEY = 'stripefs-code';
const DETAILS_METADATA_KEY = 'stripefs-details';

/** Turns any thrown value into a gRPC status error, keeping the stable code. */
export function toGrpcError(err: unknown): Partial<grpc.ServiceError> {
  const stripeErr =
    err instanceof StripeError
      ? err
      : new StripeError('REQ_INTERNAL', err instanceof Error ? err.message : String(err));
  const metadata = new grpc.Metadata();
  metadata.set(CODE_METADATA_KEY, stripeErr.code);
  if (Object.keys(stripeErr.details).length > 0) {
    metadata.set(DETAILS_METADATA_KEY, JSON.stringify(stripeErr.details));
  }
  return { code: ERROR_CODES[stripeErr.code].grpc, details: stripeErr.message, metadata };
}

function grpcStatusToCode(status: grpc.status): ErrorCode {
  switch (status) {
    case grpc.status.DEADLINE_EXCEEDED:
      return 'REQ_TIMEOUT';
    case grpc.status.UNAVAILABLE:
    case grpc.status.CANCELLED:
      return 'REQ_UNAVAILABLE';
    case grpc.status.RESOURCE_EXHAUSTED:
      return 'REQ_TOO_LARGE';
    case grpc.status.INVALID_ARGUMENT:
      return 'REQ_INVALID';
    default:
      return 'REQ_INTERNAL';
  }
}

/**
 * grpc-js says a connection failed as "No connection established. Last error: Error: connect
 * ECONNREFUSED 127.0.0.1:7070. Resolution note: " (the note is often empty); keep what happened.
 */
export function tidyConnectionMessage(message: string): string {
  const match = /^No connection established\. Last error: (?:Error: )?(.*?)\.? Resolution note: ?(.*)$/s.exec(
    message,
  );
  if (!match) return message;
  const note = match[2]?.trim();
  return `no connection: ${match[1]}${note ? ` (${note})` : ''}`;
}

/** Turns a gRPC client error back into the StripeError the server raised. */
export function fromGrpcError(err: unknown): StripeError {
  if (err instanceof StripeError) return err;
  const serviceErr = err as Partial<grpc.ServiceError>;
  const raw = serviceErr.metadata?.get(CODE_METADATA_KEY)[0];
  const code: ErrorCode = isErrorCode(raw) ? raw : grpcStatusToCode(serviceErr.code ?? grpc.status.UNKNOWN);
  let details: Record<string, unknown> = {};
  const rawDetails = serviceErr.metadata?.get(DETAILS_METADATA_KEY)[0];
  if (typeof rawDetails === 'string') {
    try {
      details = JSON.parse(rawDetails) as Record<string, unknown>;
    } catch {
      details = {};
    }
  }
  const message = tidyConnectionMessage(
    serviceErr.details ?? (err instanceof Error ? err.message : String(err)),
  );
  return new StripeError(code, message, details);
}

export const SERVER_OPTIONS: grpc.ServerOptions = {
  'grpc.max_receive_message_length': LIMITS.grpcMessageBytesMax,
  'grpc.max_send_message_length': LIMITS.grpcMessageBytesMax,
  'grpc.keepalive_permit_without_calls': 1,
};

export const CLIENT_OPTIONS: grpc.ChannelOptions = {
  'grpc.max_receive_message_length': LIMITS.grpcMessageBytesMax,
  'grpc.max_send_message_length': LIMITS.grpcMessageBytesMax,
  'grpc-node.flow_control_window': LIMITS.grpcClientWindowBytes,
  'grpc.keepalive_time_ms': LIMITS.grpcKeepaliveMs,
  'grpc.keepalive_timeout_ms': LIMITS.grpcKeepaliveTimeoutMs,
};

/**
 * Call options for a call that must finish within `timeoutMs` from now: every gRPC call
 * stripefs makes has a deadline, and this is the one place that turns a timeout into one.
 */
export function deadlineIn(timeoutMs: number): grpc.CallOptions {
  return { deadline: Date.now() + timeoutMs };
}

/** Wraps an async unary handler: resolves to the response or a coded error. */
export function unary<Req, Res>(
  handler: (request: Req, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    handler(call.request, call).then(
      (response) => callback(null, response),
      (err: unknown) => callback(toGrpcError(err)),
    );
  };
}

/** Binds a server on host:port (port 0 picks a free one) and returns the bound port. */
export function bindServer(server: grpc.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, serverCredentials(), (err, boundPort) => {
      if (err) reject(err);
      else resolve(boundPort);
    });
  });
}

// Generated client methods are overloaded; the last overload is always
// (argument, callback), which is the one conditional types infer from.
export type RequestOf<F> = F extends (
  argument: infer Req,
  callback: grpc.requestCallback<infer _Res>,
) => grpc.ClientUnaryCall
  ? Req
  : never;
export type ResponseOf<F> = F extends (
  argument: infer _Req,
  callback: grpc.requestCallback<infer Res>,
) => grpc.ClientUnaryCall
  ? Res
  : never;

/**
 * Calls a unary method of a generated client as a promise, mapping failures
 * to StripeError: `await call(mdsClient, 'Stat', { path })`. (Passing the
 * client and the method name keeps the request and response types; a bound
 * method loses them to TypeScript's overload inference.)
 */
export function call<C extends grpc.Client, K extends keyof C & string>(
  client: C,
  method: K,
  request: RequestOf<C[K]>,
  options: grpc.CallOptions = {},
): Promise<ResponseOf<C[K]>> {
  const invoke = client[method] as unknown as (
    req: RequestOf<C[K]>,
    opts: grpc.CallOptions,
    cb: grpc.requestCallback<ResponseOf<C[K]>>,
  ) => grpc.ClientUnaryCall;
  return new Promise((resolve, reject) => {
    invoke.call(client, request, options, (err, response) => {
      if (err) reject(namingCall(fromGrpcError(err), method, client));
      else if (response === undefined) reject(new StripeError('REQ_INTERNAL', 'empty gRPC response'));
      else resolve(response);
    });
  });
}

/**
 * A connection failure names the call and the address it was for ("no connection: ... (Open to
 * 127.0.0.1:7070)"): grpc-js's own message names neither, and a user (or a test log) otherwise
 * cannot tell which server was out of reach.
 */
function namingCall(err: StripeError, method: string, client: grpc.Client): StripeError {
  if (!err.message.startsWith('no connection:')) return err;
  const target = client.getChannel().getTarget().replace(/^dns:/, '');
  return new StripeError(err.code, `${err.message} (${method} to ${target})`, { ...err.details });
}

export function shutdownServer(server: grpc.Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
