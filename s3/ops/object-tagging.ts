// Object tags: the gateway stores none. GetObjectTagging answers an existing
// object's (empty) tag set, as awscli and boto3 ask for it before copying an
// object in parts; a request that would set tags (PutObjectTagging, or the
// x-amz-tagging header on a write) is refused with NotImplemented rather
// than stored without them.
import { StripeError } from '../../common/errors.js';
import { s3Error } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { keyPath } from '../keys.js';
import { type S3Reply, xmlReply } from '../reply.js';
import type { S3Request } from '../request.js';
import { notFound } from './get-object.js';

export async function getObjectTagging(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  const { path, isDirectory } = keyPath(request.bucket as string, request.key as string);
  const stat = await gateway.client.stat(path).catch((err: unknown) => notFound(gateway, request, err));
  if (isDirectory ? !stat.isDirectory() : !stat.isFile())
    return notFound(gateway, request, new StripeError('NS_NOT_FOUND', path));
  return xmlReply('Tagging', { TagSet: { Tag: [] } });
}

/** NotImplemented for a write that names tags (x-amz-tagging): they would not be kept. */
export function refuseTags(request: S3Request): void {
  const tagging = request.headers['x-amz-tagging'];
  if (tagging !== undefined && String(tagging) !== '')
    throw s3Error('NotImplemented', 'object tags are not offered by the stripefs gateway (x-amz-tagging)');
}
