// A small SigV4 signer for tests that speak to the gateway without an SDK
// (fastify inject). It reuses the gateway's canonical-request code, which the
// AWS documentation vectors pin in sigv4.test.ts; real SDKs sign in
// test/s3/clients.test.ts.
import {
  canonicalRequest,
  headerValues,
  parseQuery,
  sha256Hex,
  signatureOf,
  signingKey,
  stringToSign,
} from '../../s3/sigv4/canonical.js';

export interface SignInput {
  method: string;
  url: string;
  host: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  accessKeyId: string;
  secretKey: string;
  nowMs?: number;
  region?: string;
  /** UNSIGNED-PAYLOAD instead of the body's SHA-256. */
  unsigned?: boolean;
}

export function amzDateOf(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export function signRequest(input: SignInput): { headers: Record<string, string> } {
  const amzDate = amzDateOf(input.nowMs ?? Date.now());
  const region = input.region ?? 'us-east-1';
  const payloadHash = input.unsigned ? 'UNSIGNED-PAYLOAD' : sha256Hex(input.body ?? '');
  const headers: Record<string, string> = {
    ...input.headers,
    host: input.host,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': payloadHash,
  };
  const signed = Object.keys(headers)
    .map((h) => h.toLowerCase())
    .sort();
  const q = input.url.indexOf('?');
  const canonical = canonicalRequest({
    method: input.method,
    rawPath: q < 0 ? input.url : input.url.slice(0, q),
    query: parseQuery(q < 0 ? '' : input.url.slice(q + 1)),
    headers: headerValues(Object.entries(headers).flat()),
    signedHeaders: signed,
    payloadHash,
  });
  const scope = `${amzDate.slice(0, 8)}/${region}/s3/aws4_request`;
  const signature = signatureOf(
    signingKey(input.secretKey, amzDate.slice(0, 8), region, 's3'),
    stringToSign(amzDate, scope, canonical),
  );
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${input.accessKeyId}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${signature}`;
  return { headers };
}

/** A PUT with an aws-chunked body, every chunk signed (STREAMING-AWS4-HMAC-SHA256-PAYLOAD), as SDKs stream uploads. */
export function signChunked(input: SignInput & { body: Buffer; chunkBytes: number }): {
  headers: Record<string, string>;
  body: Buffer;
} {
  const nowMs = input.nowMs ?? Date.now();
  const amzDate = amzDateOf(nowMs);
  const region = input.region ?? 'us-east-1';
  const chunks: Buffer[] = [];
  for (let at = 0; at < input.body.length; at += input.chunkBytes)
    chunks.push(input.body.subarray(at, at + input.chunkBytes));
  chunks.push(Buffer.alloc(0));
  const headerBytes = (size: number) =>
    `${size.toString(16)};chunk-signature=${'0'.repeat(64)}\r\n`.length + size + 2;
  const encodedLength = chunks.reduce((sum, c) => sum + headerBytes(c.length), 0);
  const headers: Record<string, string> = {
    ...input.headers,
    host: input.host,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
    'content-encoding': 'aws-chunked',
    'x-amz-decoded-content-length': String(input.body.length),
    'content-length': String(encodedLength),
  };
  const signed = Object.keys(headers).sort();
  const q = input.url.indexOf('?');
  const canonical = canonicalRequest({
    method: input.method,
    rawPath: q < 0 ? input.url : input.url.slice(0, q),
    query: parseQuery(q < 0 ? '' : input.url.slice(q + 1)),
    headers: headerValues(Object.entries(headers).flat()),
    signedHeaders: signed,
    payloadHash: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
  });
  const scope = `${amzDate.slice(0, 8)}/${region}/s3/aws4_request`;
  const key = signingKey(input.secretKey, amzDate.slice(0, 8), region, 's3');
  let previous = signatureOf(key, stringToSign(amzDate, scope, canonical));
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${input.accessKeyId}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${previous}`;
  const wire: Buffer[] = [];
  for (const chunk of chunks) {
    const text = `AWS4-HMAC-SHA256-PAYLOAD\n${amzDate}\n${scope}\n${previous}\n${sha256Hex('')}\n${sha256Hex(chunk)}`;
    previous = signatureOf(key, text);
    wire.push(
      Buffer.from(`${chunk.length.toString(16)};chunk-signature=${previous}\r\n`),
      chunk,
      Buffer.from('\r\n'),
    );
  }
  return { headers, body: Buffer.concat(wire) };
}
