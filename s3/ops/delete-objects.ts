// DeleteObjects: up to 1,000 keys from one XML request (its Content-MD5 or
// checksum is verified like any body), removed with bounded concurrency,
// each answered on its own.
import { Semaphore } from '../../common/semaphore.js';
import { s3Error, wireOf } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { S3_LIMITS } from '../limits.js';
import { type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { childrenNamed, childText, parseXml, type XmlNode } from '../xml.js';
import { requireBucket } from './buckets.js';
import { removeKey } from './delete-object.js';
import { readBody } from './read-body.js';

export async function deleteObjects(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  const document = parseXml(await readBody(request));
  if (document.name !== 'Delete') throw s3Error('MalformedXML', 'expected a <Delete> document');
  const quiet = childText(document, 'Quiet') === 'true';
  const keys = childrenNamed(document, 'Object').map((o) => {
    const key = o.children.find((c) => c.name === 'Key')?.text;
    if (key === undefined) throw s3Error('MalformedXML', 'an <Object> without a <Key>');
    return key;
  });
  if (keys.length > S3_LIMITS.deleteKeysMax)
    throw s3Error('MalformedXML', `at most ${S3_LIMITS.deleteKeysMax} keys per request`);
  await requireBucket(gateway, bucket);
  const slots = new Semaphore(S3_LIMITS.deleteConcurrency);
  const results = await Promise.all(
    keys.map((key) =>
      slots.run(async () => {
        try {
          await removeKey(gateway, bucket, key);
          return { key };
        } catch (err) {
          const wire = wireOf(err, 'object');
          return { key, error: { Key: key, Code: wire.s3Code, Message: (err as Error).message } };
        }
      }),
    ),
  );
  const body: XmlNode = {
    Deleted: quiet ? [] : results.filter((r) => !r.error).map((r) => ({ Key: r.key })),
    Error: results.flatMap((r) => (r.error ? [r.error] : [])),
  };
  return xmlReply('DeleteResult', body);
}
