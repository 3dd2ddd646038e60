// Client options for a raw gRPC client of the MDS that signs as the run's
// admin (STRIPEFS_KEYRING, set by test/global-setup.ts), as the library does;
// and the service ticket a test needs to reach OSTs directly (raw OssService
// calls, a BulkClient) on a cluster whose MDS runs with auth.
import type * as grpc from '@grpc/grpc-js';
import { MdsClient } from '../../client/mds-client.js';
import { ServiceTicket } from '../../client/tickets.js';
import { resolveIdentity, signingOptions, ticketOptions } from '../../common/auth/signing.js';
import { CLIENT_OPTIONS } from '../../common/grpc.js';

export function signedClientOptions(extra: grpc.ClientOptions = {}): grpc.ClientOptions {
  return { ...CLIENT_OPTIONS, ...signingOptions(resolveIdentity(undefined)), ...extra };
}

/** The admin's service ticket from the MDS at `mdsAddress`, kept fresh (none when it runs without auth). */
export async function serviceTicket(
  mdsAddress: string,
): Promise<{ get(): string | undefined; close(): void }> {
  const mds = new MdsClient(mdsAddress);
  const ticket = new ServiceTicket(() => mds.serviceTicket());
  await ticket.refresh();
  return { get: () => ticket.get(), close: () => mds.close() };
}

/** Raw OssService client options that carry the service ticket of `ticket`. */
export function ticketedClientOptions(ticket: { get(): string | undefined }): grpc.ClientOptions {
  return { ...CLIENT_OPTIONS, ...ticketOptions(() => ticket.get()) };
}
