// The segment log of small objects (oss/store/segment-log.ts) on a real OST
// (real classic-level index, real segment files): what the conformance suite
// cannot see through the interface. Small objects make no file of their own;
// writes that arrive together share rounds; an overwrite leaves a dead record
// that compaction reclaims (the segment file goes, every object reads back,
// before and after a reopen); an object that grows past the bound moves to a
// file; a reopen drops an uncommitted tail and never serves a record a
// segment lost; rounds whose index batches a power loss took are replayed
// from their heads, a torn one and those after it never; objects in the log
// stay readable with the log turned off.
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crc32c } from '../../common/checksum.js';
import { fanoutOf } from '../../oss/object-id.js';
import { Ost, type OstOptions } from '../../oss/store/ost.js';
import { codeOf } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { tempDir } from './helpers.js';

const KiB = 1024;
const temps: { remove(): void }[] = [];
const opened: Ost[] = [];

afterEach(async () => {
  for (const ost of opened.splice(0)) await ost.close();
  for (const t of temps.splice(0)) t.remove();
});

async function openLog(dir: string, extra: Partial<OstOptions> = {}): Promise<Ost> {
  const ost = await Ost.open({
    dir,
    name: 'ost0',
    capacityBytes: 1 << 30,
    fsync: true,
    directIo: true,
    smallObjectBytes: 64 * KiB,
    logSegmentBytes: 256 * KiB,
    ...extra,
  });
  opened.push(ost);
  return ost;
}

async function reopen(ost: Ost, dir: string, extra: Partial<OstOptions> = {}): Promise<Ost> {
  opened.splice(opened.indexOf(ost), 1);
  await ost.close();
  return openLog(dir, extra);
}

function fresh(): string {
  const t = tempDir('stripefs-segment-log-');
  temps.push(t);
  return t.dir;
}

function put(ost: Ost, objectId: string, data: Buffer, opts: { offset?: number; sync?: boolean } = {}) {
  async function* pieces() {
    yield { data, crc: crc32c(data) };
  }
  return ost.write(
    {
      objectId,
      poolId: 1,
      pg: 3,
      offset: opts.offset ?? 0,
      length: data.length,
      declaredCrc: crc32c(data),
      truncate: false,
      ...(opts.sync ? { sync: true } : {}),
    },
    pieces(),
  );
}

async function get(ost: Ost, objectId: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const span of ost.readSpans(objectId, 0, 1 << 30, () => undefined)) {
    for (const piece of span) parts.push(Buffer.from(piece.data));
    span[span.length - 1]?.release?.();
  }
  return Buffer.concat(parts);
}

const objectFiles = (dir: string): string[] =>
  readdirSync(join(dir, 'objects')).flatMap((f) => readdirSync(join(dir, 'objects', f)));
const segmentFiles = (dir: string): string[] =>
  existsSync(join(dir, 'log')) ? readdirSync(join(dir, 'log')).sort() : [];
const segmentPath = (dir: string, id: number) => join(dir, 'log', `${id.toString(16).padStart(8, '0')}.seg`);

