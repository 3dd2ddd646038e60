// Buckets are the top-level directories (hidden ones, starting with '.', are
// not buckets: /.stripefs-s3 holds the gateway's own state).
import { StripeError } from '../../common/errors.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { bucketPath, checkNewBucketName, UPLOADS_DIR } from '../keys.js';
import { emptyReply, type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { removeTree } from '../store/tree.js';
import { readBody } from './read-body.js';

export const OWNER = { ID: 'stripefs', DisplayName: 'stripefs' };

export async function listBuckets(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const entries = await gateway.client.list('/');
  const buckets = entries
    .filter((e) => e.stat.isDirectory() && !e.name.startsWith('.'))
    .map((e) => ({ Name: e.name, CreationDate: new Date(e.stat.ctimeMs).toISOString() }));
  const visible = [];
  for (const bucket of buckets)
    if (await gateway.credentials.authorize(request.auth.identity, 'list', bucket.Name)) visible.push(bucket);
  return xmlReply('ListAllMyBucketsResult', { Owner: OWNER, Buckets: { Bucket: visible } });
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
  // Uploads never completed die with their bucket (a new bucket of that name starts clean).
  await removeTree(gateway.client, `${UPLOADS_DIR}/${bucket}`);
  return emptyReply(204);
}
