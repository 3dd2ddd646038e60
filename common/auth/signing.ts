// Where a client's identity comes from, and the gRPC interceptor that signs
// each of its calls. One CallSigner per client: its id and rising sequence
// numbers are what the MDS lists as a session and checks for replays.
import * as grpc from '@grpc/grpc-js';
import type { Identity } from './keyring.js';
import { AUTH_METADATA_KEY, CallSigner } from './proof.js';
import { TICKET_METADATA_KEY } from './ticket.js';

export { DEFAULT_KEYRING_PATH, type IdentitySource, resolveIdentity } from './identity-source.js';

/** Adds the signed metadata to every call (unary and streaming) of a client. */
export function signingInterceptor(signer: CallSigner): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(AUTH_METADATA_KEY, signer.sign(options.method_definition.path));
        next(metadata, listener);
      },
    });
}

/** Client options that sign with `identity` (none: nothing added). */
export function signingOptions(identity: Identity | undefined): { interceptors?: grpc.Interceptor[] } {
  return identity ? { interceptors: [signingInterceptor(CallSigner.of(identity))] } : {};
}

/**
 * Client options that put a data-path ticket on every call: `ticketOf()` is asked at each call
 * (undefined: none), so a service that holds the ticket keys mints or refreshes it there.
 */
export function ticketOptions(ticketOf: () => string | undefined): { interceptors: grpc.Interceptor[] } {
  const interceptor: grpc.Interceptor = (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        const ticket = ticketOf();
        if (ticket !== undefined) metadata.set(TICKET_METADATA_KEY, ticket);
        next(metadata, listener);
      },
    });
  return { interceptors: [interceptor] };
}

/** Call options' interceptor that puts one data-path ticket on a call. */
export function ticketInterceptor(ticket: string): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        metadata.set(TICKET_METADATA_KEY, ticket);
        next(metadata, listener);
      },
    });
}

/** A service ticket minted by `mint` and reused for half its life. */
export function cachedTicket(
  mint: () => string | undefined,
  lifeMs: number,
  nowMs: () => number = Date.now,
): () => string | undefined {
  let ticket: string | undefined;
  let renewAtMs = 0;
  return () => {
    const now = nowMs();
    if (ticket === undefined || now >= renewAtMs) {
      ticket = mint();
      renewAtMs = now + lifeMs / 2;
    }
    return ticket;
  };
}
