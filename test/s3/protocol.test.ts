// The S3 protocol's pure parts: keys to paths, the XML parser and writer,
// conditional requests and ranges, checksummed bodies (CRC32 and CRC32C
// trailers as current SDKs send them), bodies gathered for the digest thread,
// error codes, credentials files.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import { ERROR_CODES } from '../../common/errors.js';
import { RequestBody } from '../../s3/body.js';
import { readCredentialsFile, StaticCredentials } from '../../s3/credentials.js';
import { S3_WIRE_ERRORS, wireOf } from '../../s3/errors.js';
import { SharedBuffers } from '../../s3/gather.js';
import { checkNewBucketName, keyPath } from '../../s3/keys.js';
import { EMPTY_MD5 } from '../../s3/ops/put-object.js';
import { evaluate, parseRange } from '../../s3/store/conditions.js';
import { childrenNamed, childText, parseXml, xmlDocument } from '../../s3/xml.js';

function s3CodeOf(work: () => unknown): string {
  try {
    work();
    return 'OK';
  } catch (err) {
    return (err as { details?: { s3Code?: string } }).details?.s3Code ?? String(err);
  }
}

async function drain(body: RequestBody): Promise<string> {
  try {
    const out: Buffer[] = [];
    for await (const piece of body) out.push(piece);
    return Buffer.concat(out).toString();
  } catch (err) {
    return `error:${(err as { details?: { s3Code?: string } }).details?.s3Code}`;
  }
}

function source(...pieces: string[]): AsyncIterable<Buffer> {
  return (async function* () {
    for (const p of pieces) yield Buffer.from(p);
  })();
}

function base64Of(value: number): string {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value >>> 0);
  return b.toString('base64');
}

describe('keys and buckets', () => {
  it('a key is a path under its bucket; a trailing slash names the directory', () => {
    expect(keyPath('b', 'a/b/c.txt')).toMatchObject({ path: '/b/a/b/c.txt', isDirectory: false });
    expect(keyPath('b', 'a/b/')).toMatchObject({ path: '/b/a/b', isDirectory: true });
    expect(keyPath('b', 'ünï cødé + spaces')).toMatchObject({ path: '/b/ünï cødé + spaces' });
  });

  it('keys no path can hold are refused with InvalidObjectName or KeyTooLongError, never rewritten', () => {
    for (const key of ['a//b', '/a', 'a/./b', 'a/../b', '..', 'a\u0000b', `${'x'.repeat(256)}/y`])
      expect(
        s3CodeOf(() => keyPath('b', key)),
        key,
      ).toBe('InvalidObjectName');
    expect(s3CodeOf(() => keyPath('b', 'k'.repeat(1025)))).toBe('KeyTooLongError');
    expect(s3CodeOf(() => keyPath('b', ''))).toBe('InvalidArgument');
  });

  it("bucket names follow S3's rules for new buckets", () => {
    for (const ok of ['abc', 'my-bucket.2024', 'a'.repeat(63)])
      expect(s3CodeOf(() => checkNewBucketName(ok))).toBe('OK');
    for (const bad of ['ab', 'Upper', '-x-', 'a..b', '192.168.1.1', 'xn--abc', 'a_b', 'a'.repeat(64)])
      expect(
        s3CodeOf(() => checkNewBucketName(bad)),
        bad,
      ).toBe('InvalidBucketName');
  });
});

