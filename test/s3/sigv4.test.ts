// AWS Signature V4 against the examples in AWS's S3 documentation (header
// auth, a presigned URL, an aws-chunked upload with chunk signatures), and
// every way a signature can be wrong; Signature V2 against its examples.
// Pure: no cluster.
import { describe, expect, it } from 'vitest';
import { RequestBody } from '../../s3/body.js';
import { StaticCredentials } from '../../s3/credentials.js';
import { verifySignatureV2 } from '../../s3/sigv2.js';
import { awsUriEncode, sha256Hex } from '../../s3/sigv4/canonical.js';
import { type SignedRequest, verifySignature } from '../../s3/sigv4/verify.js';
import { signRequest } from './sign.js';

const ACCESS = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const store = new StaticCredentials([{ accessKeyId: ACCESS, secretKey: SECRET }]);
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const AT = Date.UTC(2013, 4, 24);
const SCOPE = `${ACCESS}/20130524/us-east-1/s3/aws4_request`;

function headerRequest(
  method: string,
  url: string,
  headers: Record<string, string>,
  signed: string[],
  signature: string,
): SignedRequest {
  const q = url.indexOf('?');
  const authorization = `AWS4-HMAC-SHA256 Credential=${SCOPE},SignedHeaders=${signed.join(';')},Signature=${signature}`;
  return {
    method,
    rawPath: q < 0 ? url : url.slice(0, q),
    rawQuery: q < 0 ? '' : url.slice(q + 1),
    rawHeaders: Object.entries({ ...headers, Authorization: authorization }).flat(),
    nowMs: AT,
  };
}

async function s3CodeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
    return 'OK';
  } catch (err) {
    return (err as { details?: { s3Code?: string } }).details?.s3Code ?? String(err);
  }
}

const getRange = (signature: string) =>
  headerRequest(
    'GET',
    '/test.txt',
    {
      Host: 'examplebucket.s3.amazonaws.com',
      Range: 'bytes=0-9',
      'x-amz-content-sha256': EMPTY,
      'x-amz-date': '20130524T000000Z',
    },
    ['host', 'range', 'x-amz-content-sha256', 'x-amz-date'],
    signature,
  );

