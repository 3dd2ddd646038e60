// Which operation a request is: S3 names operations by method, whether a
// bucket and key are given, and query subresources (?uploads, ?delete ...);
// and what it does to the paths it names, for the S3 client's address check
// (s3/actors.ts). Whether the identity may do it at all is the MDS's answer.
import type { Access as CapAccess } from '../common/auth/caps.js';
import { checkAddress } from './actors.js';
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
import { copyObject, parseCopySource } from './ops/copy-object.js';
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

/** What an operation does to the bucket or key it names. */
export type Access = 'read' | 'write' | 'list' | 'admin';

const CAP_ACCESS: Record<Access, CapAccess> = { read: 'r', write: 'w', list: 'lookup', admin: 'w' };

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

/** The paths a request names, each with what the operation does to it. */
function targetsOf(request: S3Request, access: Access): [string, CapAccess][] {
  if (request.bucket === undefined) return [];
  const path = request.key === undefined ? `/${request.bucket}` : `/${request.bucket}/${request.key}`;
  const targets: [string, CapAccess][] = [[path, CAP_ACCESS[access]]];
  const source = request.headers['x-amz-copy-source'];
  if (typeof source === 'string') {
    const { bucket, key } = parseCopySource(source);
    targets.push([`/${bucket}/${key}`, 'r']);
  }
  return targets;
}

export async function route(gateway: Gateway, request: S3Request, address?: string): Promise<S3Reply> {
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
  checkAddress(gateway.actor, await gateway.actor.rules(), address, targetsOf(request, access));
  return operation(gateway, request);
}
