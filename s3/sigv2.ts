// AWS Signature Version 2 (HMAC-SHA1), header and query forms. S3 still
// accepts it, and boto3's generate_presigned_url uses it unless told
// signature_version='s3v4', as do older tools. Pure, like sigv4/.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CredentialStore } from './credentials.js';
import { s3Error } from './errors.js';
import { S3_LIMITS } from './limits.js';
import { headerValues, parseQuery } from './sigv4/canonical.js';
import type { Authenticated, SignedRequest } from './sigv4/verify.js';

/** Query parameters that name a subresource and so are signed (S3's list). */
const SUBRESOURCES = new Set([
  'acl',
  'delete',
  'lifecycle',
  'location',
  'logging',
  'notification',
  'partNumber',
  'policy',
  'requestPayment',
  'response-cache-control',
  'response-content-disposition',
  'response-content-encoding',
  'response-content-language',
  'response-content-type',
  'response-expires',
  'restore',
  'tagging',
  'torrent',
  'uploadId',
  'uploads',
  'versionId',
  'versioning',
  'versions',
  'website',
  'cors',
  'object-lock',
  'retention',
  'legal-hold',
  'encryption',
  'select',
  'select-type',
]);

export function stringToSignV2(
  request: SignedRequest,
  dateOrExpires: string,
  bucketFromHost: string | undefined,
): string {
  const headers = headerValues(request.rawHeaders);
  const amz = [...headers.entries()]
    .filter(([name]) => name.startsWith('x-amz-'))
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}:${value}\n`)
    .join('');
  const sub = parseQuery(request.rawQuery)
    .filter(([name]) => SUBRESOURCES.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => (value === '' ? name : `${name}=${value}`));
  const resource = `${bucketFromHost ? `/${bucketFromHost}` : ''}${request.rawPath}${sub.length ? `?${sub.join('&')}` : ''}`;
  return `${request.method}\n${headers.get('content-md5') ?? ''}\n${headers.get('content-type') ?? ''}\n${dateOrExpires}\n${amz}${resource}`;
}

export function signatureV2(secretKey: string, text: string): string {
  return createHmac('sha1', secretKey).update(text, 'utf8').digest('base64');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Verifies a V2 header (`AWS KEY:SIG`) or query (AWSAccessKeyId, Expires, Signature) signature. */
export async function verifySignatureV2(
  request: SignedRequest,
  store: CredentialStore,
  bucketFromHost: string | undefined,
): Promise<Authenticated> {
  const headers = headerValues(request.rawHeaders);
  const authorization = headers.get('authorization');
  let accessKeyId: string;
  let signature: string;
  let dateLine: string;
  if (authorization !== undefined) {
    const m = /^AWS ([^:]+):(.+)$/.exec(authorization);
    if (!m) throw s3Error('AccessDenied', 'a V2 Authorization header is AWS ACCESS_KEY:SIGNATURE');
    [accessKeyId, signature] = [m[1] as string, m[2] as string];
    const amzDate = headers.get('x-amz-date');
    const date = amzDate ?? headers.get('date');
    const ms = date === undefined ? Number.NaN : Date.parse(date);
    if (Number.isNaN(ms))
      throw s3Error('AccessDenied', 'a V2 signed request needs a Date or x-amz-date header');
    if (Math.abs(request.nowMs - ms) > S3_LIMITS.clockSkewMsMax)
      throw s3Error(
        'RequestTimeTooSkewed',
        `the request time ${date} is more than 15 minutes from the gateway's clock`,
      );
    dateLine = amzDate === undefined ? (date as string) : '';
  } else {
    const query = new Map(parseQuery(request.rawQuery));
    accessKeyId = query.get('AWSAccessKeyId') ?? '';
    signature = query.get('Signature') ?? '';
    dateLine = query.get('Expires') ?? '';
    if (!/^\d+$/.test(dateLine))
      throw s3Error('AccessDenied', 'a V2 presigned URL needs Expires (seconds since 1970)');
    if (request.nowMs > Number(dateLine) * 1000) throw s3Error('AccessDenied', 'Request has expired');
  }
  const credential = await store.lookup(accessKeyId);
  if (!credential)
    throw s3Error('InvalidAccessKeyId', `the access key ${accessKeyId} is not known to this gateway`);
  const text = stringToSignV2(request, dateLine, bucketFromHost);
  if (!same(signatureV2(credential.secretKey, text), signature))
    throw s3Error(
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided (V2).',
      { stringToSign: text },
    );
  return { identity: credential.identity, payload: { kind: 'unsigned' } };
}