describe('AWS Signature V4: the S3 documentation examples', () => {
  it('GET with a Range header', async () => {
    const ok = await verifySignature(
      getRange('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41'),
      store,
    );
    expect(ok.identity.accessKeyId).toBe(ACCESS);
    expect(ok.payload).toEqual({ kind: 'sha256', hex: EMPTY });
  });

  it('PUT of test$file.text with a signed payload hash', async () => {
    const hash = sha256Hex('Welcome to Amazon S3.');
    const request = headerRequest(
      'PUT',
      '/test%24file.text',
      {
        Host: 'examplebucket.s3.amazonaws.com',
        Date: 'Fri, 24 May 2013 00:00:00 GMT',
        'x-amz-date': '20130524T000000Z',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
        'x-amz-content-sha256': hash,
      },
      ['date', 'host', 'x-amz-content-sha256', 'x-amz-date', 'x-amz-storage-class'],
      '98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
    );
    expect((await verifySignature(request, store)).payload).toEqual({ kind: 'sha256', hex: hash });
    // The same path escaped differently by a client ('$' left as is) signs the same canonical request.
    expect(await s3CodeOf(verifySignature({ ...request, rawPath: '/test$file.text' }, store))).toBe('OK');
  });

  it('GET ?lifecycle and GET ?max-keys=2&prefix=J (query parameters sorted, a bare name)', async () => {
    const headers = {
      Host: 'examplebucket.s3.amazonaws.com',
      'x-amz-content-sha256': EMPTY,
      'x-amz-date': '20130524T000000Z',
    };
    const signed = ['host', 'x-amz-content-sha256', 'x-amz-date'];
    await verifySignature(
      headerRequest(
        'GET',
        '/?lifecycle',
        headers,
        signed,
        'fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543',
      ),
      store,
    );
    await verifySignature(
      headerRequest(
        'GET',
        '/?prefix=J&max-keys=2',
        headers,
        signed,
        '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7',
      ),
      store,
    );
  });

  it('a presigned URL, valid until it expires', async () => {
    const query = `X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=${encodeURIComponent(SCOPE)}&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404`;
    const request: SignedRequest = {
      method: 'GET',
      rawPath: '/test.txt',
      rawQuery: query,
      rawHeaders: ['Host', 'examplebucket.s3.amazonaws.com'],
      nowMs: AT + 3_600_000,
    };
    expect((await verifySignature(request, store)).payload).toEqual({ kind: 'unsigned' });
    expect(await s3CodeOf(verifySignature({ ...request, nowMs: AT + 86_401_000 }, store))).toBe(
      'AccessDenied',
    );
    expect(await s3CodeOf(verifySignature({ ...request, rawPath: '/other.txt' }, store))).toBe(
      'SignatureDoesNotMatch',
    );
  });

  it('an aws-chunked upload: the seed signature, then every chunk signature chained from it', async () => {
    const headers = {
      Host: 's3.amazonaws.com',
      'x-amz-date': '20130524T000000Z',
      'x-amz-storage-class': 'REDUCED_REDUNDANCY',
      'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      'Content-Encoding': 'aws-chunked',
      'x-amz-decoded-content-length': '66560',
      'Content-Length': '66824',
    };
    const signed = [
      'content-encoding',
      'content-length',
      'host',
      'x-amz-content-sha256',
      'x-amz-date',
      'x-amz-decoded-content-length',
      'x-amz-storage-class',
    ];
    const request = headerRequest(
      'PUT',
      '/examplebucket/chunkObject.txt',
      headers,
      signed,
      '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
    );
    const auth = await verifySignature(request, store);
    expect(auth.payload.kind).toBe('chunked');
    const chunk = (size: number, signature: string, fill = 'a') =>
      Buffer.concat([
        Buffer.from(`${size.toString(16)};chunk-signature=${signature}\r\n`),
        Buffer.alloc(size, fill),
        Buffer.from('\r\n'),
      ]);
    const wire = Buffer.concat([
      chunk(65536, 'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648'),
      chunk(1024, '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497'),
      chunk(0, 'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9'),
    ]);
    expect(wire.length).toBe(66824);
    const read = async (bytes: Buffer, pieceBytes: number) => {
      const pieces = Array.from({ length: Math.ceil(bytes.length / pieceBytes) }, (_, i) =>
        bytes.subarray(i * pieceBytes, (i + 1) * pieceBytes),
      );
      const body = new RequestBody(
        (async function* () {
          yield* pieces;
        })(),
        { payload: auth.payload, headers: { 'x-amz-decoded-content-length': '66560' } },
      );
      const out: Buffer[] = [];
      for await (const piece of body) out.push(piece);
      return Buffer.concat(out);
    };
    // Split anywhere (inside headers, data and CRLFs), the payload comes out whole.
    for (const pieceBytes of [1, 7, 1000, 70_000])
      expect((await read(wire, pieceBytes)).equals(Buffer.alloc(66560, 'a'))).toBe(true);
    const tampered = Buffer.from(wire);
    tampered[200] = 'b'.charCodeAt(0);
    expect(await s3CodeOf(read(tampered, 4096))).toBe('SignatureDoesNotMatch');
    expect(await s3CodeOf(read(wire.subarray(0, 66000), 4096))).toBe('IncompleteBody');
  });
});

