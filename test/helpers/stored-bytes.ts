// Where an OSS keeps an object's bytes on its disk, asked through its admin
// API (GET /api/osts/:id/objects/:objectId/location): a file of its own, or a
// record in a segment of its small-object log (oss.smallObjectBytes). Fault
// tests damage the bytes there, as bit rot on the disk would, whichever way
// the OST keeps them.
import { open } from 'node:fs/promises';
import { adminFetch } from './admin-http.js';

export interface StoredLocation {
  /** The file holding the object's bytes. */
  path: string;
  /** Where its first byte is in that file. */
  offset: number;
}

/** Where OST `ostId` of the OSS at `adminUrl` keeps the object; undefined when it does not hold it. */
export async function storedLocation(
  adminUrl: string,
  ostId: number,
  objectId: string,
): Promise<StoredLocation | undefined> {
  const res = await adminFetch(
    `${adminUrl}/api/osts/${ostId}/objects/${encodeURIComponent(objectId)}/location`,
  );
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`location of ${objectId} on OST ${ostId}: ${res.status} ${await res.text()}`);
  const { path, offset } = (await res.json()) as StoredLocation;
  return { path, offset };
}

/** XORs `count` of the object's stored bytes from its byte `at` with `mask` (those past its end are left alone). */
export async function damageStoredBytes(
  adminUrl: string,
  ostId: number,
  objectId: string,
  at: number,
  { count = 1, mask = 0x01 }: { count?: number; mask?: number } = {},
): Promise<void> {
  const where = await storedLocation(adminUrl, ostId, objectId);
  if (!where) throw new Error(`${objectId} is not on OST ${ostId}`);
  const fh = await open(where.path, 'r+');
  try {
    const bytes = Buffer.alloc(count);
    const { bytesRead } = await fh.read(bytes, 0, count, where.offset + at);
    for (let i = 0; i < bytesRead; i++) bytes[i] = bytes[i]! ^ mask;
    await fh.write(bytes, 0, bytesRead, where.offset + at);
  } finally {
    await fh.close();
  }
}
