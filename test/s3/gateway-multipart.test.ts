// Multipart uploads, layouts, streaming bodies and disconnects, against a
// real cluster. Parts of one size land in their place in the object being
// assembled (the completed object is that very file, renamed: its inode is the
// upload's data file's); parts of other sizes are copied at completion.
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { uploadDir } from '../../s3/store/uploads.js';
import { seededBytes } from '../helpers/clients.js';
import { all, type Gateway, MiB, mdsCallsByOp, since, startGateway } from './harness.js';
import { signRequest } from './sign.js';

const SEED = seedFromEnv();
console.log(`s3 gateway multipart seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const md5 = (b: Buffer | string) => createHash('md5').update(b).digest('hex');
const multipartEtag = (parts: Buffer[]) =>
  `"${createHash('md5')
    .update(Buffer.concat(parts.map((p) => createHash('md5').update(p).digest())))
    .digest('hex')}-${parts.length}"`;

describe('S3 gateway: multipart uploads and streaming', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway({ partBytesMin: MiB });
    await gw.send('PUT', '/mpu');
    await gw.send('PUT', '/ecb');
    // The bucket tag sets the layout of what is written into the bucket from now on.
    const tagging =
      '<Tagging><TagSet><Tag><Key>stripefs:layout</Key><Value>ec:4+2:host:64K</Value></Tag><Tag><Key>team</Key><Value>ml</Value></Tag></TagSet></Tagging>';
    expect((await gw.send('PUT', '/ecb?tagging', { body: tagging })).status).toBe(204);
  });
  afterAll(async () => {
    await gw?.stop();
  });

  async function create(bucket: string, key: string, headers: Record<string, string> = {}): Promise<string> {
    const created = await gw.send('POST', `/${bucket}/${key}?uploads`, { headers });
    expect(created.status).toBe(200);
    return all(created.text, 'UploadId')[0] as string;
  }

  async function uploadParts(
    bucket: string,
    key: string,
    uploadId: string,
    parts: Buffer[],
  ): Promise<string[]> {
    // In parallel, last part first: parts land in place whatever their order.
    const answers = await Promise.all(
      parts
        .map((_, i) => i)
        .reverse()
        .map((i) =>
          gw.send('PUT', `/${bucket}/${key}?partNumber=${i + 1}&uploadId=${uploadId}`, {
            body: parts[i] as Buffer,
          }),
        ),
    );
    for (const a of answers) expect(a.status).toBe(200);
    return answers.reverse().map((a) => a.headers.etag as string);
  }

  function completion(etags: string[], numbers = etags.map((_, i) => i + 1)): string {
    return `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${numbers[i]}</PartNumber><ETag>${e}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
  }

  for (const [bucket, name] of [
    ['mpu', 'raid0'],
    ['ecb', 'ec:4+2'],
  ] as const) {
    it(`${name}: parts of one size go straight to their place; completing is a rename (the same inode), ETag md5-of-md5s-N`, async () => {
      const parts = [
        seededBytes(MiB, SEED + 1),
        seededBytes(MiB, SEED + 2),
        seededBytes(MiB, SEED + 3),
        seededBytes(300_001, SEED + 4),
      ];
      const uploadId = await create(bucket, 'big/model.bin', {
        'x-amz-meta-step': '1000',
        'content-type': 'application/x-weights',
      });
      const dataInode = (await gw.client.stat(`${gw.scratch}/uploads/${bucket}/${uploadId}/data`)).inode;
      const etags = await uploadParts(bucket, 'big/model.bin', uploadId, parts);
      expect(etags).toEqual(parts.map((p) => `"${md5(p)}"`));
      // The parts in their slots committed no size (one MDS call fewer each): Complete grows data once.
      expect((await gw.client.stat(`${gw.scratch}/uploads/${bucket}/${uploadId}/data`)).size).toBe(0);
      const listed = await gw.send('GET', `/${bucket}/big/model.bin?uploadId=${uploadId}`);
      expect(all(listed.text, 'PartNumber')).toEqual(['1', '2', '3', '4']);
      expect(all(listed.text, 'Size')).toEqual(parts.map((p) => String(p.length)));
      const uploads = await gw.send('GET', `/${bucket}?uploads`);
      expect(all(uploads.text, 'UploadId')).toContain(uploadId);
      const done = await gw.send('POST', `/${bucket}/big/model.bin?uploadId=${uploadId}`, {
        body: completion(etags),
      });
      expect(done.status).toBe(200);
      expect(all(done.text, 'ETag')).toEqual([multipartEtag(parts).replace(/"/g, '&quot;')]);
      const stat = await gw.client.stat(`/${bucket}/big/model.bin`);
      expect(stat.inode, 'the assembled data file was published, not copied').toBe(dataInode);
      expect(stat.layout?.pattern).toBe(name === 'raid0' ? 'raid0' : 'ec');
      const got = await gw.send('GET', `/${bucket}/big/model.bin`);
      expect(got.body.equals(Buffer.concat(parts))).toBe(true);
      expect(got.headers).toMatchObject({
        etag: multipartEtag(parts),
        'x-amz-meta-step': '1000',
        'content-type': 'application/x-weights',
      });
      // The upload is gone: its directory, and its id.
      await expect(gw.client.stat(`${gw.scratch}/uploads/${bucket}/${uploadId}`)).rejects.toMatchObject({
        code: 'NS_NOT_FOUND',
      });
      const again = await gw.send('GET', `/${bucket}/big/model.bin?uploadId=${uploadId}`);
      expect([again.status, again.code]).toEqual([404, 'NoSuchUpload']);
    });
  }

  it('the parts of an upload sent together claim its slot size once: one SetXattr, at most one GetXattr', async () => {
    const parts = [1, 2, 3, 4, 5, 6].map((i) => seededBytes(MiB, SEED + 40 + i));
    const uploadId = await create('mpu', 'claimed');
    const before = await mdsCallsByOp(gw.cluster.mdsAdminUrl);
    const etags = await uploadParts('mpu', 'claimed', uploadId, parts);
    const used = since(before, await mdsCallsByOp(gw.cluster.mdsAdminUrl));
    // Each part making its own claim was six SetXattrs, and the five that lost read the winner's.
    expect([used.setXattr, used.getXattr ?? 0]).toEqual([1, 1]);
    const done = await gw.send('POST', `/mpu/claimed?uploadId=${uploadId}`, { body: completion(etags) });
    expect(done.status).toBe(200);
    expect((await gw.send('GET', '/mpu/claimed')).body.equals(Buffer.concat(parts))).toBe(true);
  });

  it('parts in their slots completed with a gap are copied out of the data file, grown to the furthest part first', async () => {
    const parts = [seededBytes(MiB, SEED + 11), seededBytes(MiB, SEED + 12), seededBytes(MiB, SEED + 13)];
    const uploadId = await create('mpu', 'gapped');
    const etags = await uploadParts('mpu', 'gapped', uploadId, parts);
    const done = await gw.send('POST', `/mpu/gapped?uploadId=${uploadId}`, {
      body: completion([etags[0] as string, etags[2] as string], [1, 3]),
    });
    expect(done.status).toBe(200);
    const got = await gw.send('GET', '/mpu/gapped');
    expect(got.body.equals(Buffer.concat([parts[0] as Buffer, parts[2] as Buffer]))).toBe(true);
  });

  it('parts of different sizes, a part uploaded twice and gaps in the numbers are copied in order at completion', async () => {
    const parts = [
      seededBytes(MiB + 5, SEED + 5),
      seededBytes(2 * MiB, SEED + 6),
      seededBytes(1000, SEED + 7),
    ];
    const uploadId = await create('mpu', 'mixed');
    await gw.send('PUT', `/mpu/mixed?partNumber=2&uploadId=${uploadId}`, {
      body: seededBytes(MiB, SEED + 99),
    }); // replaced below
    const etags: string[] = [];
    for (const [i, n] of [1, 2, 7].entries()) {
      const answer = await gw.send('PUT', `/mpu/mixed?partNumber=${n}&uploadId=${uploadId}`, {
        body: parts[i] as Buffer,
      });
      etags.push(answer.headers.etag as string);
    }
    // Part 2, uploaded again through this gateway, has one record left: the older one went.
    const records = await gw.client.listPage(uploadDir(gw.scratch, 'mpu', uploadId), {
      after: 'p.',
      limit: 100,
    });
    expect(records.entries.filter((e) => e.name.startsWith('p.')).map((e) => e.name.slice(0, 8))).toEqual([
      'p.00001.',
      'p.00002.',
      'p.00007.',
    ]);
    const done = await gw.send('POST', `/mpu/mixed?uploadId=${uploadId}`, {
      body: completion(etags, [1, 2, 7]),
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('CompleteMultipartUploadResult');
    const got = await gw.send('GET', '/mpu/mixed');
    expect(got.body.equals(Buffer.concat(parts))).toBe(true);
    expect(got.headers.etag).toBe(multipartEtag(parts));
  });

  it('UploadPartCopy: parts copied from ranges of objects (into their slots when of the slot size), with source conditions and refusals', async () => {
    const source = seededBytes(2 * MiB + 333, SEED + 20);
    const other = seededBytes(70_001, SEED + 21);
    await gw.send('PUT', '/mpu/copy-src/a', { body: source });
    await gw.send('PUT', '/ecb/copy-src/b', { body: other });
    const uploadId = await create('ecb', 'copied/model.bin');
    const dataInode = (await gw.client.stat(`${gw.scratch}/uploads/ecb/${uploadId}/data`)).inode;
    const copyPart = (n: number, from: string, range?: string, headers: Record<string, string> = {}) =>
      gw.send('PUT', `/ecb/copied/model.bin?partNumber=${n}&uploadId=${uploadId}`, {
        headers: {
          'x-amz-copy-source': from,
          ...(range ? { 'x-amz-copy-source-range': range } : {}),
          ...headers,
        },
      });
    // Last part first, as a parallel copy may finish: the MiB parts still go into their slots.
    const answers = [
      await copyPart(3, '/ecb/copy-src/b'),
      await copyPart(2, 'mpu/copy-src/a', `bytes=${MiB}-${2 * MiB - 1}`),
      await copyPart(1, '/mpu/copy-src/a', `bytes=0-${MiB - 1}`),
    ].reverse();
    const parts = [source.subarray(0, MiB), source.subarray(MiB, 2 * MiB), other];
    for (const [i, a] of answers.entries()) {
      expect(a.status).toBe(200);
      expect(all(a.text, 'ETag')).toEqual([`&quot;${md5(parts[i] as Buffer)}&quot;`]);
    }
    const etags = parts.map((p) => `"${md5(p)}"`);
    // Refusals store nothing: a range outside the source, a missing source, a source condition.
    const outside = await copyPart(4, '/mpu/copy-src/a', `bytes=0-${source.length}`);
    expect([outside.status, outside.code]).toEqual([400, 'InvalidArgument']);
    const missing = await copyPart(4, '/mpu/copy-src/none');
    expect([missing.status, missing.code]).toEqual([404, 'NoSuchKey']);
    const stale = await copyPart(4, '/mpu/copy-src/a', undefined, { 'x-amz-copy-source-if-match': '"0"' });
    expect([stale.status, stale.code]).toEqual([412, 'PreconditionFailed']);
    const listed = await gw.send('GET', `/ecb/copied/model.bin?uploadId=${uploadId}`);
    expect(all(listed.text, 'PartNumber')).toEqual(['1', '2', '3']);
    const done = await gw.send('POST', `/ecb/copied/model.bin?uploadId=${uploadId}`, {
      body: completion(etags),
    });
    expect(done.status).toBe(200);
    expect((await gw.client.stat('/ecb/copied/model.bin')).inode, 'parts copied into their slots').toBe(
      dataInode,
    );
    const got = await gw.send('GET', '/ecb/copied/model.bin');
    expect(got.body.equals(Buffer.concat(parts))).toBe(true);
    expect(got.headers.etag).toBe(multipartEtag(parts));
  });

  it('completion refusals: a small part, a wrong ETag, parts out of order; abort forgets the upload', async () => {
    const small = [seededBytes(1000, SEED + 8), seededBytes(1000, SEED + 9)];
    const uploadId = await create('mpu', 'refused');
    const etags = await uploadParts('mpu', 'refused', uploadId, small);
    const tooSmall = await gw.send('POST', `/mpu/refused?uploadId=${uploadId}`, { body: completion(etags) });
    expect([tooSmall.status, tooSmall.code]).toEqual([400, 'EntityTooSmall']);
    const wrongTag = await gw.send('POST', `/mpu/refused?uploadId=${uploadId}`, {
      body: completion(['"00000000000000000000000000000000"']),
    });
    expect([wrongTag.status, wrongTag.code]).toEqual([400, 'InvalidPart']);
    const order = await gw.send('POST', `/mpu/refused?uploadId=${uploadId}`, {
      body: completion([etags[1] as string, etags[0] as string], [2, 1]),
    });
    expect([order.status, order.code]).toEqual([400, 'InvalidPartOrder']);
    expect((await gw.send('GET', '/mpu/refused')).status).toBe(404);
    expect((await gw.send('DELETE', `/mpu/refused?uploadId=${uploadId}`)).status).toBe(204);
    const gone = await gw.send('PUT', `/mpu/refused?partNumber=1&uploadId=${uploadId}`, { body: 'x' });
    expect([gone.status, gone.code]).toEqual([404, 'NoSuchUpload']);
    expect(all((await gw.send('GET', '/mpu?uploads')).text, 'UploadId')).not.toContain(uploadId);
  });

  it('bucket tags: the layout tag is the directory default (stat shows it), other tags are kept', async () => {
    const tags = await gw.send('GET', '/ecb?tagging');
    expect(all(tags.text, 'Key')).toEqual(['stripefs:layout', 'team']);
    expect(all(tags.text, 'Value')[0]).toMatch(/^ec:4\+2:host:64K$/);
    await gw.send('PUT', '/ecb/small', { body: seededBytes(70_000, SEED + 10) });
    expect((await gw.client.stat('/ecb/small')).layout).toMatchObject({
      pattern: 'ec',
      k: 4,
      m: 2,
      stripeSize: 64 * 1024,
    });
    const bad = await gw.send('PUT', '/ecb?tagging', {
      body: '<Tagging><TagSet><Tag><Key>stripefs:layout</Key><Value>ec:9</Value></Tag></TagSet></Tagging>',
    });
    expect([bad.status, bad.code]).toEqual([400, 'InvalidArgument']);
  });

  it('a signed aws-chunked upload round-trips; a chunk altered in flight stores nothing', async () => {
    const data = seededBytes(3 * MiB + 17, SEED + 11);
    const put = await gw.sendChunked('/mpu/chunked.bin', data, 64 * 1024);
    expect([put.status, put.headers.etag]).toEqual([200, `"${md5(data)}"`]);
    expect((await gw.send('GET', '/mpu/chunked.bin')).body.equals(data)).toBe(true);
    const altered = await gw.sendChunked('/mpu/altered.bin', data, 64 * 1024, 2 * MiB);
    expect([altered.status, altered.code]).toEqual([403, 'SignatureDoesNotMatch']);
    expect((await gw.send('GET', '/mpu/altered.bin')).status).toBe(404);
  });

  it('a client that disconnects mid-PUT leaves nothing: no object, no staging file; the old object stays', async () => {
    await gw.send('PUT', '/mpu/interrupted', { body: 'the old bytes' });
    await gw.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (gw.app.server.address() as AddressInfo).port;
    const body = seededBytes(8 * MiB, SEED + 12);
    const signed = signRequest({
      method: 'PUT',
      url: '/mpu/interrupted',
      host: `127.0.0.1:${port}`,
      body,
      accessKeyId: 'AKIDSTRIPEFSTEST',
      secretKey: 'stripefs-test-secret-key',
      unsigned: true,
    });
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path: '/mpu/interrupted',
        headers: { ...signed.headers, 'content-length': String(body.length) },
      });
      req.on('error', () => resolve());
      req.write(body.subarray(0, 3 * MiB), () => setTimeout(() => req.destroy(), 200));
      req.on('close', () => resolve());
    });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const staging = await gw.client.listPage(`${gw.scratch}/tmp`);
      if (staging.entries.length === 0) break;
      if (Date.now() > deadline)
        throw new Error(`staging files left: ${staging.entries.map((e) => e.name).join(', ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await gw.send('GET', '/mpu/interrupted')).text).toBe('the old bytes');
  });
});
