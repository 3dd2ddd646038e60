// A copy made by recovery or repair takes its source's version. The version
// counts the writes applied to a copy; copying in slices would otherwise give
// the copy a count of its own, and deep scrub (oss/scrub/) could no longer
// tell the newest copy by its version: a stale copy left by a backfill that
// raced a client write must look older than the copies that got the write.
import { decodeMeta, encodeMeta, keys } from '../index-keys.js';
import type { Ost } from '../ost.js';

/**
 * Sets the object's version to `sourceVersion` when it is still the one the
 * copy's last write produced (`writtenVersion`); a client write that landed
 * since then keeps its own, higher count. Returns whether it was set.
 */
export async function keepVersion(
  ost: Ost,
  objectId: string,
  writtenVersion: number,
  sourceVersion: number,
): Promise<boolean> {
  if (!Number.isSafeInteger(sourceVersion) || sourceVersion < 1) return false;
  const release = await ost.locks.acquire(objectId, true);
  try {
    const raw = await ost.db.get(keys.meta(objectId));
    if (raw === undefined) return false;
    const meta = decodeMeta(raw.toString('utf8'));
    if (meta.version !== writtenVersion || meta.version === sourceVersion) return false;
    await ost.indexCache.rewriting(objectId, () =>
      ost.db.put(keys.meta(objectId), Buffer.from(encodeMeta({ ...meta, version: sourceVersion }))),
    );
    return true;
  } finally {
    release();
  }
}