describe('AWS Signature V4: refusals', () => {
  it('a wrong signature, an unknown key, a skewed clock, no credentials, another algorithm', async () => {
    expect(await s3CodeOf(verifySignature(getRange('0'.repeat(64)), store))).toBe('SignatureDoesNotMatch');
    const unknown = getRange('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
    unknown.rawHeaders = unknown.rawHeaders.map((v) => v.replace(ACCESS, 'AKIAUNKNOWN0000000'));
    expect(await s3CodeOf(verifySignature(unknown, store))).toBe('InvalidAccessKeyId');
    const late = {
      ...getRange('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41'),
      nowMs: AT + 16 * 60_000,
    };
    expect(await s3CodeOf(verifySignature(late, store))).toBe('RequestTimeTooSkewed');
    const anonymous: SignedRequest = {
      method: 'GET',
      rawPath: '/b/k',
      rawQuery: '',
      rawHeaders: ['Host', 'x'],
      nowMs: AT,
    };
    expect(await s3CodeOf(verifySignature(anonymous, store))).toBe('AccessDenied');
    const v2 = { ...anonymous, rawHeaders: ['Host', 'x', 'Authorization', `AWS ${ACCESS}:abc=`] };
    expect(await s3CodeOf(verifySignature(v2, store))).toBe('InvalidRequest');
    const noHost = headerRequest(
      'GET',
      '/b',
      { Host: 'x', 'x-amz-content-sha256': EMPTY, 'x-amz-date': '20130524T000000Z' },
      ['x-amz-date'],
      '0'.repeat(64),
    );
    expect(await s3CodeOf(verifySignature(noHost, store))).toBe('AccessDenied');
  });

  it('a signed payload hash that does not match the body is refused when the body ends', async () => {
    const signed = signRequest({
      method: 'PUT',
      url: '/b/k',
      host: 'h',
      body: Buffer.from('right'),
      accessKeyId: ACCESS,
      secretKey: SECRET,
      nowMs: AT,
    });
    const auth = await verifySignature(
      {
        method: 'PUT',
        rawPath: '/b/k',
        rawQuery: '',
        rawHeaders: Object.entries(signed.headers).flat(),
        nowMs: AT,
      },
      store,
    );
    const body = new RequestBody(
      (async function* () {
        yield Buffer.from('wrong');
      })(),
      { payload: auth.payload, headers: {} },
    );
    const drain = async () => {
      for await (const _ of body);
    };
    expect(await s3CodeOf(drain())).toBe('XAmzContentSHA256Mismatch');
  });

  it('AWS URI encoding: unreserved characters kept, everything else %XX, slashes kept in paths', () => {
    expect(awsUriEncode("a b+c!*'()~_-.é/x", true)).toBe('a%20b%2Bc%21%2A%27%28%29~_-.%C3%A9/x');
    expect(awsUriEncode('a/b', false)).toBe('a%2Fb');
  });
});

describe('AWS Signature V2 (what boto3 presigns with by default): the S3 documentation examples', () => {
  const at = Date.UTC(2007, 2, 27, 19, 40);
  const v2 = (method: string, url: string, headers: Record<string, string>): SignedRequest => {
    const q = url.indexOf('?');
    return {
      method,
      rawPath: q < 0 ? url : url.slice(0, q),
      rawQuery: q < 0 ? '' : url.slice(q + 1),
      rawHeaders: Object.entries(headers).flat(),
      nowMs: at,
    };
  };
  it('header GET and PUT, and a query-string URL, on a virtual-hosted bucket', async () => {
    const get = v2('GET', '/photos/puppy.jpg', {
      Host: 'johnsmith.s3.amazonaws.com',
      Date: 'Tue, 27 Mar 2007 19:36:42 +0000',
      Authorization: `AWS ${ACCESS}:bWq2s1WEIj+Ydj0vQ697zp+IXMU=`,
    });
    expect((await verifySignatureV2(get, store, 'johnsmith')).identity.accessKeyId).toBe(ACCESS);
    const put = v2('PUT', '/photos/puppy.jpg', {
      'Content-Type': 'image/jpeg',
      'Content-Length': '94328',
      Host: 'johnsmith.s3.amazonaws.com',
      Date: 'Tue, 27 Mar 2007 21:15:45 +0000',
      Authorization: `AWS ${ACCESS}:MyyxeRY7whkBe+bq8fHCL/2kKUg=`,
    });
    expect(
      await s3CodeOf(verifySignatureV2({ ...put, nowMs: Date.UTC(2007, 2, 27, 21, 16) }, store, 'johnsmith')),
    ).toBe('OK');
    const query = v2(
      'GET',
      `/photos/puppy.jpg?AWSAccessKeyId=${ACCESS}&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D&Expires=1175139620`,
      { Host: 'johnsmith.s3.amazonaws.com' },
    );
    expect(await s3CodeOf(verifySignatureV2(query, store, 'johnsmith'))).toBe('OK');
    expect(await s3CodeOf(verifySignatureV2({ ...query, nowMs: 1175139621_000 }, store, 'johnsmith'))).toBe(
      'AccessDenied',
    );
    expect(
      await s3CodeOf(verifySignatureV2({ ...query, rawPath: '/photos/kitten.jpg' }, store, 'johnsmith')),
    ).toBe('SignatureDoesNotMatch');
    expect(await s3CodeOf(verifySignatureV2(get, store, 'otherbucket'))).toBe('SignatureDoesNotMatch');
  });
});
