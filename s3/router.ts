// Which operation a request is: S3 names operations by method, whether a
// bucket and key are given, and query subresources (?uploads, ?delete ...).
import type { Access } from './credentials.js';
import { s3Error } from './errors.js';
import type { Gateway } from './gateway.js';
import { checkBucketName } from './keys.js';
import {
  bucketLocation,
  bucketVersioning,
  getBucketTagging,
  putBucketTagging,
} from './ops/bucket-settings.js';
import { createBucket, deleteBucket, headBucket, listBuckets } from './ops/buckets.js';
import { copyObject } from './ops/copy-object.js';
import { deleteObject } from './ops/delete-object.js';
import { deleteObjects } from './ops/delete-objects.js';
import { getObject } from './ops/get-object.js';
import { listObjects } from './ops/list-objects.js';
import { abortUpload, completeUpload, createUpload } from './ops/multipart.js';
import { listParts, listUploads } from './ops/multipart-lists.js';
import { getObjectTagging, refuseTags } from './ops/object-tagging.js';
import { putObject } from './ops/put-object.js';
import { uploadPart } from './ops/upload-part.js';
import { uploadPartCopy } from './ops/upload-part-copy.js';
import type { S3Reply } from './reply.js';
import type { S3Request } from './request.js';

export type Operation = (gateway: Gateway, request: S3Request) => Promise<S3Reply>;

/** Bucket subresources the gateway does not offer: asked for, they answer NotImplemented. */
const UNSUPPORTED = [
  'acl',
  'policy',
  'cors',
  'lifecycle',
  'website',
  'encryption',
  'replication',
  'logging',
  'notification',
  'object-lock',
  'retention',
  'legal-hold',
  'torrent',
  'restore',
  'select',
  'analytics',
  'metrics',
  'inventory',
  'intelligent-tiering',
  'ownershipControls',
  'publicAccessBlock',
  'accelerate',
  'requestPayment',
  'attributes',
];

function bucketOperation(request: S3Request): [Operation, Access] {
  const q = request.query;
  switch (request.method) {
    case 'GET':
      if (q.has('location')) return [bucketLocation, 'list'];
      if (q.has('versioning')) return [bucketVersioning, 'list'];
      if (q.has('tagging')) return [getBucketTagging, 'list'];
      if (q.has('uploads')) return [listUploads, 'list'];
      if (q.has('versions')) break;
      return [listObjects, 'list'];
    case 'HEAD':
      return [headBucket, 'list'];
    case 'PUT':
      if (q.has('tagging')) return [putBucketTagging, 'admin'];
      if (q.has('versioning')) break;
      return [createBucket, 'admin'];
    case 'DELETE':
      if (q.has('tagging')) break;
      return [deleteBucket, 'admin'];
    case 'POST':
      if (q.has('delete')) return [deleteObjects, 'write'];
      break;
  }
  throw s3Error(
    'NotImplemented',
    `${request.method} on a bucket with ${[...q.keys()].join('&') || 'no query'} is not offered`,
  );
}

function objectOperation(request: S3Request): [Operation, Access] {
  const q = request.query;
  const copySource = request.headers['x-amz-copy-source'];
  switch (request.method) {
    case 'GET':
      if (q.has('uploadId')) return [listParts, 'read'];
      if (q.has('tagging')) return [getObjectTagging, 'read'];
      return [getObject, 'read'];
    case 'HEAD':
      return [getObject, 'read'];
    case 'PUT':
      if (q.has('tagging')) break;
      if (q.has('partNumber') && q.has('uploadId')) {
        return [copySource === undefined ? uploadPart : uploadPartCopy, 'write'];
      }
      refuseTags(request);
      return [copySource === undefined ? putObject : copyObject, 'write'];
    case 'DELETE':
      if (q.has('uploadId')) return [abortUpload, 'write'];
      if (q.has('tagging')) break;
      return [deleteObject, 'write'];
    case 'POST':
      if (q.has('uploads')) {
        refuseTags(request);
        return [createUpload, 'write'];
      }
      if (q.has('uploadId')) return [completeUpload, 'write'];
      break;
  }
  throw s3Error(
    'NotImplemented',
    `${request.method} on an object with ${[...q.keys()].join('&') || 'no query'} is not offered`,
  );
}

export async function route(gateway: Gateway, request: S3Request): Promise<S3Reply> {
  let operation: Operation;
  let access: Access;
  if (request.bucket === undefined) {
    if (request.method !== 'GET')
      throw s3Error('MethodNotAllowed', `${request.method} / is not an S3 operation`);
    [operation, access] = [listBuckets, 'list'];
  } else {
    const asked = UNSUPPORTED.find((name) => request.query.has(name));
    if (asked)
      throw s3Error('NotImplemented', `the ${asked} subresource is not offered by the stripefs gateway`);
    if (!(request.method === 'PUT' && request.key === undefined)) checkBucketName(request.bucket);
    [operation, access] = request.key === undefined ? bucketOperation(request) : objectOperation(request);
  }
  const allowed = await gateway.credentials.authorize(
    request.auth.identity,
    access,
    request.bucket,
    request.key,
  );
  if (!allowed)
    throw s3Error('AccessDenied', `${request.auth.identity.name} may not ${access} ${request.resource}`);
  return operation(gateway, request);
}
