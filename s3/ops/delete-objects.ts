// DeleteObjects: up to 1,000 keys from one XML request (its Content-MD5 or
// checksum is verified like any body), removed with bounded concurrency,
// each answered on its own.
import { Semaphore } from '../../common/semaphore.js';
import { s3Error, wireOf } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { parentOf } from '../keys.js';
import { S3_LIMITS } from '../limits.js';
import { type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { removeEmptyDirs } from '../store/publish.js';
import { childrenNamed, childText, parseXml, type XmlNode } from '../xml.js';
import { requireBucket } from './buckets.js';
import { unlinkKey } from './delete-object.js';
import { isMarker } from './markers.js';
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
  const results = await removeKeys(gateway, bucket, keys);
  const body: XmlNode = {
    Deleted: quiet ? [] : results.filter((r) => !r.error).map((r) => ({ Key: r.key })),
    Error: results.flatMap((r) => (r.error ? [r.error] : [])),
  };
  return xmlReply('DeleteResult', body);
}

interface Outcome {
  key: string;
  error?: { Key: string; Code: string; Message: string };
}

/** How deep a key's path is: folder markers are removed deepest first, after the files. */
function depthOf(key: string): number {
  return key.split('/').length;
}

/**
 * Removes the keys (answers in request order): files first, then folder markers deepest first, so a
 * marker named with the keys under it goes too. After each group, each directory it left empty is
 * removed once (not once per key), up to the first folder marker.
 */
async function removeKeys(gateway: Gateway, bucket: string, keys: string[]): Promise<Outcome[]> {
  const slots = new Semaphore(S3_LIMITS.deleteConcurrency);
  const outcomes = new Map<string, Outcome>();
  const removeGroup = async (group: string[]) => {
    const emptied = new Set<string>();
    await Promise.all(
      group.map((key) =>
        slots.run(async () => {
          try {
            const path = await unlinkKey(gateway, bucket, key);
            if (path !== undefined) emptied.add(parentOf(path));
            outcomes.set(key, { key });
          } catch (err) {
            const wire = wireOf(err, 'object');
            outcomes.set(key, {
              key,
              error: { Key: key, Code: wire.s3Code, Message: (err as Error).message },
            });
          }
        }),
      ),
    );
    await Promise.all(
      [...emptied].map((dir) =>
        slots.run(() => removeEmptyDirs(gateway.client, bucket, dir, (d) => isMarker(gateway, d))),
      ),
    );
  };
  await removeGroup(keys.filter((key) => !key.endsWith('/')));
  const markers = keys.filter((key) => key.endsWith('/'));
  for (const depth of [...new Set(markers.map(depthOf))].sort((a, b) => b - a))
    await removeGroup(markers.filter((key) => depthOf(key) === depth));
  return keys.map((key) => outcomes.get(key) as Outcome);
}