describe('segment log of small objects', () => {
  it('keeps small objects in segments, not files, and lets writes that arrive together share rounds', async () => {
    const dir = fresh();
    const ost = await openLog(dir);
    const data = Array.from({ length: 32 }, () => randomBytes(40 * KiB));
    const results = await Promise.all(data.map((d, i) => put(ost, `o${i}`, d, { sync: true })));
    expect(results.every((r) => r.durable === true)).toBe(true);
    for (const [i, d] of data.entries()) expect((await get(ost, `o${i}`)).equals(d)).toBe(true);
    expect(objectFiles(dir)).toEqual([]);
    expect(segmentFiles(dir).length).toBeGreaterThan(1); // 32 records of 40 KiB pass 256 KiB segments
    const log = ost.usage().log!;
    expect(log.rounds).toBeLessThan(32);
    expect(log.liveBytes).toBe(32 * 40 * KiB);
    expect(ost.usage()).toMatchObject({ objectCount: 32, usedBytes: 32 * 40 * KiB });
    // Larger objects are files, as before.
    await put(ost, 'big', randomBytes(64 * KiB + 1));
    expect(objectFiles(dir)).toEqual(['big']);
  });

  it('counts an overwritten record dead, compacts the segment away and keeps every object', async () => {
    const dir = fresh();
    let ost = await openLog(dir, { logDeadShareMax: 0.5 });
    const latest = new Map<string, Buffer>();
    for (let round = 0; round < 3; round++)
      for (let i = 0; i < 12; i++) {
        const d = randomBytes(20 * KiB + i);
        latest.set(`k${i}`, d);
        await put(ost, `k${i}`, d);
      }
    const first = segmentPath(dir, 1);
    await eventually(() => !existsSync(first), { timeoutMs: 30_000, what: 'segment 1 compacted away' });
    const log = ost.usage().log!;
    expect(log.compactedSegments).toBeGreaterThan(0);
    expect(log.liveBytes).toBe(
      [...latest.values()].reduce((s, d) => s + Math.ceil(d.length / 4096) * 4096, 0),
    );
    for (const [id, d] of latest) expect((await get(ost, id)).equals(d), id).toBe(true);
    ost = await reopen(ost, dir);
    for (const [id, d] of latest) expect((await get(ost, id)).equals(d), id).toBe(true);
    expect(ost.usage()).toMatchObject({ objectCount: 12 });
  });

  it('moves an object that grows past the bound into a file, and reads it whole', async () => {
    const dir = fresh();
    let ost = await openLog(dir);
    const head = randomBytes(30 * KiB);
    await put(ost, 'g', head);
    expect((await ost.storedMeta('g'))?.log).toBeDefined();
    const tail = randomBytes(50 * KiB);
    await put(ost, 'g', tail, { offset: head.length, sync: true });
    expect((await ost.storedMeta('g'))?.log).toBeUndefined();
    expect(objectFiles(dir)).toEqual(['g']);
    expect(ost.usage().log!.liveBytes).toBe(0);
    expect((await get(ost, 'g')).equals(Buffer.concat([head, tail]))).toBe(true);
    ost = await reopen(ost, dir);
    expect((await get(ost, 'g')).equals(Buffer.concat([head, tail]))).toBe(true);
    // A later small write to it stays in its file.
    await put(ost, 'g', Buffer.from('x'));
    expect((await ost.storedMeta('g'))?.log).toBeUndefined();
  });

  it('drops an uncommitted tail at reopen and goes on appending after the last live record', async () => {
    const dir = fresh();
    let ost = await openLog(dir);
    const a = randomBytes(10 * KiB);
    await put(ost, 'a', a, { sync: true });
    await ost.close();
    opened.splice(0);
    const path = segmentPath(dir, 1);
    const live = statSync(path).size;
    // What a crash between a round's write and its index batch leaves: bytes no meta record points at.
    appendFileSync(path, randomBytes(12 * KiB + 5));
    ost = await openLog(dir);
    expect(ost.usage().log).toMatchObject({ droppedTailBytes: 12 * KiB + 5, tornSegments: 0 });
    expect(statSync(path).size).toBe(live);
    expect((await get(ost, 'a')).equals(a)).toBe(true);
    const b = randomBytes(5 * KiB);
    await put(ost, 'b', b);
    // After its round's head (a 4 KiB unit).
    expect((await ost.storedMeta('b'))?.log).toEqual([1, live + 4 * KiB, 8 * KiB]);
    expect((await get(ost, 'b')).equals(b)).toBe(true);
  });

  it('never serves a record its segment lost (cut short by a power loss): the read fails its checksum', async () => {
    const dir = fresh();
    let ost = await openLog(dir);
    const a = randomBytes(16 * KiB);
    const b = randomBytes(16 * KiB);
    await put(ost, 'a', a);
    await put(ost, 'b', b);
    await ost.close();
    opened.splice(0);
    truncateSync(segmentPath(dir, 1), 16 * KiB + 4096);
    ost = await openLog(dir);
    expect(ost.usage().log!.tornSegments).toBe(1);
    expect((await get(ost, 'a')).equals(a)).toBe(true);
    expect(await codeOf(get(ost, 'b'))).toBe('OBJ_CHECKSUM');
    // Written again, it reads back.
    await put(ost, 'b', b);
    expect((await get(ost, 'b')).equals(b)).toBe(true);
  });

  it('replays the rounds whose index batches were lost, across segments, and only once', async () => {
    const dir = fresh();
    let lost = false;
    const faults = { dataWritten: () => undefined, beforeFsync: () => undefined, indexTailLost: () => lost };
    let ost = await openLog(dir, { faults });
    const first = randomBytes(16 * KiB);
    await put(ost, 'a', first, { sync: true });
    // What a power loss leaves: every round's head and records in the segments, none of their index batches.
    lost = true;
    const written = new Map<string, Buffer>();
    for (let i = 0; i < 30; i++) {
      const data = randomBytes(12 * KiB + 100 * i);
      await put(ost, `o${i}`, data, { sync: true });
      written.set(`o${i}`, data);
    }
    const second = randomBytes(16 * KiB);
    await put(ost, 'a', second, { sync: true });
    written.set('a', second);
    ost = await reopen(ost, dir);
    expect(segmentFiles(dir).length).toBeGreaterThan(1); // 256 KiB segments: the rounds went on in the next ones
    expect(ost.usage().log!.replayedRounds).toBe(31);
    expect(ost.usage().objectCount).toBe(31);
    for (const [id, data] of written) expect((await get(ost, id)).equals(data), id).toBe(true);
    expect((await ost.stat('a'))?.version).toBe(2);
    // The position moved past them: a second open replays nothing, and writes go on.
    ost = await reopen(ost, dir);
    expect(ost.usage().log!.replayedRounds).toBe(0);
    for (const [id, data] of written) expect((await get(ost, id)).equals(data), id).toBe(true);
    await put(ost, 'b', first, { sync: true });
    expect((await get(ost, 'b')).equals(first)).toBe(true);
  });

  it('replays no round whose records are torn, nor any after it', async () => {
    const dir = fresh();
    let lost = false;
    const faults = { dataWritten: () => undefined, beforeFsync: () => undefined, indexTailLost: () => lost };
    let ost = await openLog(dir, { faults });
    const first = randomBytes(8 * KiB);
    await put(ost, 'a', first, { sync: true });
    lost = true;
    const kept = randomBytes(8 * KiB);
    await put(ost, 'k', kept, { sync: true });
    const tornAt = statSync(segmentPath(dir, 1)).size;
    await put(ost, 'a', randomBytes(8 * KiB), { sync: true });
    await put(ost, 'after', randomBytes(8 * KiB), { sync: true });
    await ost.close();
    opened.splice(0);
    // One byte of the overwrite's record (after its 4 KiB head) flipped.
    const path = segmentPath(dir, 1);
    const bytes = readFileSync(path);
    bytes[tornAt + 4 * KiB + 10] = bytes[tornAt + 4 * KiB + 10]! ^ 1;
    writeFileSync(path, bytes);
    ost = await openLog(dir);
    expect(ost.usage().log).toMatchObject({ replayedRounds: 1, droppedTailBytes: 2 * (4 + 8) * KiB });
    expect((await get(ost, 'k')).equals(kept)).toBe(true);
    expect((await get(ost, 'a')).equals(first)).toBe(true);
    expect(await ost.stat('after')).toBeUndefined();
    expect(statSync(path).size).toBe(tornAt);
  });

  it('removes the file of a move into a file that never committed, and keeps the object in the log', async () => {
    const dir = fresh();
    let ost = await openLog(dir);
    const a = randomBytes(8 * KiB);
    await put(ost, 'a', a);
    await ost.close();
    opened.splice(0);
    writeFileSync(join(dir, 'objects', fanoutOf('a'), 'a'), randomBytes(100 * KiB));
    ost = await openLog(dir);
    expect(objectFiles(dir)).toEqual([]);
    expect((await get(ost, 'a')).equals(a)).toBe(true);
  });

  it('with the log off, still reads what is in it, and moves an object written again into a file', async () => {
    const dir = fresh();
    let ost = await openLog(dir);
    const a = randomBytes(8 * KiB);
    const b = randomBytes(8 * KiB);
    await put(ost, 'a', a);
    await put(ost, 'b', b);
    ost = await reopen(ost, dir, { smallObjectBytes: 0 });
    expect((await get(ost, 'a')).equals(a)).toBe(true);
    await put(ost, 'b', Buffer.from('new'), { offset: 2 });
    const expected = Buffer.from(b);
    expected.write('new', 2);
    expect((await get(ost, 'b')).equals(expected)).toBe(true);
    expect(objectFiles(dir)).toEqual(['b']);
    expect(await ost.delete('a')).toBe(true);
    expect(ost.usage()).toMatchObject({ objectCount: 1, usedBytes: 8 * KiB });
    // The segment holds nothing live any more: gone at the next open.
    ost = await reopen(ost, dir, { smallObjectBytes: 0 });
    expect(segmentFiles(dir)).toEqual([]);
    expect((await get(ost, 'b')).equals(expected)).toBe(true);
  });

  it('makes no log files while the log is off', async () => {
    const dir = fresh();
    const ost = await openLog(dir, { smallObjectBytes: 0 });
    await put(ost, 'a', randomBytes(KiB), { sync: true });
    expect(existsSync(join(dir, 'log'))).toBe(false);
    expect(objectFiles(dir)).toEqual(['a']);
  });
});
