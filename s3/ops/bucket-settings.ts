// Bucket settings: location, versioning (never enabled), and tags. The tag
// `stripefs:layout` is the bucket directory's default layout (what
// `stripefs setstripe` sets): putting it sets the layout of objects written
// from then on, and GetBucketTagging always shows the layout in force.
// Other tags are kept in the directory's user.s3.bucket attribute.
import type { Layout, StripeClient } from '../../client/index.js';
import { parseLayout } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { bucketPath } from '../keys.js';
import { emptyReply, type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { BUCKET_XATTR } from '../store/meta.js';
import { childrenNamed, childText, parseXml } from '../xml.js';
import { requireBucket } from './buckets.js';
import { readBody } from './read-body.js';

export const LAYOUT_TAG = 'stripefs:layout';
const TAGS_MAX = 50;

export async function bucketLocation(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  await requireBucket(gateway, request.bucket as string);
  // us-east-1 is the empty constraint in S3's answer.
  return xmlReply('LocationConstraint', {}, 200, gateway.region === 'us-east-1' ? '' : gateway.region);
}

export async function bucketVersioning(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  await requireBucket(gateway, request.bucket as string);
  return xmlReply('VersioningConfiguration', {});
}

/** ec:4+2:host, replicated:3:rack, raid0:4, each with its stripe size when not 1 MiB. */
export function layoutText(layout: Layout): string {
  if (layout.pattern === 'dom') return `dom:${layout.domBytes / 1024}K,${layoutText(layout.rest)}`;
  const mib = 1024 * 1024;
  const size =
    layout.stripeSize === mib
      ? ''
      : `:${layout.stripeSize % mib === 0 ? `${layout.stripeSize / mib}M` : `${layout.stripeSize / 1024}K`}`;
  if (layout.pattern === 'ec') return `ec:${layout.k}+${layout.m}:${layout.failureDomain}${size}`;
  if (layout.pattern === 'replicated') return `replicated:${layout.replicas}:${layout.failureDomain}${size}`;
  return `raid0:${layout.stripeCount}${size}`;
}

async function storedTags(client: StripeClient, path: string): Promise<Record<string, string>> {
  try {
    const record = JSON.parse((await client.getXattr(path, BUCKET_XATTR)).toString('utf8')) as {
      tags?: Record<string, string>;
    };
    return record.tags ?? {};
  } catch (err) {
    if (err instanceof StripeError && err.code === 'XATTR_NOT_FOUND') return {};
    if (err instanceof SyntaxError) return {};
    throw err;
  }
}

export async function getBucketTagging(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  await requireBucket(gateway, bucket);
  const path = bucketPath(bucket);
  const [stat, tags] = await Promise.all([gateway.client.stat(path), storedTags(gateway.client, path)]);
  const tagSet = Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
  if (stat.layout) tagSet.unshift({ Key: LAYOUT_TAG, Value: layoutText(stat.layout) });
  return xmlReply('Tagging', { TagSet: { Tag: tagSet } });
}

export async function putBucketTagging(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  await requireBucket(gateway, bucket);
  const document = parseXml(await readBody(request));
  const tagSet = document.children.find((c) => c.name === 'TagSet');
  if (document.name !== 'Tagging' || !tagSet) throw s3Error('MalformedXML', 'expected <Tagging><TagSet>...');
  const tags: Record<string, string> = {};
  for (const tag of childrenNamed(tagSet, 'Tag')) {
    const key = childText(tag, 'Key');
    if (!key) throw s3Error('MalformedXML', 'a Tag without a Key');
    tags[key] = childText(tag, 'Value') ?? '';
  }
  if (Object.keys(tags).length > TAGS_MAX) throw s3Error('InvalidArgument', `at most ${TAGS_MAX} tags`);
  const layoutValue = tags[LAYOUT_TAG];
  delete tags[LAYOUT_TAG];
  const path = bucketPath(bucket);
  if (layoutValue !== undefined) {
    let layout: Layout;
    try {
      layout = parseLayout(layoutValue);
    } catch (err) {
      throw s3Error(
        'InvalidArgument',
        `${LAYOUT_TAG}: ${(err as Error).message} (e.g. ec:4+2:host, replicated:3:rack, raid0:4)`,
      );
    }
    await gateway.client.setLayout(path, layout);
  }
  await gateway.client.setXattr(path, BUCKET_XATTR, JSON.stringify({ tags }));
  return emptyReply(204);
}
