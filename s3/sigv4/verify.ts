// Verifies a request's AWS Signature V4, from the Authorization header or a
// presigned URL's query, and says how its body is to be checked: not at all
// (UNSIGNED-PAYLOAD), against a SHA-256 the signature covers, or as
// aws-chunked with per-chunk signatures and/or a checksum trailer.
import { timingSafeEqual } from 'node:crypto';
import type { CredentialStore, Identity } from '../credentials.js';
import { s3Error } from '../errors.js';
import { S3_LIMITS } from '../limits.js';
import {
  ALGORITHM,
  canonicalRequest,
  headerValues,
  parseQuery,
  signatureOf,
  signingKey,
  stringToSign,
} from './canonical.js';

/** What an aws-chunked body's chunk and trailer signatures chain from. */
export interface ChunkSigning {
  key: Buffer;
  amzDate: string;
  scope: string;
  seedSignature: string;
}

export type PayloadCheck =
  | { kind: 'unsigned' }
  | { kind: 'sha256'; hex: string }
  | { kind: 'chunked'; trailer: boolean; signing: ChunkSigning | undefined };

export interface Authenticated {
  identity: Identity;
  payload: PayloadCheck;
}

export interface SignedRequest {
  method: string;
  rawPath: string;
  rawQuery: string;
  rawHeaders: string[];
  nowMs: number;
}

interface Scope {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
}

const SIGNING_KEYS_CACHED_MAX = 256;
const signingKeys = new Map<string, Buffer>();

function cachedSigningKey(secretKey: string, scope: Scope): Buffer {
  const id = `${scope.accessKeyId}\0${secretKey}\0${scope.date}\0${scope.region}\0${scope.service}`;
  let key = signingKeys.get(id);
  if (!key) {
    if (signingKeys.size >= SIGNING_KEYS_CACHED_MAX) signingKeys.clear();
    key = signingKey(secretKey, scope.date, scope.region, scope.service);
    signingKeys.set(id, key);
  }
  return key;
}

function parseScope(
  credential: string,
  malformed: 'AuthorizationHeaderMalformed' | 'AuthorizationQueryParametersError',
): Scope {
  const parts = credential.split('/');
  const [accessKeyId, date, region, service, terminator] = parts;
  if (parts.length !== 5 || !accessKeyId || !date || !/^\d{8}$/.test(date) || !region || !service) {
    throw s3Error(
      malformed,
      `the credential ${JSON.stringify(credential)} is not ACCESS_KEY/YYYYMMDD/REGION/s3/aws4_request`,
    );
  }
  if (service !== 's3' || terminator !== 'aws4_request')
    throw s3Error(
      malformed,
      `the credential scope must end in /s3/aws4_request, not /${service}/${terminator}`,
    );
  return { accessKeyId, date, region, service };
}

/** 20240102T030405Z -> epoch ms, or NaN. */
function amzDateMs(amzDate: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!m) return Number.NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