describe('XML', () => {
  it('parses request documents with namespaces, entities, CDATA and comments', () => {
    const doc = parseXml(
      '<?xml version="1.0" encoding="UTF-8"?>\n<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><!-- c --><Quiet>true</Quiet>' +
        '<Object><Key>a&amp;b &lt;c&gt; &#233;&#x1F600;</Key></Object><Object><Key><![CDATA[x<y]]></Key></Object><Empty/></Delete>',
    );
    expect(doc.name).toBe('Delete');
    expect(childText(doc, 'Quiet')).toBe('true');
    expect(childrenNamed(doc, 'Object').map((o) => childText(o, 'Key'))).toEqual(['a&b <c> é😀', 'x<y']);
  });

  it('refuses malformed documents and DTDs (entity expansion) with MalformedXML', () => {
    for (const bad of [
      '<a><b></a>',
      '<a>',
      '<a></a><b></b>',
      'text',
      '<!DOCTYPE x [<!ENTITY e "e">]><a>&e;</a>',
      '<a>&bogus;</a>',
    ])
      expect(
        s3CodeOf(() => parseXml(bad)),
        bad,
      ).toBe('MalformedXML');
  });

  it('writes escaped documents that parse back', () => {
    const text = xmlDocument('R', { Key: 'a<&>"\'b', List: [{ N: 1 }, { N: 2 }], Skip: undefined });
    expect(text).toContain('<Key>a&lt;&amp;&gt;&quot;&apos;b</Key>');
    const back = parseXml(text);
    expect(childText(back, 'Key')).toBe('a<&>"\'b');
    expect(childrenNamed(back, 'List').map((l) => childText(l, 'N'))).toEqual(['1', '2']);
  });
});

describe('conditions and ranges', () => {
  const current = { etag: '"abc"', mtimeMs: Date.UTC(2024, 0, 2, 3, 4, 5, 600) };
  it('If-Match, If-None-Match, If-Modified-Since and If-Unmodified-Since in S3 order', () => {
    expect(evaluate({ ifMatch: '"abc"' }, current)).toBe('ok');
    expect(evaluate({ ifMatch: 'abc' }, current)).toBe('ok');
    expect(s3CodeOf(() => evaluate({ ifMatch: '"other"' }, current))).toBe('PreconditionFailed');
    expect(evaluate({ ifNoneMatch: '"x", "abc"' }, current)).toBe('not-modified');
    expect(evaluate({ ifNoneMatch: '"x"' }, current)).toBe('ok');
    expect(evaluate({ ifModifiedSince: 'Tue, 02 Jan 2024 03:04:05 GMT' }, current)).toBe('not-modified');
    expect(evaluate({ ifModifiedSince: 'Tue, 02 Jan 2024 03:04:04 GMT' }, current)).toBe('ok');
    expect(s3CodeOf(() => evaluate({ ifUnmodifiedSince: 'Tue, 02 Jan 2024 03:04:04 GMT' }, current))).toBe(
      'PreconditionFailed',
    );
    // If-Match holding wins over If-Unmodified-Since failing.
    expect(evaluate({ ifMatch: '"abc"', ifUnmodifiedSince: 'Mon, 01 Jan 2024 00:00:00 GMT' }, current)).toBe(
      'ok',
    );
  });

  it('byte ranges: first-last, open-ended, suffix, clamped; unsatisfiable is InvalidRange', () => {
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-1000', 100)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=50-5000', 100)).toEqual({ start: 50, end: 99 });
    expect(parseRange('bytes=0-1,5-6', 100)).toBeUndefined();
    expect(parseRange(undefined, 100)).toBeUndefined();
    expect(s3CodeOf(() => parseRange('bytes=100-', 100))).toBe('InvalidRange');
    expect(s3CodeOf(() => parseRange('bytes=-0', 100))).toBe('InvalidRange');
  });
});

