// Optional TLS for gRPC and the bulk path. A process whose configuration names
// tls.ca speaks TLS to every MDS and OSS, and checks each server's certificate
// against that CA under the one name tls.serverName (so one certificate, made
// for that name, serves every host of a cluster whatever address a peer uses:
// 127.0.0.1, a compose service name, a public host). A server whose
// configuration also names tls.cert and tls.key serves its gRPC port and its
// bulk port over TLS only: a client without TLS cannot talk to it. Read once
// per process from the configuration (a file, the environment).
import {
  type ConnectionOptions,
  checkServerIdentity,
  type TLSSocket,
  type TlsOptions,
  connect as tlsConnect,
} from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { StripeError } from './errors.js';
import {
  resolveTls,
  TLS_SERVER_NAME,
  type TlsSettings,
  type TlsSource,
  tlsSettings,
} from './tls-settings.js';

export {
  configureTls,
  DEFAULT_TLS_CA_PATH,
  isCertificateError,
  TLS_SERVER_NAME,
  type TlsSettings,
  type TlsSource,
  tlsSettings,
  tlsSettingsOf,
} from './tls-settings.js';

/** The credentials of a gRPC client. */
export function channelCredentials(source?: TlsSource): grpc.ChannelCredentials {
  const tls = resolveTls(source);
  return tls ? grpc.credentials.createSsl(tls.ca) : grpc.credentials.createInsecure();
}

/** Client options that check a server's certificate under tls.serverName (none without TLS). */
export function channelTlsOptions(source?: TlsSource): grpc.ClientOptions {
  const tls = resolveTls(source);
  return tls
    ? { 'grpc.ssl_target_name_override': tls.serverName, 'grpc.default_authority': tls.serverName }
    : {};
}

/** The credentials of this process's gRPC servers: TLS when it has a certificate (tls.cert, tls.key). */
export function serverCredentials(): grpc.ServerCredentials {
  const tls = tlsSettings();
  if (!tls?.cert || !tls.key) return grpc.ServerCredentials.createInsecure();
  return grpc.ServerCredentials.createSsl(tls.ca, [{ cert_chain: tls.cert, private_key: tls.key }], false);
}

/** What a bulk client's tls.connect adds (undefined: plain TCP). */
export function bulkClientTls(source?: TlsSource): ConnectionOptions | undefined {
  const tls = resolveTls(source);
  return tls ? { ca: tls.ca, servername: tls.serverName } : undefined;
}

/** What a bulk server's tls.createServer takes (undefined: plain TCP, no certificate). */
export function bulkServerTls(): TlsOptions | undefined {
  const tls = tlsSettings();
  return tls?.cert && tls.key ? { cert: tls.cert, key: tls.key, noDelay: true } : undefined;
}

/** How long a probe of a server's TLS may take (a server that does not answer is no TLS verdict). */
const PROBE_TIMEOUT_MS = 3_000;

function tlsVerdict(
  address: string,
  tls: TlsSettings | undefined,
  socket: TLSSocket,
): StripeError | undefined {
  if (!tls)
    return new StripeError(
      'TLS_REQUIRED',
      `${address} speaks TLS and this client does not: set tls.ca (STRIPEFS_TLS_CA) to the cluster's CA (stripefs cluster up --tls writes it to tls/ca.pem in its data folder)`,
      { address },
    );
  const wrongName = checkServerIdentity(tls.serverName, socket.getPeerCertificate());
  const problem = socket.authorized ? wrongName?.message : String(socket.authorizationError);
  if (problem === undefined) return undefined;
  return new StripeError(
    'TLS_UNTRUSTED',
    `${address}: its certificate does not verify against tls.ca under the name ${tls.serverName} (${problem}): use the CA that signed the cluster's certificate (tls/ca.pem in the data folder of stripefs cluster up --tls)`,
    { address },
  );
}

/**
 * Why a client could not reach the server at `address` when TLS is the reason: the server speaks
 * TLS and the client does not (TLS_REQUIRED), its certificate does not verify against the
 * client's CA (TLS_UNTRUSTED), or the client speaks TLS and the server does not (TLS_NOT_SERVED).
 * Undefined when TLS is not the reason (nothing listens, the handshake is as it should be).
 */
export function tlsMismatch(address: string, source?: TlsSource): Promise<StripeError | undefined> {
  const tls = resolveTls(source);
  const colon = address.lastIndexOf(':');
  return new Promise((resolve) => {
    let connected = false;
    const socket = tlsConnect({
      host: address.slice(0, colon).replace(/^\[|\]$/g, ''),
      port: Number(address.slice(colon + 1)),
      servername: tls?.serverName ?? TLS_SERVER_NAME,
      rejectUnauthorized: false,
      ALPNProtocols: ['h2'],
      ...(tls ? { ca: tls.ca } : {}),
    });
    const done = (verdict: StripeError | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(verdict);
    };
    const timer = setTimeout(() => done(undefined), PROBE_TIMEOUT_MS);
    socket.once('connect', () => {
      connected = true;
    });
    socket.once('secureConnect', () => done(tlsVerdict(address, tls, socket)));
    socket.once('error', () => {
      done(
        connected && tls
          ? new StripeError(
              'TLS_NOT_SERVED',
              `${address} does not speak TLS and this client does (tls.ca is set): unset tls.ca (STRIPEFS_TLS_CA, or remove ./data/tls), or start the cluster with TLS`,
              { address },
            )
          : undefined,
      );
    });
  });
}

/** `err`, or the TLS mismatch behind it when a REQ_UNAVAILABLE from `address` has one. */
export async function explainUnavailable(
  err: unknown,
  address: string,
  source?: TlsSource,
): Promise<unknown> {
  if (!(err instanceof StripeError) || err.code !== 'REQ_UNAVAILABLE') return err;
  return (await tlsMismatch(address, source)) ?? err;
}
