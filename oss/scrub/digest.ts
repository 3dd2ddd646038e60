// DigestObjects on one OST: re-read each named object through the verified
// read path (every 64 KiB block against its stored crc32c) in slices, and
// answer its size, version and the crc32c of its whole content. An object
// written meanwhile (its version moved) is read again, a few times at most.
import { crc32cCombine } from '../../common/bulk/crc-combine.js';
import { StripeError } from '../../common/errors.js';
import { validateObjectId } from '../object-id.js';
import type { OssCore, OstHandle } from '../ops.js';
import { SCRUB_SLICE_BYTES } from '../recovery/limits.js';
import { TokenBucket } from '../recovery/token-bucket.js';
import { DIGEST_ATTEMPTS_MAX, DIGEST_OBJECTS_MAX } from './limits.js';

export interface Digest {
  objectId: string;
  found: boolean;
  size: number;
  version: number;
  crc32c: number;
  errorCode: string;
}

export interface DigestRequest {
  ostId: number;
  objectIds: readonly string[];
  bytesPerSec: number;
}

async function readCrc(h: OstHandle, objectId: string, size: number, bucket: TokenBucket): Promise<number> {
  let crc = 0;
  let done = 0;
  for (let offset = 0; offset < size; offset += SCRUB_SLICE_BYTES) {
    const length = Math.min(SCRUB_SLICE_BYTES, size - offset);
    await bucket.take(length);
    for await (const span of h.ost.readSpans(objectId, offset, length, () => undefined)) {
      for (const piece of span) {
        crc = done === 0 ? piece.crc : crc32cCombine(crc, piece.crc, piece.data.length);
        done += piece.data.length;
      }
      span[span.length - 1]?.release?.();
    }
  }
  if (done !== size) throw new StripeError('OBJ_RANGE', `${objectId}: read ${done} of ${size} bytes`);
  return crc >>> 0;
}

async function digestOne(h: OstHandle, objectId: string, bucket: TokenBucket): Promise<Digest> {
  const absent = { objectId, found: false, size: 0, version: 0, crc32c: 0, errorCode: '' };
  for (let attempt = 1; ; attempt++) {
    const before = await h.ost.stat(objectId);
    if (!before) return absent;
    const base = { objectId, found: true, size: before.size, version: before.version };
    try {
      const crc = await readCrc(h, objectId, before.size, bucket);
      const after = await h.ost.stat(objectId);
      if (!after) return absent;
      if (after.version === before.version && after.size === before.size)
        return { ...base, crc32c: crc, errorCode: '' };
      if (attempt >= DIGEST_ATTEMPTS_MAX) return { ...base, crc32c: 0, errorCode: 'REQ_UNAVAILABLE' }; // written throughout: busy
    } catch (err) {
      const code = err instanceof StripeError ? err.code : 'REQ_INTERNAL';
      if (code === 'OBJ_NOT_FOUND') return absent;
      if (code === 'OBJ_CHECKSUM') return { ...base, crc32c: 0, errorCode: code };
      if (attempt >= DIGEST_ATTEMPTS_MAX) return { ...base, crc32c: 0, errorCode: code };
    }
  }
}

export async function digestObjects(core: OssCore, req: DigestRequest): Promise<Digest[]> {
  if (core.closing) throw new StripeError('REQ_UNAVAILABLE', 'the OSS is shutting down');
  if (req.objectIds.length > DIGEST_OBJECTS_MAX)
    throw new StripeError(
      'REQ_INVALID',
      `DigestObjects names ${req.objectIds.length} objects, at most ${DIGEST_OBJECTS_MAX}`,
    );
  for (const id of req.objectIds) validateObjectId(id);
  const h = core.handle(req.ostId);
  const bucket = new TokenBucket(req.bytesPerSec);
  const out: Digest[] = [];
  for (const id of req.objectIds) out.push(await digestOne(h, id, bucket));
  return out;
}
