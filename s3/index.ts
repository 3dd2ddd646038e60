// The S3 gateway's public face: start one over a cluster (what `stripefs s3`
// runs), or build the fastify app for tests (buildS3Gateway).

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { StripeClient } from '../client/index.js';
import { AuditReporter } from '../common/auth/audit-reporter.js';
import { type Identity as Keyring, s3SecretOf } from '../common/auth/keyring.js';
import { SCRATCH_ROOT } from '../common/auth/scratch.js';
import { resolveIdentity } from '../common/auth/signing.js';
import type { Config } from '../common/config.js';
import { StripeError } from '../common/errors.js';
import type { Logger } from '../common/logging.js';
import {
  CredentialChain,
  type CredentialStore,
  KeyringCredentials,
  readCredentialsFile,
  StaticCredentials,
} from './credentials.js';
import { buildS3Gateway } from './gateway.js';
import { S3_LIMITS } from './limits.js';
import { sweepAllStaging } from './store/sweep.js';

export type { Credential, CredentialStore, Identity } from './credentials.js';
export { CredentialChain, KeyringCredentials, StaticCredentials } from './credentials.js';
export { buildS3Gateway, type GatewayOptions } from './gateway.js';
export type { Access } from './router.js';

export interface RunningGateway {
  app: FastifyInstance;
  client: StripeClient;
  port: number;
  scheme: 'http' | 'https';
  /**
   * A key pair to sign with when none was configured: the gateway's own identity's S3 key, or a
   * generated pair when it signs as none (an MDS without auth).
   */
  generated: { accessKeyId: string; secretKey: string } | undefined;
  close(): Promise<void>;
}

/**
 * Key pairs from the configuration (acting as the gateway's own identity), then stripefs
 * identities: the gateway's own and each keyring in s3.keyringDir. With none of them, a fresh
 * pair.
 */
export function credentialsOf(
  config: Config,
  own: Keyring | undefined,
): {
  store: CredentialStore;
  generated: RunningGateway['generated'];
} {
  const pairs: { accessKeyId: string; secretKey: string; name?: string }[] = [];
  if (config['s3.accessKey'] !== '')
    pairs.push({ accessKeyId: config['s3.accessKey'], secretKey: config['s3.secretKey'] });
  if (config['s3.credentialsFile'] !== '') pairs.push(...readCredentialsFile(config['s3.credentialsFile']));
  const dir = config['s3.keyringDir'] === '' ? undefined : config['s3.keyringDir'];
  const identities = new KeyringCredentials(dir, own);
  if (pairs.length > 0)
    return { store: new CredentialChain([new StaticCredentials(pairs), identities]), generated: undefined };
  if (own)
    return { store: identities, generated: { accessKeyId: own.name, secretKey: s3SecretOf(own.secret) } };
  const generated = {
    accessKeyId: `SF${randomBytes(9).toString('hex').toUpperCase()}`,
    secretKey: randomBytes(24).toString('base64url'),
  };
  return { store: new CredentialChain([new StaticCredentials([generated]), identities]), generated };
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

/** The refusals the gateway decides, sent to the MDS's audit log by its own client. */
function refusalReporter(client: StripeClient, log: Logger): AuditReporter {
  return new AuditReporter(
    (reports, dropped) => client.reportAudit(reports, dropped),
    (err) =>
      log.warn({ err }, 'cannot write refusals to the MDS audit log (the gateway needs an admin identity)'),
  );
}

/** Removes stale staging files of every identity, when the gateway's own identity may list them. */
function sweeper(client: StripeClient, log: Logger): () => void {
  return () =>
    void sweepAllStaging(client, S3_LIMITS.stagingMaxAgeMs).catch((err: unknown) =>
      log.warn({ err }, 'staging sweep failed'),
    );
}

/** Connects to the cluster, prepares the gateway's folders and listens. */
export async function startS3Gateway(config: Config, log: Logger): Promise<RunningGateway> {
  const own = resolveIdentity(undefined);
  const { store, generated } = credentialsOf(config, own);
  const client = await StripeClient.connect({ mds: config['mds.address'] });
  try {
    await client.mkdir(SCRATCH_ROOT, { recursive: true });
  } catch (err) {
    await client.close();
    throw err;
  }
  const tls = tlsOf(config);
  const reporter = refusalReporter(client, log);
  const app = buildS3Gateway({
    client,
    ownName: own?.name ?? 'gateway',
    credentials: store,
    mds: config['mds.address'],
    reportRefusal: (report) => reporter.report(report),
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
  const sweep = sweeper(client, log);
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
      await reporter.close();
      await client.close();
    },
  };
}
