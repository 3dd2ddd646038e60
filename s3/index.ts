// The S3 gateway's public face: start one over a cluster (what `stripefs s3`
// runs), or build the fastify app for tests (buildS3Gateway).

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { StripeClient } from '../client/index.js';
import type { Config } from '../common/config.js';
import { StripeError } from '../common/errors.js';
import type { Logger } from '../common/logging.js';
import { type CredentialStore, readCredentialsFile, StaticCredentials } from './credentials.js';
import { buildS3Gateway } from './gateway.js';
import { STAGING_DIR, UPLOADS_DIR } from './keys.js';
import { S3_LIMITS } from './limits.js';
import { sweepStaging } from './store/sweep.js';

export type { Access, Credential, CredentialStore, Identity } from './credentials.js';
export { StaticCredentials } from './credentials.js';
export { buildS3Gateway, type GatewayOptions } from './gateway.js';

export interface RunningGateway {
  app: FastifyInstance;
  client: StripeClient;
  port: number;
  scheme: 'http' | 'https';
  /** The generated key pair when none was configured. */
  generated: { accessKeyId: string; secretKey: string } | undefined;
  close(): Promise<void>;
}

/** Key pairs from the configuration; a fresh pair when there are none. */
export function credentialsOf(config: Config): {
  store: CredentialStore;
  generated: RunningGateway['generated'];
} {
  const pairs: { accessKeyId: string; secretKey: string; name?: string }[] = [];
  if (config['s3.accessKey'] !== '')
    pairs.push({ accessKeyId: config['s3.accessKey'], secretKey: config['s3.secretKey'] });
  if (config['s3.credentialsFile'] !== '') pairs.push(...readCredentialsFile(config['s3.credentialsFile']));
  if (pairs.length > 0) return { store: new StaticCredentials(pairs), generated: undefined };
  const generated = {
    accessKeyId: `SF${randomBytes(9).toString('hex').toUpperCase()}`,
    secretKey: randomBytes(24).toString('base64url'),
  };
  return { store: new StaticCredentials([generated]), generated };
}

function tlsOf(config: Config): { cert: Buffer; key: Buffer } | undefined {
  const certPath = config['s3.tlsCert'];
  const keyPath = config['s3.tlsKey'];
  if (certPath === '' && keyPath === '') return undefined;
  if (certPath === '' || keyPath === '')
    throw new StripeError(
      'CONFIG_INVALID',
      'HTTPS needs both s3.tlsCert and s3.tlsKey (STRIPEFS_S3_TLS_CERT, STRIPEFS_S3_TLS_KEY)',
    );
  try {
    return { cert: readFileSync(certPath), key: readFileSync(keyPath) };
  } catch (err) {
    throw new StripeError(
      'CONFIG_INVALID',
      `cannot read the S3 TLS certificate or key: ${(err as Error).message}`,
    );
  }
}

/** Connects to the cluster, prepares the gateway's folders and listens. */
export async function startS3Gateway(config: Config, log: Logger): Promise<RunningGateway> {
  const { store, generated } = credentialsOf(config);
  const client = await StripeClient.connect({ mds: config['mds.address'] });
  try {
    await client.mkdir(STAGING_DIR, { recursive: true });
    await client.mkdir(UPLOADS_DIR, { recursive: true });
  } catch (err) {
    await client.close();
    throw err;
  }
  const tls = tlsOf(config);
  const app = buildS3Gateway({
    client,
    credentials: store,
    region: config['s3.region'],
    domain: config['s3.domain'].toLowerCase(),
    partBytesMin: config['s3.partBytesMin'],
    log,
    ...(tls ? { tls } : {}),
  });
  const listen = config['s3.listen'];
  const colon = listen.lastIndexOf(':');
  await app.listen({
    host: listen.slice(0, colon).replace(/^\[|\]$/g, ''),
    port: Number(listen.slice(colon + 1)),
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const sweep = () =>
    void sweepStaging(client, S3_LIMITS.stagingMaxAgeMs).catch((err: unknown) =>
      log.warn({ err }, 'staging sweep failed'),
    );
  sweep();
  const timer = setInterval(sweep, S3_LIMITS.stagingSweepIntervalMs);
  timer.unref();
  return {
    app,
    client,
    port,
    scheme: tls ? 'https' : 'http',
    generated,
    close: async () => {
      clearInterval(timer);
      await app.close();
      await client.close();
    },
  };
}
