// The ObjectStore conformance suite (oss/store/object-store.ts): what every
// OST backend must do, written against the interface only. A backend passes
// a `StoreUnderTest`: how to open a store in a folder (again after close, on
// the same data), and how to flip a stored byte behind its back. Run by
// test/oss/store-conformance.test.ts against the real backend (object files
// and a classic-level index in a real folder), with and without its segment
// log of small objects.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import type { ObjectStore, StoreFaultSites, WritePiece, WriteResult } from '../../oss/store/index.js';
import { codeOf, settle } from '../helpers/errors.js';

export interface StoreUnderTest {
  /** Block size the backend checksums (a write or read crossing one is the interesting case). */
  blockBytes: number;
  open(dir: string, opts: { capacityBytes: number; faults: StoreFaultSites }): Promise<ObjectStore>;
  /** Flips one bit of the stored byte at `offset` of the object, as bit rot on the disk would (`store` holds it, open). */
  corrupt(dir: string, objectId: string, offset: number, store: ObjectStore): Promise<void>;
}

async function* piecesOf(data: Buffer, pieceBytes: number, withCrc: boolean): AsyncGenerator<WritePiece> {
  for (let at = 0; at < data.length; at += pieceBytes) {
    const piece = data.subarray(at, at + pieceBytes);
    yield withCrc ? { data: piece, crc: crc32c(piece) } : { data: piece };
  }
}

type WriteOptions = {
  truncate?: boolean;
  pg?: number;
  declaredCrc?: number;
  pieceBytes?: number;
  pieceCrcs?: boolean;
  stamp?: number;
  copyOf?: number;
  sync?: boolean;
  blockStamps?: number[];
  guard?: 'object' | 'blocks';
};

/** What each scenario gets: fresh stores in temporary folders (closed and removed after it), and helpers. */
interface Harness {
  B: number;
  fresh(capacityBytes?: number): Promise<{ store: ObjectStore; dir: string }>;
  reopen(dir: string, store: ObjectStore): Promise<ObjectStore>;
  write(
    store: ObjectStore,
    objectId: string,
    offset: number,
    data: Buffer,
    opts?: WriteOptions,
  ): Promise<WriteResult>;
  read(store: ObjectStore, objectId: string, offset?: number, length?: number): Promise<Buffer>;
  corrupt(dir: string, objectId: string, offset: number, store: ObjectStore): Promise<void>;
  setFsyncFails(fails: boolean): void;
}

function write(store: ObjectStore, objectId: string, offset: number, data: Buffer, opts: WriteOptions = {}) {
  return store.write(
    {
      objectId,
      poolId: 1,
      pg: opts.pg ?? 7,
      offset,
      length: data.length,
      declaredCrc: opts.declaredCrc ?? crc32c(data),
      truncate: opts.truncate ?? false,
      ...(opts.stamp === undefined ? {} : { stamp: opts.stamp }),
      ...(opts.copyOf === undefined ? {} : { copyOf: opts.copyOf }),
      ...(opts.sync ? { sync: true } : {}),
      ...(opts.blockStamps === undefined ? {} : { blockStamps: opts.blockStamps }),
      ...(opts.guard === undefined ? {} : { guard: opts.guard }),
    },
    piecesOf(data, opts.pieceBytes ?? 100_000, opts.pieceCrcs ?? true),
  );
}

async function read(store: ObjectStore, objectId: string, offset = 0, length = 1 << 30): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = -1;
  for await (const span of store.readSpans(objectId, offset, length, (s) => {
    size = s;
  })) {
    for (const piece of span) {
      // Every piece carries the crc of its own bytes (the end-to-end check relies on it).
      expect(piece.crc).toBe(crc32c(piece.data));
      parts.push(Buffer.from(piece.data));
    }
    span[span.length - 1]?.release?.();
  }
  expect(size).toBeGreaterThanOrEqual(0);
  return Buffer.concat(parts);
}

