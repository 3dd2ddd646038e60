// The S3 gateway against a real cluster, through fastify inject: buckets,
// objects, keys as paths, listings, conditional requests, copies, deletes,
// signatures and checksums. The real S3 clients (awscli, s3cmd, rclone,
// boto3) run in `npm run test:s3`.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { S3_LIMITS } from '../../s3/limits.js';
import { etagOf, readMeta } from '../../s3/store/meta.js';
import { seededBytes } from '../helpers/clients.js';
import {
  ACCESS_KEY,
  all,
  type Gateway,
  MiB,
  mdsCallsByOp,
  SECRET_KEY,
  since,
  startGateway,
} from './harness.js';
import { signRequest } from './sign.js';

const SEED = seedFromEnv();
console.log(`s3 gateway objects seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');

describe('S3 gateway: buckets and objects', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('buckets: create, list (gateway state hidden), head, duplicate and invalid names', async () => {
    expect(all((await gw.send('GET', '/')).text, 'Name')).toEqual([]);
    expect((await gw.send('PUT', '/photos')).status).toBe(200);
    expect((await gw.client.stat('/photos')).isDirectory()).toBe(true);
    const again = await gw.send('PUT', '/photos');
    expect([again.status, again.code]).toEqual([409, 'BucketAlreadyOwnedByYou']);
    expect(again.text).toContain('<StripefsCode>S3_BUCKET_EXISTS</StripefsCode>');
    const bad = await gw.send('PUT', '/Bad_Name');
    expect([bad.status, bad.code]).toEqual([400, 'InvalidBucketName']);
    expect(all((await gw.send('GET', '/')).text, 'Name')).toEqual(['photos']);
    expect((await gw.send('HEAD', '/photos')).status).toBe(200);
    expect((await gw.send('HEAD', '/nothing')).status).toBe(404);
    const missing = await gw.send('GET', '/nothing?list-type=2');
    expect([missing.status, missing.code]).toEqual([404, 'NoSuchBucket']);
  });
});

describe('S3 gateway: objects over a real cluster', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway();
    await gw.send('PUT', '/data');
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('PUT and GET round-trip bytes, ETag (MD5), stored headers and x-amz-meta-*; keys are paths', async () => {
    for (const size of [0, 1, 64 * 1024, 64 * 1024 + 7, 3 * MiB + 5]) {
      const data = seededBytes(size, SEED + size);
      const put = await gw.send('PUT', `/data/set/size-${size}.bin`, {
        body: data,
        headers: {
          'content-type': 'application/x-test',
          'x-amz-meta-origin': 'gateway test',
          'cache-control': 'no-cache',
        },
      });
      expect(put.status, `PUT ${size}`).toBe(200);
      expect(put.headers.etag).toBe(`"${md5(data)}"`);
      const get = await gw.send('GET', `/data/set/size-${size}.bin`);
      expect(get.status).toBe(200);
      expect(get.body.equals(data), `GET ${size}`).toBe(true);
      expect(get.headers).toMatchObject({
        etag: `"${md5(data)}"`,
        'content-type': 'application/x-test',
        'content-length': String(size),
        'x-amz-meta-origin': 'gateway test',
        'cache-control': 'no-cache',
        'accept-ranges': 'bytes',
      });
      const head = await gw.send('HEAD', `/data/set/size-${size}.bin`);
      expect([head.status, head.headers['content-length'], head.body.length]).toEqual([200, String(size), 0]);
    }
    // The key is a path: '/' made directories, and the file holds the bytes.
    expect((await gw.client.stat('/data/set')).isDirectory()).toBe(true);
    expect(
      (await gw.client.readFile('/data/set/size-65543.bin')).equals(seededBytes(65543, SEED + 65543)),
    ).toBe(true);
    const missing = await gw.send('GET', '/data/set/none');
    expect([missing.status, missing.code]).toEqual([404, 'NoSuchKey']);
    const unbucketed = await gw.send('PUT', '/nobucket/k', { body: 'x' });
    expect([unbucketed.status, unbucketed.code]).toEqual([404, 'NoSuchBucket']);
  });

  it('a small PUT is four MDS calls: its create sets the metadata (no SetXattr), then commit and rename; a GET or HEAD is one open that reads the record', async () => {
    // Warm: the key's directory exists, and the gateway's staging folder.
    await gw.send('PUT', '/data/calls/warm', { body: 'w' });
    const data = seededBytes(32 * 1024, SEED + 7);
    const before = await mdsCallsByOp(gw.cluster.mdsAdminUrl);
    const put = await gw.send('PUT', '/data/calls/small', {
      body: data,
      headers: { 'content-type': 'text/x-small', 'x-amz-meta-k': 'v' },
    });
    expect(put.status).toBe(200);
    const used = since(before, await mdsCallsByOp(gw.cluster.mdsAdminUrl));
    expect(used).toEqual({ stat: 1, create: 1, commit: 1, rename: 1 });
    // The GET: one open that reads the record too, no stat (the open's attributes are the handle's).
    const beforeGet = await mdsCallsByOp(gw.cluster.mdsAdminUrl);
    const got = await gw.send('GET', '/data/calls/small');
    expect(since(beforeGet, await mdsCallsByOp(gw.cluster.mdsAdminUrl))).toEqual({ open: 1 });
    expect(got.body.equals(data)).toBe(true);
    const stored = { etag: `"${md5(data)}"`, 'content-type': 'text/x-small', 'x-amz-meta-k': 'v' };
    expect(got.headers).toMatchObject(stored);
    // The HEAD: the same open, closed at once.
    const beforeHead = await mdsCallsByOp(gw.cluster.mdsAdminUrl);
    const head = await gw.send('HEAD', '/data/calls/small');
    expect(since(beforeHead, await mdsCallsByOp(gw.cluster.mdsAdminUrl))).toEqual({ open: 1 });
    expect(head.headers).toMatchObject({ ...stored, 'content-length': String(data.length) });
    // Rewritten through another front door with the same size: a new file, so the MD5 no longer names it.
    await gw.client.writeFile('/data/calls/small', seededBytes(32 * 1024, SEED + 8));
    expect((await gw.send('HEAD', '/data/calls/small')).headers.etag).toMatch(/^"stripefs-/);
  });

  it("a small PUT's record is read with the file it came from: a GET racing a same-size replace never pairs the new MD5 with the old file", async () => {
    const path = '/data/calls/raced';
    const first = seededBytes(16 * 1024, SEED + 21);
    const second = seededBytes(16 * 1024, SEED + 22);
    expect((await gw.send('PUT', path, { body: first })).status).toBe(200);
    // What a GET's open saw, just before another PUT replaced the key with as many bytes.
    const opened = await gw.client.stat(path);
    expect((await gw.send('PUT', path, { body: second })).status).toBe(200);
    // ...and the record its read beside the open found.
    const meta = await readMeta(gw.client, path);
    const now = await gw.client.stat(path);
    expect(meta?.inode, 'the record names the file it was read from').toBe(now.inode);
    expect(now.inode).not.toBe(opened.inode);
    expect(etagOf(now, meta)).toBe(`"${md5(second)}"`);
    expect(etagOf(opened, meta), 'the old file is not given the new MD5').toMatch(/^"stripefs-/);
  });

  it('Range gives 206 with Content-Range; a range past the end is InvalidRange (416)', async () => {
    const data = seededBytes(1000, SEED + 1);
    await gw.send('PUT', '/data/range', { body: data });
    const cases: [string, number, number][] = [
      ['bytes=0-9', 0, 9],
      ['bytes=990-', 990, 999],
      ['bytes=-3', 997, 999],
      ['bytes=500-5000', 500, 999],
    ];
    for (const [range, start, end] of cases) {
      const got = await gw.send('GET', '/data/range', { headers: { range } });
      expect(got.status, range).toBe(206);
      expect(got.headers['content-range']).toBe(`bytes ${start}-${end}/1000`);
      expect(got.body.equals(data.subarray(start, end + 1)), range).toBe(true);
    }
    const past = await gw.send('GET', '/data/range', { headers: { range: 'bytes=1000-' } });
    expect([past.status, past.code, past.headers['content-range']]).toEqual([
      416,
      'InvalidRange',
      'bytes */1000',
    ]);
  });

  it('conditional GET and HEAD: If-None-Match and If-Modified-Since give 304, If-Match and If-Unmodified-Since 412', async () => {
    const put = await gw.send('PUT', '/data/cond', { body: 'conditional' });
    const etag = put.headers.etag as string;
    const lastModified = (await gw.send('HEAD', '/data/cond')).headers['last-modified'] as string;
    expect((await gw.send('GET', '/data/cond', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect(
      (await gw.send('HEAD', '/data/cond', { headers: { 'if-modified-since': lastModified } })).status,
    ).toBe(304);
    expect((await gw.send('GET', '/data/cond', { headers: { 'if-match': etag } })).text).toBe('conditional');
    const wrong = await gw.send('GET', '/data/cond', { headers: { 'if-match': '"0123"' } });
    expect([wrong.status, wrong.code]).toEqual([412, 'PreconditionFailed']);
    const old = await gw.send('GET', '/data/cond', {
      headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' },
    });
    expect(old.status).toBe(412);
  });

  it('If-None-Match: * creates only when absent: of eight racing creates exactly one wins', async () => {
    expect(
      (await gw.send('PUT', '/data/marker/commit', { body: 'first', headers: { 'if-none-match': '*' } }))
        .status,
    ).toBe(200);
    const second = await gw.send('PUT', '/data/marker/commit', {
      body: 'second',
      headers: { 'if-none-match': '*' },
    });
    expect([second.status, second.code]).toEqual([412, 'PreconditionFailed']);
    expect((await gw.send('GET', '/data/marker/commit')).text).toBe('first');
    const racers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        gw.send('PUT', '/data/marker/race', { body: `writer ${i}`, headers: { 'if-none-match': '*' } }),
      ),
    );
    const winners = racers.map((r, i) => [r.status, i] as const).filter(([status]) => status === 200);
    expect(winners).toHaveLength(1);
    expect(racers.filter((r) => r.status === 412)).toHaveLength(7);
    expect((await gw.send('GET', '/data/marker/race')).text).toBe(`writer ${winners[0]?.[1]}`);
  });

  it("a key cannot be both an object and a prefix ('a' and 'a/b'): KeyConflict, and nothing stored changes", async () => {
    await gw.send('PUT', '/data/both', { body: 'an object' });
    const under = await gw.send('PUT', '/data/both/child', { body: 'x' });
    expect([under.status, under.code]).toEqual([409, 'KeyConflict']);
    await gw.send('PUT', '/data/tree/leaf', { body: 'y' });
    const over = await gw.send('PUT', '/data/tree', { body: 'z' });
    expect([over.status, over.code]).toEqual([409, 'KeyConflict']);
    expect((await gw.send('GET', '/data/both')).text).toBe('an object');
    expect((await gw.send('GET', '/data/tree/leaf')).text).toBe('y');
    // ('.' and '..' segments too: protocol.test.ts; inject's URL parser would resolve them before the gateway.)
    for (const key of ['a//b', 'x/y//']) {
      const bad = await gw.send('PUT', `/data/${key}`, { body: 'x' });
      expect([bad.status, bad.code], key).toEqual([400, 'InvalidObjectName']);
    }
  });

  it('ListObjectsV2 and V1: delimiters, pages, start-after, markers, url encoding', async () => {
    await gw.send('PUT', '/list');
    const keys = [
      'a.txt',
      'd-1',
      'd/x',
      'd/y/z',
      'd0',
      'e f+g',
      'photos/2024/01.jpg',
      'photos/2024/02.jpg',
      'photos/2025/01.jpg',
    ];
    for (const key of keys)
      await gw.send('PUT', `/list/${encodeURIComponent(key).replace(/%2F/g, '/')}`, { body: key });
    const flat = await gw.send('GET', '/list?list-type=2');
    expect(all(flat.text, 'Key')).toEqual(keys);
    expect(all(flat.text, 'KeyCount')).toEqual(['9']);
    const top = await gw.send('GET', '/list?list-type=2&delimiter=%2F');
    expect(all(top.text, 'Key')).toEqual(['a.txt', 'd-1', 'd0', 'e f+g']);
    expect(all(top.text, 'Prefix').filter((p) => p !== '')).toEqual(['d/', 'photos/']);
    const years = await gw.send('GET', '/list?list-type=2&prefix=photos%2F&delimiter=%2F');
    expect(all(years.text, 'Prefix').slice(1)).toEqual(['photos/2024/', 'photos/2025/']);
    // Pages of two, resumed with the continuation token, give every key once, in order.
    const paged: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10; page++) {
      const url = `/list?list-type=2&max-keys=2${token ? `&continuation-token=${encodeURIComponent(token)}` : ''}`;
      const answer = await gw.send('GET', url);
      paged.push(...all(answer.text, 'Key'));
      token = all(answer.text, 'NextContinuationToken')[0];
      if (!token) break;
    }
    expect(paged).toEqual(keys);
    expect(all((await gw.send('GET', '/list?list-type=2&start-after=d%2Fx')).text, 'Key')).toEqual(
      keys.slice(3),
    );
    const v1 = await gw.send('GET', '/list?marker=d0&max-keys=2');
    expect(all(v1.text, 'Key')).toEqual(['e f+g', 'photos/2024/01.jpg']);
    expect(all(v1.text, 'IsTruncated')).toEqual(['true']);
    const encoded = await gw.send('GET', '/list?list-type=2&prefix=e&encoding-type=url');
    expect(all(encoded.text, 'Key')).toEqual(['e%20f%2Bg']);
    expect(all(flat.text, 'ETag')[0]).toBe(`&quot;${md5('a.txt')}&quot;`);
  });

  it('DeleteObject removes the emptied directories, keeps folder markers; DeleteObjects deletes many', async () => {
    await gw.send('PUT', '/data/del/deep/er/file', { body: '1' });
    await gw.send('PUT', '/data/del/kept/', { body: '' });
    await gw.send('PUT', '/data/del/kept/file', { body: '2' });
    expect((await gw.send('DELETE', '/data/del/deep/er/file')).status).toBe(204);
    await expect(gw.client.stat('/data/del/deep')).rejects.toMatchObject({ code: 'NS_NOT_FOUND' });
    expect((await gw.send('DELETE', '/data/del/kept/file')).status).toBe(204);
    expect((await gw.client.stat('/data/del/kept')).isDirectory()).toBe(true);
    const marker = await gw.send('HEAD', '/data/del/kept/');
    expect([marker.status, marker.headers['content-length']]).toEqual([200, '0']);
    expect(all((await gw.send('GET', '/data?list-type=2&prefix=del%2F')).text, 'Key')).toEqual(['del/kept/']);
    expect((await gw.send('DELETE', '/data/del/never-was')).status).toBe(204);
    for (const k of ['m1', 'm2', 'sub/m3']) await gw.send('PUT', `/data/many/${k}`, { body: k });
    const xml = `<Delete><Object><Key>many/m1</Key></Object><Object><Key>many/m2</Key></Object><Object><Key>many/sub/m3</Key></Object><Object><Key>many/absent</Key></Object><Object><Key>bad//key</Key></Object></Delete>`;
    const contentMd5 = createHash('md5').update(xml).digest('base64');
    const result = await gw.send('POST', '/data?delete', {
      body: xml,
      headers: { 'content-md5': contentMd5 },
    });
    expect(result.status).toBe(200);
    expect(all(result.text, 'Key')).toEqual(['many/m1', 'many/m2', 'many/sub/m3', 'many/absent', 'bad//key']);
    expect(all(result.text, 'Code')).toEqual(['InvalidObjectName']);
    await expect(gw.client.stat('/data/many')).rejects.toMatchObject({ code: 'NS_NOT_FOUND' });
    const tampered = await gw.send('POST', '/data?delete', {
      body: xml,
      headers: { 'content-md5': createHash('md5').update('other').digest('base64') },
    });
    expect(tampered.status).toBe(400);
  });

  it('DeleteObjects: a folder marker named with the keys under it goes too; one named alone stays while keys are under it', async () => {
    for (const k of ['set/', 'set/a/', 'set/a/x', 'set/a/y', 'set/b/z', 'keep/', 'keep/k', 'other/o'])
      expect((await gw.send('PUT', `/data/dm/${k}`, { body: k.endsWith('/') ? '' : k })).status).toBe(200);
    const named = [
      'dm/set/',
      'dm/set/a/',
      'dm/set/a/x',
      'dm/set/a/y',
      'dm/set/b/z',
      'dm/keep/k',
      'dm/other/o',
    ];
    const xml = `<Delete>${named.map((k) => `<Object><Key>${k}</Key></Object>`).join('')}</Delete>`;
    const result = await gw.send('POST', '/data?delete', {
      body: xml,
      headers: { 'content-md5': createHash('md5').update(xml).digest('base64') },
    });
    expect(result.status).toBe(200);
    expect(all(result.text, 'Key')).toEqual(named);
    // The markers went after the keys under them; keep/ was not named, so it stays (a folder marker).
    expect(all((await gw.send('GET', '/data?list-type=2&prefix=dm%2F')).text, 'Key')).toEqual(['dm/keep/']);
    await expect(gw.client.stat('/data/dm/set')).rejects.toMatchObject({ code: 'NS_NOT_FOUND' });
    await expect(gw.client.stat('/data/dm/other')).rejects.toMatchObject({ code: 'NS_NOT_FOUND' });
    const alone = `<Delete><Object><Key>dm/keep/</Key></Object><Object><Key>dm/keep/absent</Key></Object></Delete>`;
    await gw.send('PUT', '/data/dm/keep/k2', { body: 'k2' });
    const kept = await gw.send('POST', '/data?delete', {
      body: alone,
      headers: { 'content-md5': createHash('md5').update(alone).digest('base64') },
    });
    expect(all(kept.text, 'Key')).toEqual(['dm/keep/', 'dm/keep/absent']);
    // A directory with keys in it lists as those keys; once they go, it is still the marker.
    expect(all((await gw.send('GET', '/data?list-type=2&prefix=dm%2F')).text, 'Key')).toEqual(['dm/keep/k2']);
    expect((await gw.send('DELETE', '/data/dm/keep/k2')).status).toBe(204);
    expect(all((await gw.send('GET', '/data?list-type=2&prefix=dm%2F')).text, 'Key')).toEqual(['dm/keep/']);
  });

  it('CopyObject: bytes, ETag and metadata copied or replaced; onto itself only with REPLACE', async () => {
    const data = seededBytes(2 * MiB + 11, SEED + 2);
    await gw.send('PUT', '/data/src', {
      body: data,
      headers: { 'x-amz-meta-a': '1', 'content-type': 'text/x-src' },
    });
    const copy = await gw.send('PUT', '/data/copies/dst', { headers: { 'x-amz-copy-source': '/data/src' } });
    expect(copy.status).toBe(200);
    expect(all(copy.text, 'ETag')).toEqual([`&quot;${md5(data)}&quot;`]);
    const got = await gw.send('GET', '/data/copies/dst');
    expect(got.body.equals(data)).toBe(true);
    expect(got.headers).toMatchObject({ 'x-amz-meta-a': '1', 'content-type': 'text/x-src' });
    await gw.send('PUT', '/data/copies/re', {
      headers: {
        'x-amz-copy-source': 'data/src',
        'x-amz-metadata-directive': 'REPLACE',
        'x-amz-meta-b': '2',
      },
    });
    const replaced = await gw.send('HEAD', '/data/copies/re');
    expect([replaced.headers['x-amz-meta-a'], replaced.headers['x-amz-meta-b']]).toEqual([undefined, '2']);
    const self = await gw.send('PUT', '/data/src', { headers: { 'x-amz-copy-source': '/data/src' } });
    expect([self.status, self.code]).toEqual([400, 'InvalidRequest']);
    await gw.send('PUT', '/data/src', {
      headers: {
        'x-amz-copy-source': '/data/src',
        'x-amz-metadata-directive': 'REPLACE',
        'content-type': 'text/x-new',
      },
    });
    expect((await gw.send('HEAD', '/data/src')).headers).toMatchObject({
      'content-type': 'text/x-new',
      etag: `"${md5(data)}"`,
    });
    const gone = await gw.send('PUT', '/data/copies/x', { headers: { 'x-amz-copy-source': '/data/none' } });
    expect([gone.status, gone.code]).toEqual([404, 'NoSuchKey']);
  });

  it('files written without the gateway are objects too, with an ETag that is not an MD5', async () => {
    await gw.client.mkdir('/data/native');
    await gw.client.writeFile('/data/native/file.bin', seededBytes(5000, SEED + 3));
    const got = await gw.send('GET', '/data/native/file.bin');
    expect(got.body.equals(seededBytes(5000, SEED + 3))).toBe(true);
    expect(got.headers.etag).toMatch(/^"stripefs-[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"$/);
    // An object changed through another front door stops claiming its old MD5.
    await gw.send('PUT', '/data/native/put', { body: 'abc' });
    const handle = await gw.client.open('/data/native/put', 'a');
    await handle.write(Buffer.from('def'));
    await handle.close();
    expect((await gw.send('HEAD', '/data/native/put')).headers.etag).not.toBe(`"${md5('abc')}"`);
  });

  it('refusals: bad signatures, unknown keys, anonymous requests, bad digests leave stored data as it was', async () => {
    await gw.send('PUT', '/data/safe', { body: 'kept' });
    const anonymous = await gw.send('GET', '/data/safe', { sign: false });
    expect([anonymous.status, anonymous.code]).toEqual([403, 'AccessDenied']);
    const forged = await gw.send('GET', '/data/safe', { headers: {}, sign: false });
    expect(forged.status).toBe(403);
    const wrongMd5 = await gw.send('PUT', '/data/safe', {
      body: 'changed',
      headers: { 'content-md5': createHash('md5').update('other').digest('base64') },
    });
    expect([wrongMd5.status, wrongMd5.code]).toEqual([400, 'BadDigest']);
    // Bodies past smallBodyBytesMax are gathered and hashed on the digest thread: checked as well.
    const large = seededBytes(S3_LIMITS.smallBodyBytesMax * 4 + 7, 41);
    const largeWrongMd5 = await gw.send('PUT', '/data/safe', {
      body: large,
      headers: { 'content-md5': createHash('md5').update('other').digest('base64') },
    });
    expect([largeWrongMd5.status, largeWrongMd5.code]).toEqual([400, 'BadDigest']);
    const signedFor = Buffer.from(large);
    signedFor[0] = (signedFor[0] as number) ^ 1;
    const { headers: signedHeaders } = signRequest({
      method: 'PUT',
      url: '/data/safe',
      host: 'localhost',
      body: signedFor,
      accessKeyId: ACCESS_KEY,
      secretKey: SECRET_KEY,
    });
    const mismatch = await gw.app.inject({
      method: 'PUT',
      url: '/data/safe',
      headers: signedHeaders,
      payload: large,
    });
    expect([mismatch.statusCode, /<Code>([^<]*)</.exec(mismatch.body)?.[1]]).toEqual([
      400,
      'XAmzContentSHA256Mismatch',
    ]);
    expect((await gw.send('GET', '/data/safe')).text).toBe('kept');
    // Nothing is left in the staging folder by the refused PUT.
    expect((await gw.client.listPage(`${gw.scratch}/tmp`)).entries).toEqual([]);
    const unsupported = await gw.send('GET', '/data?acl');
    expect([unsupported.status, unsupported.code]).toEqual([501, 'NotImplemented']);
    // Object tags: none are stored, so an object's tag set is empty and a write naming tags is refused.
    const tags = await gw.send('GET', '/data/safe?tagging');
    expect([tags.status, all(tags.text, 'TagSet'), all(tags.text, 'Tag')]).toEqual([200, [''], []]);
    const noKey = await gw.send('GET', '/data/no-such-key?tagging');
    expect([noKey.status, noKey.code]).toEqual([404, 'NoSuchKey']);
    const tagged = await gw.send('PUT', '/data/tagged', {
      body: 'x',
      headers: { 'x-amz-tagging': 'team=ml' },
    });
    expect([tagged.status, tagged.code]).toEqual([501, 'NotImplemented']);
    expect((await gw.send('GET', '/data/tagged')).status).toBe(404);
    const putTags = await gw.send('PUT', '/data/safe?tagging', {
      body: '<Tagging><TagSet><Tag><Key>a</Key><Value>b</Value></Tag></TagSet></Tagging>',
    });
    expect([putTags.status, putTags.code]).toEqual([501, 'NotImplemented']);
  });
});

