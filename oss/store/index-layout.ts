// The one module that knows the layout of an OST's index database
// (classic-level): its keys and how records are encoded. Only ost-index.ts
// uses it. Changing it is a format change: test/oss/disk-fixtures.test.ts
// opens folders written by earlier code, which must keep opening.
//   o/<objectId>                      -> ObjectMeta (JSON); a small object kept in the OST's
//                                        segment log (segment-log.ts) also has `log`:
//                                        [segment, offset, bytes] of its record there
//   c/<objectId>/<group, 8 hex>       -> crc32c of blocks group*CRC_GROUP_BLOCKS.. (u32 LE each)
//   t/<objectId>/<group, 8 hex>       -> the stamp of the write each of those blocks holds (f64 LE
//                                        each, 0: none; absent for blocks written before stamps)
//   p/<pool, 8 hex>/<pg, 8 hex>/<id>  -> '' (ListObjects by placement group)
//   s/flush                           -> a counter written with sync: true to fsync the log
//   s/log                             -> [segment, offset] (JSON): where the segment log's next
//                                        round after the last one this index holds starts
//                                        (the replay at open begins there, log-round.ts)
//   u/<objectId>                      -> '' (an fsync of the object failed: its flushes fail
//                                        until it is written whole again or deleted)
// Object ids hold no '/', so a prefix ending in '/' never matches a longer id.

import type { ObjectMeta } from './object-store.js';

/** Blocks whose crcs share one index record (64 MiB of data at 64 KiB blocks: a 4 KiB record). */
export const CRC_GROUP_BLOCKS = 1024;

const hex8 = (n: number): string => (n >>> 0).toString(16).padStart(8, '0');

export const keys = {
  meta: (objectId: string): string => `o/${objectId}`,
  metaPrefix: 'o/',
  crcGroup: (objectId: string, group: number): string => `c/${objectId}/${hex8(group)}`,
  crcPrefix: (objectId: string): string => `c/${objectId}/`,
  stampGroup: (objectId: string, group: number): string => `t/${objectId}/${hex8(group)}`,
  stampPrefix: (objectId: string): string => `t/${objectId}/`,
  pgEntry: (poolId: number, pg: number, objectId: string): string =>
    `p/${hex8(poolId)}/${hex8(pg)}/${objectId}`,
  pgPrefix: (poolId: number, pg: number): string => `p/${hex8(poolId)}/${hex8(pg)}/`,
  flushMarker: 's/flush',
  logPosition: 's/log',
  unsynced: (objectId: string): string => `u/${objectId}`,
  unsyncedPrefix: 'u/',
} as const;

/** Upper bound for a prefix range scan. */
export function prefixEnd(prefix: string): string {
  return `${prefix}\xff`;
}

/** Where a small object's bytes are: a record of `bytes` (whole alignment units) at `offset` of segment `segment`. */
export type LogLocation = readonly [segment: number, offset: number, bytes: number];

/** A place in the segment log: a segment and a byte offset in it. */
export type LogPosition = readonly [segment: number, offset: number];

export function encodeLogPosition(position: LogPosition): Buffer {
  return Buffer.from(JSON.stringify(position));
}

export function decodeLogPosition(raw: Uint8Array): LogPosition {
  const value = JSON.parse(Buffer.from(raw).toString('utf8')) as unknown;
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !value.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)
  )
    throw new Error(`corrupt log position ${JSON.stringify(value)}`);
  return [value[0] as number, value[1] as number];
}

/** An object's meta record as the store keeps it: ObjectMeta, and where its bytes are when not in a file of its own. */
export interface StoredMeta extends ObjectMeta {
  log?: LogLocation;
}

export function encodeMeta(meta: StoredMeta): string {
  return JSON.stringify(meta);
}

export function decodeMeta(text: string): StoredMeta {
  const raw = JSON.parse(text) as StoredMeta;
  if (!Number.isSafeInteger(raw.size) || raw.size < 0 || !Number.isSafeInteger(raw.version)) {
    throw new Error(`corrupt object meta ${text}`);
  }
  if (raw.log !== undefined && !validLocation(raw.log)) throw new Error(`corrupt object meta ${text}`);
  return raw;
}

function validLocation(log: unknown): boolean {
  return (
    Array.isArray(log) && log.length === 3 && log.every((n) => Number.isSafeInteger(n) && (n as number) >= 0)
  );
}

/** What callers outside the store see of a meta record (no location). */
export function publicMeta(stored: StoredMeta): ObjectMeta {
  if (stored.log === undefined) return stored;
  const { log: _, ...meta } = stored;
  return meta;
}

export function encodeCrcs(crcs: Uint32Array): Buffer {
  const buf = Buffer.allocUnsafe(crcs.length * 4);
  for (let i = 0; i < crcs.length; i++) buf.writeUInt32LE(crcs[i]!, i * 4);
  return buf;
}

export function decodeCrcs(buf: Uint8Array): Uint32Array {
  const view = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const out = new Uint32Array(view.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.readUInt32LE(i * 4);
  return out;
}

export function encodeStamps(stamps: Float64Array): Buffer {
  const buf = Buffer.allocUnsafe(stamps.length * 8);
  for (let i = 0; i < stamps.length; i++) buf.writeDoubleLE(stamps[i]!, i * 8);
  return buf;
}

export function decodeStamps(buf: Uint8Array): Float64Array {
  const view = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  const out = new Float64Array(Math.floor(view.length / 8));
  for (let i = 0; i < out.length; i++) out[i] = view.readDoubleLE(i * 8);
  return out;
}
