// Which TLS a process uses, read once from its configuration (tls.*,
// STRIPEFS_TLS_*): the CA it checks servers with, and for a server the
// certificate and key it presents. Apart from common/tls.ts, which builds
// gRPC credentials from them, so the CLI's HTTP commands (admin APIs, the
// launcher) read them without loading gRPC.
import { existsSync, readFileSync } from 'node:fs';
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

export function resolveTls(source: TlsSource): TlsSettings | undefined {
  return source === undefined ? tlsSettings() : (source ?? undefined);
}

/** A TLS connection refused for the server's certificate (unknown CA, wrong name, expired). */
export function isCertificateError(err: Error): boolean {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  return /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ALTNAME/.test(code);
}
