// Object ids and where their files live. An id is [A-Za-z0-9._-]{1,128}
// without '..', so it can never name a parent folder or hold a separator;
// files are still spread over 256 fan-out folders so no folder grows huge.
import { join, resolve, sep } from 'node:path';
import { crc32c } from '../common/checksum.js';
import { StripeError } from '../common/errors.js';
import { LIMITS } from '../common/limits.js';

const OBJECT_ID_PATTERN = /^[A-Za-z0-9._-]+$/;

export function validateObjectId(objectId: unknown): string {
  if (typeof objectId !== 'string' || objectId.length === 0) {
    throw new StripeError('OBJ_INVALID_ID', 'object id is empty');
  }
  if (objectId.length > LIMITS.objectIdLengthMax) {
    throw new StripeError('OBJ_INVALID_ID', `object id longer than ${LIMITS.objectIdLengthMax} characters`);
  }
  if (!OBJECT_ID_PATTERN.test(objectId) || objectId.includes('..')) {
    throw new StripeError(
      'OBJ_INVALID_ID',
      `object id ${JSON.stringify(objectId.slice(0, 40))} is not [A-Za-z0-9._-] without '..'`,
    );
  }
  return objectId;
}

/** Fan-out folder name (2 hex digits) of an object. */
export function fanoutOf(objectId: string): string {
  return (crc32c(Buffer.from(objectId, 'latin1')) & 0xff).toString(16).padStart(2, '0');
}

/** Absolute path of an object's data file; asserts it stays inside objectsDir. */
export function objectPath(objectsDir: string, objectId: string): string {
  validateObjectId(objectId);
  const root = resolve(objectsDir);
  const path = join(root, fanoutOf(objectId), objectId);
  if (!path.startsWith(root + sep)) throw new Error(`object path escaped its folder: ${path}`);
  return path;
}

export function checkRange(offset: number, length: number): void {
  if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(length) || length < 0) {
    throw new StripeError('OBJ_RANGE', `bad offset ${offset} or length ${length}`);
  }
  if (offset + length > LIMITS.objectBytesMax) {
    throw new StripeError('OBJ_RANGE', `range ends past the object size limit ${LIMITS.objectBytesMax}`);
  }
}
