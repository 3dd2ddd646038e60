// Client options for a raw gRPC client of the MDS that signs as the run's
// admin (STRIPEFS_KEYRING, set by test/global-setup.ts), as the library does.
import type * as grpc from '@grpc/grpc-js';
import { resolveIdentity, signingOptions } from '../../common/auth/signing.js';
import { CLIENT_OPTIONS } from '../../common/grpc.js';

export function signedClientOptions(extra: grpc.ClientOptions = {}): grpc.ClientOptions {
  return { ...CLIENT_OPTIONS, ...signingOptions(resolveIdentity(undefined)), ...extra };
}