describe('request bodies', () => {
  const unsignedTrailer = { kind: 'chunked', trailer: true, signing: undefined } as const;
  it('STREAMING-UNSIGNED-PAYLOAD-TRAILER with a CRC32 or CRC32C trailer, split anywhere', async () => {
    const data = 'hello stripefs, '.repeat(1000);
    for (const [algorithm, value] of [
      ['crc32', base64Of(crc32(Buffer.from(data)))],
      ['crc32c', base64Of(crc32c(Buffer.from(data)))],
    ] as const) {
      const wire = `${(10000).toString(16)}\r\n${data.slice(0, 10000)}\r\n${(6000).toString(16)}\r\n${data.slice(10000)}\r\n0\r\nx-amz-checksum-${algorithm}:${value}\r\n\r\n`;
      const headers = {
        'x-amz-trailer': `x-amz-checksum-${algorithm}`,
        'x-amz-decoded-content-length': '16000',
      };
      const pieces = wire.match(/[\s\S]{1,333}/g) as string[];
      expect(await drain(new RequestBody(source(...pieces), { payload: unsignedTrailer, headers }))).toBe(
        data,
      );
      const wrong = wire.replace(value, base64Of(1234));
      expect(await drain(new RequestBody(source(wrong), { payload: unsignedTrailer, headers }))).toBe(
        'error:BadDigest',
      );
      const missing = wire.replace(/x-amz-checksum-[^\r]*\r\n/, '');
      expect(await drain(new RequestBody(source(missing), { payload: unsignedTrailer, headers }))).toBe(
        'error:IncompleteBody',
      );
    }
  });

  it('Content-MD5, an x-amz-checksum header, declared lengths and unknown checksum algorithms', async () => {
    const unsigned = { kind: 'unsigned' } as const;
    const md5 = 'XUFAKrxLKna5cZ2REBfFkg=='; // md5("hello")
    expect(
      await drain(new RequestBody(source('hello'), { payload: unsigned, headers: { 'content-md5': md5 } })),
    ).toBe('hello');
    expect(
      await drain(new RequestBody(source('hellO'), { payload: unsigned, headers: { 'content-md5': md5 } })),
    ).toBe('error:BadDigest');
    const crc = base64Of(crc32(Buffer.from('hello')));
    expect(
      await drain(
        new RequestBody(source('hello'), { payload: unsigned, headers: { 'x-amz-checksum-crc32': crc } }),
      ),
    ).toBe('hello');
    expect(
      await drain(
        new RequestBody(source('hellO'), { payload: unsigned, headers: { 'x-amz-checksum-crc32': crc } }),
      ),
    ).toBe('error:BadDigest');
    expect(
      await drain(new RequestBody(source('hell'), { payload: unsigned, headers: { 'content-length': '5' } })),
    ).toBe('error:IncompleteBody');
    expect(
      () =>
        new RequestBody(source(''), {
          payload: unsigned,
          headers: { 'x-amz-trailer': 'x-amz-checksum-crc64nvme' },
        }),
    ).toThrow(/not supported/);
    expect(
      () => new RequestBody(source(''), { payload: unsigned, headers: { 'content-md5': 'nope' } }),
    ).toThrow(/Content-MD5/);
  });
});