describe('S3 gateway: bodies of any content type', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway();
    await gw.send('PUT', '/types');
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('an empty, missing or malformed Content-Type is stored as given, never refused by the HTTP layer', async () => {
    for (const [name, type] of [
      ['empty', ''],
      ['odd', 'not a media type'],
      ['json', 'application/json'],
    ] as const) {
      const put = await gw.send('PUT', `/types/${name}`, {
        body: '{"a":1}',
        headers: { 'content-type': type },
      });
      expect(put.status, name).toBe(200);
      expect((await gw.send('GET', `/types/${name}`)).text).toBe('{"a":1}');
    }
    expect((await gw.send('HEAD', '/types/json')).headers['content-type']).toBe('application/json');
    expect((await gw.send('HEAD', '/types/empty')).headers['content-type']).toBe('binary/octet-stream');
  });
});

describe('S3 gateway: large GETs from reused buffers', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway();
    await gw.send('PUT', '/big');
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it('a large object and a large range round-trip; a client that leaves mid-GET does not stop the next', async () => {
    const data = seededBytes(21 * MiB + 17, SEED + 90);
    const put = await gw.send('PUT', '/big/object', { body: data });
    expect(put.status).toBe(200);
    // Over S3_LIMITS.getPumpBytesMin (8 MiB): written from the gateway's reused 4 MiB buffers.
    const whole = await gw.send('GET', '/big/object');
    expect([whole.status, whole.headers['content-length'], whole.headers.etag]).toEqual([
      200,
      String(data.length),
      `"${md5(data)}"`,
    ]);
    expect(whole.headers['x-amz-request-id']).toMatch(/^[0-9A-F]{16}$/);
    expect(whole.body.equals(data)).toBe(true);
    const range = await gw.send('GET', '/big/object', { headers: { range: `bytes=${MiB + 5}-${11 * MiB}` } });
    expect([range.status, range.headers['content-range']]).toEqual([
      206,
      `bytes ${MiB + 5}-${11 * MiB}/${data.length}`,
    ]);
    expect(range.body.equals(data.subarray(MiB + 5, 11 * MiB + 1))).toBe(true);
    // Over a real socket: a client that reads a little and leaves, then one that reads it all.
    await gw.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (gw.app.server.address() as AddressInfo).port;
    const get = (leaveAfterBytes: number) => {
      const { headers } = signRequest({
        method: 'GET',
        url: '/big/object',
        host: `127.0.0.1:${port}`,
        accessKeyId: ACCESS_KEY,
        secretKey: SECRET_KEY,
        unsigned: true,
      });
      return new Promise<Buffer>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/big/object', headers }, (res) => {
          const pieces: Buffer[] = [];
          let bytes = 0;
          res.on('data', (piece: Buffer) => {
            pieces.push(piece);
            bytes += piece.length;
            if (bytes >= leaveAfterBytes) req.destroy();
          });
          res.on('end', () => resolve(Buffer.concat(pieces)));
          res.on('error', () => resolve(Buffer.concat(pieces)));
        });
        req.on('error', (err) => (leaveAfterBytes < data.length ? resolve(Buffer.alloc(0)) : reject(err)));
        req.end();
      });
    };
    await get(MiB);
    expect((await get(Number.POSITIVE_INFINITY)).equals(data)).toBe(true);
  });
});
