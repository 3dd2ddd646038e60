// A real cluster (1 MDS, 6 OSSs) with the S3 gateway built in-process over
// a StripeClient, spoken to with signed requests through fastify inject.
import type { FastifyInstance } from 'fastify';
import { StripeClient } from '../../client/index.js';
import { silentLogger } from '../../common/logging.js';
import { StaticCredentials } from '../../s3/credentials.js';
import { buildS3Gateway } from '../../s3/gateway.js';
import { STAGING_DIR, UPLOADS_DIR } from '../../s3/keys.js';
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

export interface Gateway {
  cluster: Cluster;
  client: StripeClient;
  app: FastifyInstance;
  send(
    method: string,
    url: string,
    options?: {
      headers?: Record<string, string>;
      body?: Buffer | string;
      unsigned?: boolean;
      sign?: boolean;
    },
  ): Promise<Answer>;
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
): Promise<Answer> {
  const response = await app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(body ? { payload: body } : {}),
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

export async function startGateway(options: { partBytesMin?: number } = {}): Promise<Gateway> {
  const cluster = await startCluster();
  const client = await StripeClient.connect({ mds: cluster.mdsAddress });
  await client.mkdir(STAGING_DIR, { recursive: true });
  await client.mkdir(UPLOADS_DIR, { recursive: true });
  const app = buildS3Gateway({
    client,
    credentials: new StaticCredentials([{ accessKeyId: ACCESS_KEY, secretKey: SECRET_KEY }]),
    region: 'us-east-1',
    domain: '',
    partBytesMin: options.partBytesMin ?? 5 * MiB,
    log: silentLogger(),
  });
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
            accessKeyId: ACCESS_KEY,
            secretKey: SECRET_KEY,
            unsigned: o.unsigned,
          }).headers;
    return inject(method, url, headers, body);
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
    send,
    sendChunked,
    stop: async () => {
      await app.close();
      await client.close();
      await cluster.stop();
    },
  };
}

/** The text of every `<name>` element of an XML answer, in order. */
export function all(text: string, name: string): string[] {
  return [...text.matchAll(new RegExp(`<${name}>([^<]*)</${name}>`, 'g'))].map((m) => m[1] as string);
}
