// Optional TLS for gRPC and the bulk path. A process whose configuration names
// tls.ca speaks TLS to every MDS and OSS, and checks each server's certificate
// against that CA under the one name tls.serverName (so one certificate, made
// for that name, serves every host of a cluster whatever address a peer uses:
// 127.0.0.1, a compose service name, a public host). A server whose
// configuration also names tls.cert and tls.key serves its gRPC port and its
// bulk port over TLS only: a client without TLS cannot talk to it. Read once
// per process from the configuration (a file, the environment).
import { existsSync, readFileSync } from 'node:fs';
import {
  type ConnectionOptions,
  checkServerIdentity,
  type TLSSocket,
  type TlsOptions,
  connect as tlsConnect,
} from 'node:tls';
import * as grpc from '@grpc/grpc-js';
import { loadConfig } from './config.js';
import { StripeError } from './errors.js';

/** The name a certificate made by common/tls-files.ts is for, and tls.serverName's default. */
export const TLS_SERVER_NAME = 'stripefs';

export interface TlsSettings {
  ca: Buffer;
  /** What a server presents (undefined: this process serves nothing over TLS). */
  cert: Buffer | undefined;
  key: Buffer | undefined;
  serverName: string;
}

function readPem(path: string, key: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new StripeError('CONFIG_INVALID', `${key} ${path}: ${(err as Error).message}`);
  }
}

/** The settings of `config` (undefined: no TLS). */
export function tlsSettingsOf(config: {
  'tls.ca': string;
  'tls.cert': string;
  'tls.key': string;
  'tls.serverName': string;
}): TlsSettings | undefined {
  const { 'tls.ca': ca, 'tls.cert': cert, 'tls.key': key } = config;
  if (ca === '' && cert === '' && key === '') return undefined;
  if (ca === '')
    throw new StripeError('CONFIG_INVALID', 'TLS needs tls.ca (STRIPEFS_TLS_CA) to check servers with');
  if ((cert === '') !== (key === ''))
    throw new StripeError('CONFIG_INVALID', 'a TLS server needs both tls.cert and tls.key');
  return {
    ca: readPem(ca, 'tls.ca'),
    cert: cert === '' ? undefined : readPem(cert, 'tls.cert'),
    key: key === '' ? undefined : readPem(key, 'tls.key'),
    serverName: config['tls.serverName'],
  };
}

/** The CA `stripefs cluster up --tls` writes, which the CLI and the library run from that folder use without settings. */
export const DEFAULT_TLS_CA_PATH = 'data/tls/ca.pem';

let cached: { settings: TlsSettings | undefined } | undefined;

/**
 * This process's settings, read from its configuration on first use: tls.* (STRIPEFS_TLS_*),
 * else ./data/tls/ca.pem when it exists (a client of the cluster in ./data), else none.
 */
export function tlsSettings(): TlsSettings | undefined {
  if (!cached) {
    const config = loadConfig({ env: process.env });
    const none = config['tls.ca'] === '' && config['tls.cert'] === '' && config['tls.key'] === '';
    const ca = none && existsSync(DEFAULT_TLS_CA_PATH) ? DEFAULT_TLS_CA_PATH : config['tls.ca'];
    cached = { settings: tlsSettingsOf({ ...config, 'tls.ca': ca }) };
  }
  return cached.settings;
}

/**
 * Fixes this process's settings to those of a server's own configuration (mds/build.ts,
 * oss/build.ts): its servers and its own clients (to the MDS, to other OSSs) use them, and
 * no default CA is looked for.
 */
export function configureTls(config: Parameters<typeof tlsSettingsOf>[0]): TlsSettings | undefined {
  const settings = tlsSettingsOf(config);
  if (settings && !settings.cert)
    throw new StripeError(
      'CONFIG_INVALID',
      'a server with tls.ca needs tls.cert and tls.key (STRIPEFS_TLS_CERT, STRIPEFS_TLS_KEY) to serve TLS',
    );
  cached = { settings };
  return settings;
}

/**
 * What a client was told to use: settings given (a library caller's ConnectOptions.tls), none
 * (null), or this process's configuration (undefined).
 */
export type TlsSource = TlsSettings | null | undefined;

function resolveTls(source: TlsSource): TlsSettings | undefined {
  return source === undefined ? tlsSettings() : (source ?? undefined);
}

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

/** A TLS connection refused for the server's certificate (unknown CA, wrong name, expired). */
export function isCertificateError(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  return /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/.test(code);
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
