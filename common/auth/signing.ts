// Where a client's identity comes from, and the gRPC interceptor that signs
// each of its calls. One CallSigner per client: its id and rising sequence
// numbers are what the MDS lists as a session and checks for replays.
import { existsSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { loadConfig } from '../config.js';
import { type Identity, readKeyring } from './keyring.js';
import { AUTH_METADATA_KEY, CallSigner } from './proof.js';
import { TICKET_METADATA_KEY } from './ticket.js';

/** The keyring `stripefs cluster up` writes, which the CLI run from that folder uses without flags. */
export const DEFAULT_KEYRING_PATH = 'data/admin.keyring';

/** A keyring path, an identity, or null for none at all (a caller that signs nothing). */
export type IdentitySource = string | Identity | null;

/**
 * The identity to sign with: the one given; else the keyring named by auth.keyring
 * (STRIPEFS_KEYRING); else ./data/admin.keyring when it exists; else none (the MDS then
 * answers AUTH_REQUIRED, unless it runs without auth).
 */
export function resolveIdentity(
  source: IdentitySource | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Identity | undefined {
  if (source === null) return undefined;
  if (typeof source === 'string') return readKeyring(source);
  if (source) return source;
  const configured = loadConfig({ env })['auth.keyring'];
  if (configured !== '') return readKeyring(configured);
  return existsSync(DEFAULT_KEYRING_PATH) ? readKeyring(DEFAULT_KEYRING_PATH) : undefined;
}

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