/** Stores opened by a harness, closed and removed after each scenario. */
function harnessOf(backend: StoreUnderTest): Harness {
  let fsyncFails = false;
  const faults: StoreFaultSites = {
    dataWritten: () => undefined,
    beforeFsync: (objectId) => {
      if (fsyncFails) throw Object.assign(new Error(`EIO: fsync of ${objectId}`), { code: 'EIO' });
    },
  };
  const dirs: string[] = [];
  const stores: ObjectStore[] = [];
  afterEach(async () => {
    fsyncFails = false;
    for (const s of stores.splice(0)) await s.close();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const open = async (dir: string, capacityBytes: number) => {
    const store = await backend.open(dir, { capacityBytes, faults });
    stores.push(store);
    return store;
  };
  return {
    B: backend.blockBytes,
    fresh: async (capacityBytes = 1 << 30) => {
      const dir = mkdtempSync(join(tmpdir(), 'stripefs-store-'));
      dirs.push(dir);
      return { store: await open(dir, capacityBytes), dir };
    },
    reopen: async (dir, store) => {
      stores.splice(stores.indexOf(store), 1);
      await store.close();
      return open(dir, 1 << 30);
    },
    write,
    read,
    corrupt: (dir, objectId, offset, store) => backend.corrupt(dir, objectId, offset, store),
    setFsyncFails: (fails) => {
      fsyncFails = fails;
    },
  };
}

async function readsBack(h: Harness): Promise<void> {
  const { B, fresh, write, read } = h;
  const { store } = await fresh();
  const data = randomBytes(3 * B + 123);
  expect(await write(store, 'a', 0, data, { pieceBytes: 777 })).toEqual({
    objectSize: data.length,
    version: 1,
  });
  expect((await read(store, 'a')).equals(data)).toBe(true);
  for (const [offset, length] of [
    [0, 1],
    [B - 1, 2],
    [B, B],
    [B + 5, 2 * B],
    [data.length - 1, 10],
    [data.length, 10],
  ] as const) {
    const got = await read(store, 'a', offset, length);
    expect(got.equals(data.subarray(offset, offset + length)), `${offset}+${length}`).toBe(true);
  }
  expect(await codeOf(read(store, 'a', data.length + 1, 1))).toBe('OBJ_RANGE');
  const meta = await store.stat('a');
  expect(meta).toMatchObject({ size: data.length, version: 1, poolId: 1, pg: 7 });
  expect(store.usage()).toMatchObject({ objectCount: 1, usedBytes: data.length });
}

async function versionsAndHoles(h: Harness): Promise<void> {
  const { B, fresh, write, read } = h;
  const { store } = await fresh();
  const expected = Buffer.alloc(5 * B);
  const head = randomBytes(B / 2);
  await write(store, 'h', 0, head);
  head.copy(expected, 0);
  // Past the end: the gap is a hole.
  const tail = randomBytes(B + 7);
  const r2 = await write(store, 'h', 3 * B + 1, tail);
  tail.copy(expected, 3 * B + 1);
  expect(r2).toEqual({ objectSize: 4 * B + 8, version: 2 });
  expect((await read(store, 'h')).equals(expected.subarray(0, 4 * B + 8))).toBe(true);
  // Inside: bytes around the overwrite stay.
  const mid = randomBytes(B);
  await write(store, 'h', B / 4, mid);
  mid.copy(expected, B / 4);
  expect((await read(store, 'h')).equals(expected.subarray(0, 4 * B + 8))).toBe(true);
  // Truncating: shorter, and what was past the new end reads as zeros once it grows again.
  const short = randomBytes(B + 3);
  expect(await write(store, 'h', 0, short, { truncate: true })).toEqual({
    objectSize: B + 3,
    version: 4,
  });
  expect((await read(store, 'h')).equals(short)).toBe(true);
  expect(store.usage().usedBytes).toBe(B + 3);
  const far = Buffer.from('far');
  await write(store, 'h', 2 * B, far);
  const regrown = Buffer.concat([short, Buffer.alloc(2 * B - short.length), far]);
  expect((await read(store, 'h')).equals(regrown)).toBe(true);
  // An empty truncating write empties it.
  expect(await write(store, 'h', 0, Buffer.alloc(0), { truncate: true })).toEqual({
    objectSize: 0,
    version: 6,
  });
  expect((await read(store, 'h')).length).toBe(0);
  expect(store.usage()).toMatchObject({ objectCount: 1, usedBytes: 0 });
}

async function crcRecords(h: Harness): Promise<void> {
  const { B, fresh, write, read } = h;
  const { store } = await fresh();
  const data = randomBytes(1030 * B + 11);
  await write(store, 'big', 0, data, { pieceBytes: 1 << 20 });
  const patch = randomBytes(3 * B);
  await write(store, 'big', 1022 * B + 9, patch);
  patch.copy(data, 1022 * B + 9);
  expect((await read(store, 'big', 1020 * B, 12 * B)).equals(data.subarray(1020 * B, 1032 * B))).toBe(true);
  await write(store, 'big', 0, data.subarray(0, 1025 * B), { truncate: true });
  expect((await read(store, 'big', 1023 * B)).equals(data.subarray(1023 * B, 1025 * B))).toBe(true);
}

async function refusesBadWrites(h: Harness): Promise<void> {
  const { B, fresh, write, read } = h;
  const { store } = await fresh(10 * B);
  const data = randomBytes(2 * B);
  await write(store, 'k', 0, data);
  // A piece whose bytes do not match its crc never reaches the object.
  const bad = randomBytes(B);
  const lying = store.write(
    { objectId: 'k', poolId: 1, pg: 7, offset: 0, length: B, declaredCrc: crc32c(bad), truncate: false },
    (async function* () {
      yield { data: bad, crc: (crc32c(bad) + 1) >>> 0 };
    })(),
  );
  expect(await codeOf(lying)).toBe('OBJ_WRITE_CHECKSUM');
  expect((await read(store, 'k')).equals(data)).toBe(true);
  // A new object refused for its declared crc is not there at all.
  expect(await codeOf(write(store, 'n', 0, bad, { declaredCrc: 1 }))).toBe('OBJ_WRITE_CHECKSUM');
  expect(await store.stat('n')).toBeUndefined();
  // More or fewer bytes than declared.
  const more = store.write(
    { objectId: 'm', poolId: 1, pg: 7, offset: 0, length: 10, declaredCrc: 0, truncate: false },
    piecesOf(randomBytes(20), 20, true),
  );
  expect(await codeOf(more)).toBe('REQ_INVALID');
  const fewer = store.write(
    { objectId: 'm', poolId: 1, pg: 7, offset: 0, length: 30, declaredCrc: 0, truncate: false },
    piecesOf(randomBytes(20), 20, true),
  );
  expect(await codeOf(fewer)).toBe('REQ_INVALID');
  expect(await store.stat('m')).toBeUndefined();
  // Bad ids and ranges, and a full store.
  expect(await codeOf(write(store, '../escape', 0, data))).toBe('OBJ_INVALID_ID');
  expect(await codeOf(write(store, 'r', -1, data))).toBe('OBJ_RANGE');
  expect(await codeOf(write(store, 'full', 0, randomBytes(9 * B)))).toBe('OBJ_NO_SPACE');
  expect(store.usage()).toMatchObject({ objectCount: 1, usedBytes: 2 * B, capacityBytes: 10 * B });
  expect(await store.stat('k')).toMatchObject({ size: 2 * B, version: 1 });
}

async function refusedOverwrite(h: Harness): Promise<void> {
  const { B, fresh, write, read } = h;
  const { store } = await fresh();
  const data = randomBytes(3 * B);
  await write(store, 'o', 0, data);
  // Declared crc wrong, no piece crcs: the store learns it only after the bytes went down.
  const other = randomBytes(2 * B);
  expect(await codeOf(write(store, 'o', B / 2, other, { declaredCrc: 1, pieceCrcs: false }))).toBe(
    'OBJ_WRITE_CHECKSUM',
  );
  expect(await store.stat('o')).toMatchObject({ size: 3 * B, version: 1 });
  for (let block = 0; block < 3; block++) {
    const got = await settle(read(store, 'o', block * B, B));
    if (!got.ok) expect(got.code, `block ${block}`).toBe('OBJ_CHECKSUM');
    else expect(got.value.equals(data.subarray(block * B, (block + 1) * B)), `block ${block}`).toBe(true);
  }
}

async function findsBitRot(h: Harness): Promise<void> {
  const { B, fresh, write, read } = h;
  const { store, dir } = await fresh();
  const data = randomBytes(3 * B);
  await write(store, 'rot', 0, data);
  await h.corrupt(dir, 'rot', B + 17, store);
  expect(await codeOf(read(store, 'rot'))).toBe('OBJ_CHECKSUM');
  expect((await read(store, 'rot', 0, B)).equals(data.subarray(0, B))).toBe(true);
  expect((await read(store, 'rot', 2 * B, B)).equals(data.subarray(2 * B))).toBe(true);
}

async function listsAndScans(h: Harness): Promise<void> {
  const { fresh, write } = h;
  const { store } = await fresh();
  const ids = Array.from({ length: 25 }, (_, i) => `obj.${String(i).padStart(2, '0')}`);
  for (const [i, id] of ids.entries()) await write(store, id, 0, Buffer.from(id), { pg: i % 2 });
  const listPg = async (pg: number, limit: number) => {
    const seen: string[] = [];
    let cursor = '';
    let pages = 0;
    do {
      const page = await store.list(1, pg, cursor, limit);
      expect(page.objects.length).toBeLessThanOrEqual(limit);
      seen.push(...page.objects.map((o) => o.objectId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    return seen;
  };
  const even = ids.filter((_, i) => i % 2 === 0);
  expect(await listPg(0, 4)).toEqual(even);
  expect(await listPg(1, 100)).toEqual(ids.filter((_, i) => i % 2 === 1));
  const first = (await store.list(1, 0, '', 1)).objects[0];
  expect(first).toMatchObject({ objectId: 'obj.00', size: 6, version: 1, poolId: 1, pg: 0 });
  // A write under another PG moves the object's entry.
  await write(store, 'obj.00', 0, Buffer.from('moved'), { pg: 1 });
  expect(await listPg(0, 100)).toEqual(even.slice(1));
  expect((await listPg(1, 100)).includes('obj.00')).toBe(true);
  expect((await store.list(1, 5, '', 10)).objects).toEqual([]);
  const scanned: string[] = [];
  for await (const o of store.objects()) scanned.push(o.objectId);
  expect(scanned).toEqual(ids);
}

async function deletes(h: Harness): Promise<void> {
  const { B, fresh, write, read } = h;
  const { store } = await fresh();
  const data = randomBytes(2 * B + 1);
  await write(store, 'd', 0, data);
  await write(store, 'keep', 0, data);
  expect(await store.delete('d')).toBe(true);
  expect(await store.delete('d')).toBe(false);
  expect(await store.stat('d')).toBeUndefined();
  expect(await codeOf(read(store, 'd'))).toBe('OBJ_NOT_FOUND');
  expect(await codeOf(store.flush('d'))).toBe('OBJ_NOT_FOUND');
  expect((await store.list(1, 7, '', 10)).objects.map((o) => o.objectId)).toEqual(['keep']);
  expect(store.usage()).toMatchObject({ objectCount: 1, usedBytes: data.length });
  // The same id again starts from nothing: version 1, no old bytes or crcs.
  const small = Buffer.from('again');
  expect(await write(store, 'd', 0, small)).toEqual({ objectSize: 5, version: 1 });
  expect((await read(store, 'd')).equals(small)).toBe(true);
}

async function versionsWrites(h: Harness): Promise<void> {
  const { fresh, write, read } = h;
  const { store } = await fresh();
  // Without a stamp the version counts writes; a stamped write takes the highest stamp applied.
  expect((await write(store, 'v', 0, Buffer.from('one'))).version).toBe(1);
  expect((await write(store, 'v', 0, Buffer.from('two'), { stamp: 50 })).version).toBe(50);
  // A stamp lower than the version (a write that arrived late) leaves the version where it is.
  expect((await write(store, 'v', 3, Buffer.from('x'), { stamp: 40 })).version).toBe(50);
  expect((await read(store, 'v')).toString()).toBe('twox');
  // A recovery copy of a source at 50 or later lands; one of an older source is refused, bytes untouched.
  expect((await write(store, 'v', 0, Buffer.from('copy'), { copyOf: 60 })).version).toBe(60);
  expect(await codeOf(write(store, 'v', 0, Buffer.from('old!'), { copyOf: 59 }))).toBe('OBJ_NEWER_COPY');
  expect((await read(store, 'v')).toString()).toBe('copy');
  // A copy onto an object not there yet always lands, and takes its source's version.
  expect((await write(store, 'w', 0, Buffer.from('new'), { copyOf: 7 })).version).toBe(7);
}

/** The block stamps a read of [offset, offset + length) answers with. */
async function stampsRead(store: ObjectStore, objectId: string, offset: number, length: number) {
  let stamps: readonly number[] = [];
  for await (const span of store.readSpans(objectId, offset, length, (_, s) => {
    stamps = s;
  }))
    span[span.length - 1]?.release?.();
  return [...stamps];
}

async function blockStamps(h: Harness): Promise<void> {
  const { B, fresh, write, reopen } = h;
  const { store, dir } = await fresh();
  // Each block holds the stamp of the write whose bytes it holds; holes and unstamped bytes none.
  await write(store, 's', 0, Buffer.alloc(2 * B, 1), { stamp: 10 });
  await write(store, 's', B, Buffer.alloc(B + 5, 2), { stamp: 20 });
  expect(await stampsRead(store, 's', 0, 3 * B)).toEqual([10, 20, 20]);
  // A write past the end leaves a hole (stamp 0); a partial block takes the write's stamp.
  await write(store, 's', 4 * B, Buffer.alloc(8, 3), { stamp: 30 });
  expect(await store.blockStamps('s', 0, 5 * B)).toEqual([10, 20, 20, 0, 30]);
  // An older stamp arriving late still names the bytes it wrote (the version keeps the highest).
  expect((await write(store, 's', 0, Buffer.alloc(B, 4), { stamp: 5 })).version).toBe(30);
  expect(await stampsRead(store, 's', 0, B)).toEqual([5]);
  // A read answers for the blocks it covers; an unstamped write's blocks show none.
  await write(store, 's', 2 * B, Buffer.alloc(B, 5));
  expect(await stampsRead(store, 's', B + 1, B)).toEqual([20, 0]);
  // A copy gives its blocks its source's stamps, block by block.
  await write(store, 'c', 0, Buffer.alloc(2 * B, 6), { copyOf: 40, blockStamps: [35, 40] });
  expect(await store.blockStamps('c', 0, 2 * B)).toEqual([35, 40]);
  expect(await codeOf(write(store, 'c', 0, Buffer.alloc(B, 7), { copyOf: 40, blockStamps: [1, 2] }))).toBe(
    'REQ_INVALID',
  );
  // Guarded by blocks: refused when a block it touches holds a newer write, whatever the version.
  await write(store, 'c', B, Buffer.alloc(B, 8), { stamp: 50 });
  expect(
    await codeOf(
      write(store, 'c', 0, Buffer.alloc(2 * B, 9), { copyOf: 45, blockStamps: [45, 45], guard: 'blocks' }),
    ),
  ).toBe('OBJ_NEWER_COPY');
  await write(store, 'c', 0, Buffer.alloc(B, 9), { copyOf: 45, blockStamps: [45], guard: 'blocks' });
  expect(await store.blockStamps('c', 0, 2 * B)).toEqual([45, 50]);
  expect((await store.stat('c'))?.version).toBe(50);
  // Truncation keeps the stamps of the blocks left; stamps survive a reopen; an absent object has none.
  await write(store, 's', 2 * B + 3, Buffer.alloc(0), { truncate: true, stamp: 60 });
  const again = await reopen(dir, store);
  expect(await again.blockStamps('s', 0, 10 * B)).toEqual([5, 20, 0]);
  expect(await again.blockStamps('c', 0, B)).toEqual([45]);
  expect(await again.blockStamps('nothing', 0, B)).toBeUndefined();
}

async function staleCopies(h: Harness): Promise<void> {
  const { fresh, write, read } = h;
  const { store } = await fresh();
  const data = Buffer.from('stale bytes');
  await write(store, 's', 0, data);
  await write(store, 't', 0, data);
  store.markStale(['s', 't']);
  expect(await codeOf(read(store, 's'))).toBe('OBJ_STALE');
  store.clearStale('s');
  expect((await read(store, 's')).equals(data)).toBe(true);
  await store.delete('t');
  await write(store, 't', 0, data);
  expect((await read(store, 't')).equals(data)).toBe(true);
}

async function persists(h: Harness): Promise<void> {
  const { B, fresh, reopen, write, read } = h;
  const { store, dir } = await fresh();
  expect(store.id).toBeUndefined();
  await store.assignId(42);
  const a = randomBytes(B + 9);
  const b = randomBytes(3);
  await write(store, 'a', 0, a, { pg: 3 });
  await write(store, 'b', 5, b);
  await write(store, 'b', 0, Buffer.alloc(0), { stamp: 4 });
  await store.flush('a');
  await store.flush('b');
  const again = await reopen(dir, store);
  expect(again.id).toBe(42);
  expect(again.usage()).toMatchObject({ objectCount: 2, usedBytes: a.length + 8 });
  expect((await read(again, 'a')).equals(a)).toBe(true);
  expect((await read(again, 'b')).equals(Buffer.concat([Buffer.alloc(5), b]))).toBe(true);
  expect(await again.stat('b')).toMatchObject({ size: 8, version: 4, pg: 7 });
  expect((await again.list(1, 3, '', 10)).objects.map((o) => o.objectId)).toEqual(['a']);
}

async function flushFailures(h: Harness): Promise<void> {
  const { B, fresh, reopen, write, read } = h;
  const { store, dir } = await fresh();
  const data = randomBytes(3 * B);
  await write(store, 'f', 0, data);
  await write(store, 'g', 0, data);
  h.setFsyncFails(true);
  expect(await codeOf(store.flush('f'))).toBe('OBJ_NOT_DURABLE');
  expect(await codeOf(store.flush('g'))).toBe('OBJ_NOT_DURABLE');
  h.setFsyncFails(false);
  expect(await codeOf(store.flush('f'))).toBe('OBJ_NOT_DURABLE');
  expect((await read(store, 'f')).equals(data)).toBe(true);
  const again = await reopen(dir, store);
  expect(await codeOf(again.flush('f'))).toBe('OBJ_NOT_DURABLE');
  // Written again from offset 0 on, in two writes with a gap-free order.
  await write(again, 'f', 0, data.subarray(0, B));
  expect(await codeOf(again.flush('f'))).toBe('OBJ_NOT_DURABLE');
  await write(again, 'f', B, data.subarray(B));
  await again.flush('f');
  await again.delete('g');
  await write(again, 'g', 0, data.subarray(0, 10));
  await again.flush('g');
}

async function syncWrites(h: Harness): Promise<void> {
  const { B, fresh, reopen, write, read } = h;
  const { store, dir } = await fresh();
  const data = randomBytes(2 * B + 5);
  // A sync write is a write and a flush in one: it says whether the flush held; a plain write says nothing.
  expect(await write(store, 's', 0, data, { sync: true })).toEqual({
    objectSize: data.length,
    version: 1,
    durable: true,
  });
  expect((await write(store, 'p', 0, data)).durable).toBeUndefined();
  // Its fsync failing: the write is applied, not durable, and the object's flushes fail as after a failed flush.
  h.setFsyncFails(true);
  expect((await write(store, 's', B, data.subarray(0, B), { sync: true })).durable).toBe(false);
  expect((await write(store, 'n', 0, data, { sync: true })).durable).toBe(false);
  h.setFsyncFails(false);
  expect(await codeOf(store.flush('n'))).toBe('OBJ_NOT_DURABLE');
  const expected = Buffer.concat([data.subarray(0, B), data.subarray(0, B), data.subarray(2 * B)]);
  expect((await read(store, 's')).equals(expected)).toBe(true);
  // A later sync write of part of it is not durable either; one of every byte is, and clears the mark.
  expect((await write(store, 's', 0, data.subarray(0, 10), { sync: true })).durable).toBe(false);
  expect(await codeOf(store.flush('s'))).toBe('OBJ_NOT_DURABLE');
  expect((await write(store, 's', 0, data, { sync: true })).durable).toBe(true);
  await store.flush('s');
  const again = await reopen(dir, store);
  expect((await read(again, 's')).equals(data)).toBe(true);
  expect(await codeOf(again.flush('n'))).toBe('OBJ_NOT_DURABLE');
}

async function serializesWriters(h: Harness): Promise<void> {
  const { B, fresh, write, read } = h;
  const { store } = await fresh();
  const versions = Array.from({ length: 6 }, (_, i) => Buffer.alloc(4 * B, i + 1));
  await write(store, 'c', 0, versions[0]!);
  const reads: Promise<void>[] = [];
  const writes = versions.map((v) => write(store, 'c', 0, v));
  for (let i = 0; i < 12; i++)
    reads.push(
      read(store, 'c').then((got) => {
        // One write's bytes throughout: no block of another write, no checksum error.
        expect(got.length).toBe(4 * B);
        expect(got.every((byte) => byte === got[0])).toBe(true);
      }),
    );
  const results = await Promise.all(writes);
  await Promise.all(reads);
  expect(results.map((r) => r.version).sort((x, y) => x - y)).toEqual([2, 3, 4, 5, 6, 7]);
}

const SCENARIOS: [string, (h: Harness) => Promise<void>][] = [
  ['reads back what was written, piece sizes and block boundaries notwithstanding', readsBack],
  ['counts writes in the version, grows, overwrites, truncates, and reads holes as zeros', versionsAndHoles],
  ['keeps crcs right across a crc record boundary (more than 1,024 blocks)', crcRecords],
  ['refuses bad writes with a code and keeps what was stored', refusesBadWrites],
  ['never serves the bytes of a refused overwrite as the stored version', refusedOverwrite],
  ['finds a flipped bit on read', findsBitRot],
  ['lists a PG by pages, follows an object to its new PG, and scans every object in id order', listsAndScans],
  ['deletes an object with every trace of it', deletes],
  ['versions writes by their stamps and refuses a copy older than the object', versionsWrites],
  [
    'stamps each block with the write it holds; copies keep their source stamps, and a block-guarded copy yields to a newer block',
    blockStamps,
  ],
  ['refuses reads of a copy marked stale until it is cleared or deleted', staleCopies],
  ['flushes, and keeps everything across a close and reopen', persists],
  [
    'fails every flush after a failed fsync until the object is written whole again or deleted',
    flushFailures,
  ],
  ['serializes writers of one object and never shows a reader a half-applied write', serializesWriters],
  ['makes a sync write durable before it answers, and says when its flush failed', syncWrites],
];

export function describeObjectStore(name: string, backend: StoreUnderTest): void {
  describe(`ObjectStore conformance: ${name}`, () => {
    const harness = harnessOf(backend);
    for (const [title, scenario] of SCENARIOS) it(title, () => scenario(harness));
  });
}
