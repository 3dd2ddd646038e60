// A real cluster (1 MDS, 6 OSSs, auth on with the run's admin keyring) with
// the S3 gateway built in-process over a StripeClient, spoken to with signed
// requests through fastify inject. Its configured pair acts as the admin;
// `keyringDir` adds stripefs identities (s3/credentials.ts).
import type { FastifyInstance } from 'fastify';
import { StripeClient } from '../../client/index.js';
import type { RefusalReport } from '../../common/auth/audit-reporter.js';
import { SCRATCH_ROOT, scratchPathOf } from '../../common/auth/scratch.js';
import { resolveIdentity } from '../../common/auth/signing.js';
import { silentLogger } from '../../common/logging.js';
import { CredentialChain, KeyringCredentials, StaticCredentials } from '../../s3/credentials.js';
import { buildS3Gateway } from '../../s3/gateway.js';
import { adminFetch } from '../helpers/admin-http.js';
import { type Cluster, startCluster } from '../helpers/cluster.js';
import { signChunked, signRequest } from './sign.js';

export const ACCESS_KEY = 'AKIDSTRIPEFSTEST';
export const SECRET_KEY = 'stripefs-test-secret-key';
export const MiB = 1024 * 1024;

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
  text: string;
  /** The S3 error code of an error document, or undefined. */
  code: string | undefined;
}

export interface SendOptions {
  headers?: Record<string, string>;
  body?: Buffer | string;
  unsigned?: boolean;
  sign?: boolean;
  /** Sign with this pair instead of the configured one. */
  as?: { accessKeyId: string; secretKey: string };
  /** The S3 client's address as the gateway sees it (default 127.0.0.1). */
  remoteAddress?: string;
}

export interface Gateway {
  cluster: Cluster;
  client: StripeClient;
  app: FastifyInstance;
  /** The folder of the identity the configured pair acts as (staging files, uploads). */
  scratch: string;
  /** Refusals the gateway reported for the audit log, in order. */
  refusals: RefusalReport[];
  send(method: string, url: string, options?: SendOptions): Promise<Answer>;
  /** A PUT with a signed aws-chunked body. */
  sendChunked(url: string, body: Buffer, chunkBytes: number, tamperAt?: number): Promise<Answer>;
  stop(): Promise<void>;
}

/** One request through fastify inject, with the S3 error code of an error document. */
async function injectInto(
  app: FastifyInstance,
  method: string,
  url: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  remoteAddress?: string,
): Promise<Answer> {
  const response = await app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(body ? { payload: body } : {}),
    ...(remoteAddress ? { remoteAddress } : {}),
  });
  const raw = response.rawPayload;
  const text = raw.toString('utf8');
  return {
    status: response.statusCode,
    headers: response.headers,
    body: raw,
    text,
    code: /<Code>([^<]*)<\/Code>/.exec(text)?.[1],
  };
}

/** The gateway over `client`: the configured pair, then the identities (its own and `keyringDir`'s). */
function gatewayApp(
  cluster: Cluster,
  client: StripeClient,
  options: { partBytesMin?: number; keyringDir?: string; ownName: string },
  refusals: RefusalReport[],
): FastifyInstance {
  return buildS3Gateway({
    client,
    ownName: options.ownName,
    credentials: new CredentialChain([
      new StaticCredentials([{ accessKeyId: ACCESS_KEY, secretKey: SECRET_KEY }]),
      new KeyringCredentials(options.keyringDir, resolveIdentity(undefined)),
    ]),
    mds: cluster.mdsAddress,
    reportRefusal: (report) => {
      refusals.push(report);
      // As startS3Gateway's reporter does: into the MDS's audit log, as the gateway's own identity.
      // A report lost at a test's end is missed by no check (those that read the log wait for it).
      void client.reportAudit([report]).catch(() => undefined);
    },
    region: 'us-east-1',
    domain: '',
    partBytesMin: options.partBytesMin ?? 5 * MiB,
    log: silentLogger(),
  });
}

export async function startGateway(
  options: { partBytesMin?: number; keyringDir?: string; cluster?: Cluster } = {},
): Promise<Gateway> {
  const cluster = options.cluster ?? (await startCluster());
  const client = await StripeClient.connect({ mds: cluster.mdsAddress });
  await client.mkdir(SCRATCH_ROOT, { recursive: true });
  const own = resolveIdentity(undefined);
  const refusals: RefusalReport[] = [];
  const app = gatewayApp(cluster, client, { ...options, ownName: own?.name ?? 'gateway' }, refusals);
  const inject = (method: string, url: string, headers: Record<string, string>, body: Buffer | undefined) =>
    injectInto(app, method, url, headers, body);
  const send: Gateway['send'] = async (method, url, o = {}) => {
    const body = o.body === undefined ? undefined : Buffer.from(o.body);
    const headers =
      o.sign === false
        ? { host: 'localhost', ...o.headers }
        : signRequest({
            method,
            url,
            host: 'localhost',
            headers: o.headers,
            body,
            accessKeyId: o.as?.accessKeyId ?? ACCESS_KEY,
            secretKey: o.as?.secretKey ?? SECRET_KEY,
            unsigned: o.unsigned,
          }).headers;
    return injectInto(app, method, url, headers, body, o.remoteAddress);
  };
  const sendChunked: Gateway['sendChunked'] = async (url, data, chunkBytes, tamperAt) => {
    const signed = signChunked({
      method: 'PUT',
      url,
      host: 'localhost',
      body: data,
      chunkBytes,
      accessKeyId: ACCESS_KEY,
      secretKey: SECRET_KEY,
    });
    // A byte changed after signing, as a corrupting proxy would.
    if (tamperAt !== undefined) signed.body[tamperAt] = (signed.body[tamperAt] as number) ^ 0xff;
    return inject('PUT', url, signed.headers, signed.body);
  };
  return {
    cluster,
    client,
    app,
    scratch: scratchPathOf(own?.name ?? 'gateway'),
    refusals,
    send,
    sendChunked,
    stop: async () => {
      await app.close();
      await client.close();
      if (!options.cluster) await cluster.stop();
    },
  };
}

/** The text of every `<name>` element of an XML answer, in order. */
export function all(text: string, name: string): string[] {
  return [...text.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1] as string);
}

/**
 * What the OSSs call on their own, and the gateway's refresh of an actor's rules (at most once per
 * S3_LIMITS.actorRulesTtlMs, so a PUT on a busy machine may pay it): not a request's own work.
 */
const OSS_OPS = new Set(['heartbeat', 'registerOss', 'getPgHolders', 'reportBadChunk', 'authWhoami']);

/** Calls of every MDS operation but the OSSs' so far, from its Prometheus histogram. */
export async function mdsCallsByOp(mdsAdminUrl: string): Promise<Record<string, number>> {
  const text = await (await adminFetch(`${mdsAdminUrl}/metrics`)).text();
  const calls: Record<string, number> = {};
  for (const m of text.matchAll(/^stripefs_mds_request_seconds_count\{[^}]*\bop="([^"]+)"[^}]*\} (\d+)$/gm))
    if (!OSS_OPS.has(m[1] as string)) calls[m[1] as string] = (calls[m[1] as string] ?? 0) + Number(m[2]);
  return calls;
}

/** The operations called between two readings, and how often. */
export function since(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const used: Record<string, number> = {};
  for (const [op, n] of Object.entries(after)) if (n > (before[op] ?? 0)) used[op] = n - (before[op] ?? 0);
  return used;
}
