// AWS Signature Version 4, the canonical request and the string to sign
// (pure). The path and query are decoded and encoded again by AWS's rules, as
// S3 does, so a client that escapes a character S3 would not (or leaves one
// unescaped) still signs the same request the gateway verifies.
import { createHash, createHmac } from 'node:crypto';
import { s3Error } from '../errors.js';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** AWS's URI encoding: every byte but A-Z a-z 0-9 - . _ ~ is %XX (upper case); '/' kept when asked. */
export function awsUriEncode(text: string, keepSlash: boolean): string {
  const encoded = encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
}

function decodeComponent(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw s3Error('InvalidArgument', `the ${what} has a malformed %-escape`);
  }
}

/** The canonical URI of a raw request path (S3: no dot-segment or slash normalisation). */
export function canonicalPath(rawPath: string): string {
  return rawPath
    .split('/')
    .map((segment) => awsUriEncode(decodeComponent(segment, 'path'), false))
    .join('/');
}

/** Raw query string -> decoded [name, value] pairs in their order. */
export function parseQuery(rawQuery: string): [string, string][] {
  if (rawQuery === '') return [];
  return rawQuery.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    return [decodeComponent(name, 'query'), decodeComponent(value, 'query')];
  });
}

/** Sorted by encoded name, then value; X-Amz-Signature left out (a presigned URL's own signature). */
export function canonicalQuery(pairs: [string, string][]): string {
  return pairs
    .filter(([name]) => name !== 'X-Amz-Signature')
    .map(([name, value]) => [awsUriEncode(name, false), awsUriEncode(value, false)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** Lower-case names to values (repeats joined with ','), trimmed, inner runs of spaces made one. */
export function headerValues(rawHeaders: string[]): Map<string, string> {
  const values = new Map<string, string>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase();
    const value = (rawHeaders[i + 1] as string).trim().replace(/\s+/g, ' ');
    const before = values.get(name);
    values.set(name, before === undefined ? value : `${before},${value}`);
  }
  return values;
}

export interface CanonicalInput {
  method: string;
  rawPath: string;
  query: [string, string][];
  headers: Map<string, string>;
  signedHeaders: string[];
  payloadHash: string;
}

export function canonicalRequest(input: CanonicalInput): string {
  const headerLines = input.signedHeaders
    .map((name) => `${name}:${input.headers.get(name) ?? ''}\n`)
    .join('');
  return [
    input.method,
    canonicalPath(input.rawPath),
    canonicalQuery(input.query),
    headerLines,
    input.signedHeaders.join(';'),
    input.payloadHash,
  ].join('\n');
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

export function stringToSign(amzDate: string, scope: string, canonical: string): string {
  return `${ALGORITHM}\n${amzDate}\n${scope}\n${sha256Hex(canonical)}`;
}

export function hmac(key: Uint8Array | string, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** kSigning = HMAC chain over "AWS4" + secret, date, region, service, "aws4_request". */
export function signingKey(secretKey: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secretKey}`, date), region), service), 'aws4_request');
}

export function signatureOf(key: Uint8Array, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}
