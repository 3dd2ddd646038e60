// Buckets are the top-level directories (hidden ones, starting with '.', are
// not buckets: /.stripefs-s3 holds the gateway's own state).
import type { Stat } from '../../client/index.js';
import { checkCaps } from '../../common/auth/caps.js';
import { StripeError } from '../../common/errors.js';
import { uploadsDirOf } from '../actors.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { bucketPath, checkNewBucketName } from '../keys.js';
import { emptyReply, type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { removeTree } from '../store/tree.js';
import { readBody } from './read-body.js';

export const OWNER = { ID: 'stripefs', DisplayName: 'stripefs' };

/**
 * The top-level directories the acting identity can reach: all of them when it may list `/`,
 * else those its caps lead into (it may look them up, as the folders above its caps).
 */
async function reachableBuckets(gateway: Gateway): Promise<{ name: string; stat: Stat }[]> {
  const rules = await gateway.actor.rules();
  if (!rules || checkCaps(rules.caps, '/', 'r', undefined) === 'ok') return gateway.client.list('/');
  const names = new Set(rules.caps.map((cap) => cap.path.split('/')[1] ?? '').filter((name) => name !== ''));
  const found = await Promise.all(
    [...names].sort().map(async (name) => {
      // Not there (yet), or not a directory: not a bucket. Any other refusal is the MDS's answer.
      const stat = await gateway.client.stat(bucketPath(name)).catch((err: unknown) => {
        if (err instanceof StripeError && err.code.startsWith('NS_')) return undefined;
        throw err;
      });
      return stat ? { name, stat } : undefined;
    }),
  );
  return found.filter((entry) => entry !== undefined);
}

export async function listBuckets(gateway: Gateway, _request: S3Request): Promise<S3Reply> {
  const entries = await reachableBuckets(gateway);
  const buckets = entries
    .filter((e) => e.stat.isDirectory() && !e.name.startsWith('.'))
    .map((e) => ({ Name: e.name, CreationDate: new Date(e.stat.ctimeMs).toISOString() }));
  return xmlReply('ListAllMyBucketsResult', { Owner: OWNER, Buckets: { Bucket: buckets } });
}

export async function createBucket(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  checkNewBucketName(bucket);
  await readBody(request); // CreateBucketConfiguration: the location is this gateway's region
  try {
    await gateway.client.mkdir(bucketPath(bucket));
  } catch (err) {
    if (err instanceof StripeError && err.code === 'NS_EXISTS')
      throw s3Error('BucketAlreadyOwnedByYou', `the bucket ${bucket} exists`, { bucket });
    throw err;
  }
  return emptyReply(200, { location: `/${bucket}` });
}

/** NoSuchBucket unless the bucket is a directory. */
export async function requireBucket(gateway: Gateway, bucket: string): Promise<void> {
  const stat = await gateway.client.stat(bucketPath(bucket)).catch((err: unknown) => {
    if (err instanceof StripeError && (err.code === 'NS_NOT_FOUND' || err.code === 'NS_NOT_DIR'))
      return undefined;
    throw err;
  });
  if (!stat?.isDirectory()) throw s3Error('NoSuchBucket', `no bucket ${JSON.stringify(bucket)}`, { bucket });
}

export async function headBucket(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  await requireBucket(gateway, request.bucket as string);
  return emptyReply(200, { 'x-amz-bucket-region': gateway.region });
}

export async function deleteBucket(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const bucket = request.bucket as string;
  await requireBucket(gateway, bucket);
  try {
    await gateway.client.rmdir(bucketPath(bucket));
  } catch (err) {
    if (err instanceof StripeError && err.code === 'NS_NOT_EMPTY')
      throw s3Error('BucketNotEmpty', `the bucket ${bucket} is not empty`, { bucket });
    throw err;
  }
  // The deleting identity's uploads never completed die with their bucket (a new bucket of that
  // name starts clean); another identity's fail at completion (NoSuchBucket).
  await removeTree(gateway.client, `${uploadsDirOf(gateway.scratch)}/${bucket}`);
  return emptyReply(204);
}