function sameSignature(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given.toLowerCase(), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

function payloadCheckOf(hash: string, signing: ChunkSigning): PayloadCheck {
  switch (hash) {
    case 'UNSIGNED-PAYLOAD':
      return { kind: 'unsigned' };
    case 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD':
      return { kind: 'chunked', trailer: false, signing };
    case 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER':
      return { kind: 'chunked', trailer: true, signing };
    case 'STREAMING-UNSIGNED-PAYLOAD-TRAILER':
      return { kind: 'chunked', trailer: true, signing: undefined };
    default:
      if (/^[0-9a-f]{64}$/.test(hash)) return { kind: 'sha256', hex: hash };
      throw s3Error(
        'InvalidArgument',
        `x-amz-content-sha256 ${JSON.stringify(hash)} is not a hash or a known payload mode`,
      );
  }
}

interface Claimed {
  scope: Scope;
  amzDate: string;
  signedHeaders: string[];
  signature: string;
  payloadHash: string;
  query: [string, string][];
  headers: Map<string, string>;
}

function fromHeader(authorization: string, request: SignedRequest, headers: Map<string, string>): Claimed {
  if (!authorization.startsWith(`${ALGORITHM} `)) {
    throw s3Error('InvalidRequest', 'only AWS Signature Version 4 (AWS4-HMAC-SHA256) is supported');
  }
  const fields = new Map<string, string>();
  for (const part of authorization.slice(ALGORITHM.length + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const credential = fields.get('Credential');
  const signedHeaders = fields.get('SignedHeaders');
  const signature = fields.get('Signature');
  if (!credential || !signedHeaders || !signature)
    throw s3Error(
      'AuthorizationHeaderMalformed',
      'the Authorization header lacks Credential, SignedHeaders or Signature',
    );
  const scope = parseScope(credential, 'AuthorizationHeaderMalformed');
  const amzDate = headers.get('x-amz-date') ?? '';
  if (Number.isNaN(amzDateMs(amzDate)))
    throw s3Error('AccessDenied', 'a signed request needs an X-Amz-Date header of the form 20240102T030405Z');
  const payloadHash = headers.get('x-amz-content-sha256');
  if (payloadHash === undefined)
    throw s3Error('InvalidRequest', 'a signed request needs the x-amz-content-sha256 header');
  if (Math.abs(request.nowMs - amzDateMs(amzDate)) > S3_LIMITS.clockSkewMsMax)
    throw s3Error(
      'RequestTimeTooSkewed',
      `the request time ${amzDate} is more than 15 minutes from the gateway's clock`,
    );
  const query = parseQuery(request.rawQuery);
  return { scope, amzDate, signedHeaders: signedHeaders.split(';'), signature, payloadHash, query, headers };
}

function fromQuery(query: [string, string][], request: SignedRequest, headers: Map<string, string>): Claimed {
  const get = (name: string) => query.find(([n]) => n === name)?.[1];
  if (get('X-Amz-Algorithm') !== ALGORITHM)
    throw s3Error('AuthorizationQueryParametersError', 'X-Amz-Algorithm must be AWS4-HMAC-SHA256');
  const credential = get('X-Amz-Credential');
  const amzDate = get('X-Amz-Date') ?? '';
  const expires = Number(get('X-Amz-Expires'));
  const signedHeaders = get('X-Amz-SignedHeaders');
  const signature = get('X-Amz-Signature');
  if (!credential || !signedHeaders || !signature || Number.isNaN(amzDateMs(amzDate)))
    throw s3Error(
      'AuthorizationQueryParametersError',
      'a presigned URL needs X-Amz-Credential, X-Amz-Date, X-Amz-SignedHeaders and X-Amz-Signature',
    );
  if (!Number.isInteger(expires) || expires < 1 || expires > S3_LIMITS.presignedExpiresSecondsMax)
    throw s3Error(
      'AuthorizationQueryParametersError',
      `X-Amz-Expires must be 1 to ${S3_LIMITS.presignedExpiresSecondsMax} seconds`,
    );
  const scope = parseScope(credential, 'AuthorizationQueryParametersError');
  const signedAt = amzDateMs(amzDate);
  if (signedAt - request.nowMs > S3_LIMITS.clockSkewMsMax)
    throw s3Error('AccessDenied', 'the presigned URL is not valid yet (signed in the future)');
  if (request.nowMs > signedAt + expires * 1000) throw s3Error('AccessDenied', 'Request has expired');
  const payloadHash = headers.get('x-amz-content-sha256') ?? 'UNSIGNED-PAYLOAD';
  return { scope, amzDate, signedHeaders: signedHeaders.split(';'), signature, payloadHash, query, headers };
}

/** Throws AccessDenied, SignatureDoesNotMatch, InvalidAccessKeyId ... or returns who signed. */
export async function verifySignature(
  request: SignedRequest,
  store: CredentialStore,
): Promise<Authenticated> {
  const headers = headerValues(request.rawHeaders);
  const authorization = headers.get('authorization');
  let claimed: Claimed;
  if (authorization !== undefined) claimed = fromHeader(authorization, request, headers);
  else {
    const query = parseQuery(request.rawQuery);
    if (!query.some(([name]) => name === 'X-Amz-Signature'))
      throw s3Error(
        'AccessDenied',
        'anonymous requests are not allowed: sign with an access key (AWS Signature V4)',
      );
    claimed = fromQuery(query, request, headers);
  }
  const { scope, amzDate, signedHeaders } = claimed;
  if (claimed.amzDate.slice(0, 8) !== scope.date)
    throw s3Error(
      'SignatureDoesNotMatch',
      `the credential date ${scope.date} is not the request date ${amzDate}`,
    );
  if (!signedHeaders.includes('host'))
    throw s3Error('AccessDenied', 'the signature must cover the Host header');
  const credential = await store.lookup(scope.accessKeyId);
  if (!credential)
    throw s3Error('InvalidAccessKeyId', `the access key ${scope.accessKeyId} is not known to this gateway`);
  const key = cachedSigningKey(credential.secretKey, scope);
  const scopeText = `${scope.date}/${scope.region}/${scope.service}/aws4_request`;
  const canonical = canonicalRequest({
    method: request.method,
    rawPath: request.rawPath,
    query: claimed.query,
    headers: claimed.headers,
    signedHeaders,
    payloadHash: claimed.payloadHash,
  });
  const expected = signatureOf(key, stringToSign(amzDate, scopeText, canonical));
  if (!sameSignature(expected, claimed.signature)) {
    throw s3Error(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      { canonicalRequest: canonical },
    );
  }
  const signing = { key, amzDate, scope: scopeText, seedSignature: expected };
  return { identity: credential.identity, payload: payloadCheckOf(claimed.payloadHash, signing) };
}