describe('gathered bodies (the digest thread)', () => {
  /** Gathers a body as writeBody does; answers the bytes, each buffer's length and last flag, or the S3 code. */
  async function gather(body: RequestBody, buffers: SharedBuffers, gatherBytes: number) {
    try {
      const out: Buffer[] = [];
      const shape: string[] = [];
      for await (const g of body.gathered(buffers, gatherBytes)) {
        expect(g.data.buffer).toBeInstanceOf(SharedArrayBuffer);
        out.push(Buffer.from(g.data));
        shape.push(`${g.data.length}${g.last ? '!' : ''}`);
        g.done(Promise.resolve());
      }
      return { bytes: Buffer.concat(out), shape: shape.join(' '), md5: body.md5Hex() };
    } catch (err) {
      return { error: (err as { details?: { s3Code?: string } }).details?.s3Code ?? String(err) };
    }
  }

  function split(data: Buffer, seed: number): AsyncIterable<Buffer> {
    return (async function* () {
      let s = seed;
      for (let at = 0; at < data.length; ) {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        const n = 1 + (s % 3000);
        yield Buffer.from(data.subarray(at, at + n));
        at += n;
      }
    })();
  }

  it('hands out the body in whole buffers, the last one marked, with the MD5 and SHA-256 of every byte', async () => {
    const seed = 20261127;
    const data = Buffer.alloc(25_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 31 + seed) & 0xff;
    const md5 = createHash('md5').update(data).digest();
    const sha256 = createHash('sha256').update(data).digest('hex');
    const buffers = new SharedBuffers(1 << 20);
    const unsigned = { kind: 'unsigned' } as const;
    const got = await gather(
      new RequestBody(split(data, seed), { payload: unsigned, headers: {} }),
      buffers,
      4096,
    );
    expect(got.bytes?.equals(data)).toBe(true);
    expect(got.shape).toBe(`${'4096 '.repeat(6)}424!`);
    expect(got.md5).toBe(md5.toString('hex'));
    // A body that ends on a buffer's end: its last buffer is the full one.
    const even = await gather(
      new RequestBody(split(data.subarray(0, 8192), seed), { payload: unsigned, headers: {} }),
      buffers,
      4096,
    );
    expect(even.shape).toBe('4096 4096!');
    // Buffers come back to the pool once done (their hashing and their lending) and are reused.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(buffers.idleBytesNow).toBeGreaterThan(0);
    const signed = { kind: 'sha256', hex: sha256 } as const;
    const headers = { 'content-md5': md5.toString('base64'), 'content-length': String(data.length) };
    expect(
      (await gather(new RequestBody(split(data, 1), { payload: signed, headers }), buffers, 5000)).md5,
    ).toBe(md5.toString('hex'));
    const altered = Buffer.from(data);
    altered[12_345] = (altered[12_345] as number) ^ 1;
    expect(
      (await gather(new RequestBody(split(altered, 2), { payload: signed, headers: {} }), buffers, 5000))
        .error,
    ).toBe('XAmzContentSHA256Mismatch');
    expect(
      (await gather(new RequestBody(split(altered, 3), { payload: unsigned, headers }), buffers, 5000)).error,
    ).toBe('BadDigest');
    expect(
      (
        await gather(
          new RequestBody(split(data.subarray(1), 4), { payload: unsigned, headers }),
          buffers,
          5000,
        )
      ).error,
    ).toBe('IncompleteBody');
    // An empty body: nothing handed out, the MD5 of nothing.
    const empty = await gather(
      new RequestBody(source(''), { payload: unsigned, headers: {} }),
      buffers,
      4096,
    );
    expect(empty.shape).toBe('');
    expect(empty.md5).toBe(EMPTY_MD5);
  });
});

describe('error codes and credentials', () => {
  it('every S3 wire code maps to a registry code whose HTTP status class agrees', () => {
    for (const [s3Code, spec] of Object.entries(S3_WIRE_ERRORS)) {
      expect(ERROR_CODES[spec.code], s3Code).toBeDefined();
      expect(Math.floor(spec.http / 100), s3Code).toBe(Math.floor(ERROR_CODES[spec.code].http / 100));
    }
    expect(wireOf(new Error('boom'), 'object')).toMatchObject({ s3Code: 'InternalError', http: 500 });
  });

  it('a credentials file of pairs, with comments; malformed lines and weak secrets are CONFIG_INVALID', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stripefs-s3-keys-'));
    try {
      const file = join(dir, 'keys');
      writeFileSync(file, '# gateway keys\nAKIDONE secret-one-123 trainer\n\nAKIDTWO secret-two-456\n');
      const store = new StaticCredentials(readCredentialsFile(file));
      expect((await store.lookup('AKIDONE'))?.identity.name).toBe('trainer');
      expect((await store.lookup('AKIDTWO'))?.secretKey).toBe('secret-two-456');
      expect(await store.lookup('AKIDTHREE')).toBeUndefined();
      writeFileSync(file, 'ONLYONEFIELD\n');
      expect(() => readCredentialsFile(file)).toThrow(/line 1/);
      expect(() => new StaticCredentials([{ accessKeyId: 'AKID', secretKey: 'short' }])).toThrow(
        /shorter than 8/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
