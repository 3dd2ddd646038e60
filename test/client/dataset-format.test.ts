// The packed dataset's index and read plan alone (docs/dataset-format.md): an
// index decodes to what was encoded; a truncated or altered index, a newer
// format version and entries outside their shard are refused with their
// codes; keys are found by binary search; getMany's plan reads each sample
// once, merges neighbours within the gap and the range bound, never across shards.
import { describe, expect, it } from 'vitest';
import {
  decodeIndex,
  encodeIndex,
  findKey,
  HEADER_BYTES,
  keyOf,
  type SampleEntry,
} from '../../client/dataset/format.js';
import { planRanges } from '../../client/dataset/plan.js';
import { crc32c } from '../../common/checksum.js';
import { seededRandom, seedFromEnv } from '../../common/random.js';
import { codeOf } from '../helpers/errors.js';

const SEED = seedFromEnv();
console.log(`dataset format seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);

/** An index of `count` samples of seeded sizes in shards of about `shardBytes`. */
function sampleIndex(count: number, shardBytes: number) {
  const random = seededRandom(SEED);
  const samples: (SampleEntry & { key: string })[] = [];
  const shards: { sizeBytes: number; samples: number }[] = [{ sizeBytes: 0, samples: 0 }];
  for (let i = 0; i < count; i++) {
    let shard = shards[shards.length - 1] as { sizeBytes: number; samples: number };
    if (shard.sizeBytes >= shardBytes) {
      shard = { sizeBytes: 0, samples: 0 };
      shards.push(shard);
    }
    const lengthBytes = random.int(5000);
    samples.push({
      key: `k/${String(i).padStart(5, '0')}-é`,
      shard: shards.length - 1,
      offsetBytes: shard.sizeBytes,
      lengthBytes,
      crc32c: random.int(2 ** 32),
    });
    shard.sizeBytes += lengthBytes;
    shard.samples++;
  }
  return { samples, shards };
}

/** Rewrites both crc32c fields, so a change past them is judged by the checks behind them. */
function resealed(buf: Buffer): Buffer {
  buf.writeUInt32LE(crc32c(buf.subarray(HEADER_BYTES)), 48);
  buf.writeUInt32LE(crc32c(buf.subarray(0, 60)), 60);
  return buf;
}

describe('dataset index', () => {
  const { samples, shards } = sampleIndex(300, 50_000);
  const bytes = encodeIndex(shards, samples);

  it('decodes to what was encoded, finds every key and no other', () => {
    const index = decodeIndex(bytes);
    expect(index.shards).toEqual(shards);
    expect(index.samples).toEqual(samples.map(({ key: _key, ...rest }) => rest));
    expect(samples.map((_, i) => keyOf(index, i))).toEqual(samples.map((s) => s.key));
    expect(samples.map((s) => findKey(index, s.key))).toEqual(samples.map((_, i) => i));
    expect([findKey(index, 'k/'), findKey(index, 'k/00001'), findKey(index, 'z')]).toEqual([-1, -1, -1]);
    expect(bytes.length).toBe(
      64 + 16 * shards.length + 32 * samples.length + Buffer.byteLength(samples.map((s) => s.key).join('')),
    );
  });

  it('refuses every truncation and any altered byte', async () => {
    for (const length of [0, 10, 63, 64, 100, bytes.length - 1])
      expect(await codeOf(() => decodeIndex(bytes.subarray(0, length)))).toBe('DATASET_INDEX_INVALID');
    const random = seededRandom(SEED + 1);
    for (let n = 0; n < 50; n++) {
      const altered = Buffer.from(bytes);
      const at = random.int(altered.length);
      altered[at] = (altered[at] as number) ^ (1 + random.int(255));
      expect(await codeOf(() => decodeIndex(altered))).toBe('DATASET_INDEX_INVALID');
    }
    expect(await codeOf(() => decodeIndex(Buffer.concat([bytes, Buffer.alloc(1)])))).toBe(
      'DATASET_INDEX_INVALID',
    );
  });

  it('refuses a newer format version by its own code, and entries the checks behind the crc catch', async () => {
    const newer = Buffer.from(bytes);
    newer.writeUInt32LE(2, 8);
    expect(await codeOf(() => decodeIndex(resealed(newer)))).toBe('DATASET_FORMAT_UNSUPPORTED');
    const sampleAt = (i: number) => HEADER_BYTES + 16 * shards.length + 32 * i;
    const outside = Buffer.from(bytes);
    outside.writeBigUInt64LE(BigInt((shards[0]?.sizeBytes ?? 0) + 1), sampleAt(0) + 8);
    expect(await codeOf(() => decodeIndex(resealed(outside)))).toBe('DATASET_INDEX_INVALID');
    const noShard = Buffer.from(bytes);
    noShard.writeUInt32LE(shards.length, sampleAt(1));
    expect(await codeOf(() => decodeIndex(resealed(noShard)))).toBe('DATASET_INDEX_INVALID');
    const unsorted = encodeIndex(shards, samples);
    unsorted.writeUInt32LE(unsorted.readUInt32LE(sampleAt(1) + 24), sampleAt(2) + 24);
    expect(await codeOf(() => decodeIndex(resealed(unsorted)))).toBe('DATASET_INDEX_INVALID');
  });
});

describe("getMany's read plan", () => {
  const at = (shard: number, offsetBytes: number, lengthBytes: number): SampleEntry => ({
    shard,
    offsetBytes,
    lengthBytes,
    crc32c: 0,
  });
  // Shard 0: four samples back to back, then one 1 MiB later; shard 1: two samples.
  const samples = [
    at(0, 0, 100),
    at(0, 100, 100),
    at(0, 200, 100),
    at(0, 300, 100),
    at(0, 1 << 20, 10),
    at(1, 0, 50),
    at(1, 50, 50),
  ];
  const options = { gapBytesMax: 64 * 1024, rangeBytesMax: 250 };

  it('merges neighbours of one shard, never across shards or past the gap, and reads a duplicate once', () => {
    const ranges = planRanges(samples, [6, 3, 0, 1, 2, 3, 4, 5], options);
    expect(ranges.map((r) => [r.shard, r.offsetBytes, r.lengthBytes])).toEqual([
      [0, 0, 200],
      [0, 200, 200],
      [0, 1 << 20, 10],
      [1, 0, 100],
    ]);
    expect(ranges.flatMap((r) => r.members.map((m) => [m.sample, m.atBytes]))).toEqual([
      [0, 0],
      [1, 100],
      [2, 0],
      [3, 100],
      [4, 0],
      [5, 0],
      [6, 50],
    ]);
  });

  it('reads each wanted sample exactly once whatever the order, within the bounds (seeded)', () => {
    const random = seededRandom(SEED + 2);
    const { samples: many } = sampleIndex(500, 40_000);
    for (let round = 0; round < 20; round++) {
      const wanted = Array.from({ length: 1 + random.int(200) }, () => random.int(many.length));
      const ranges = planRanges(many, wanted, { gapBytesMax: random.int(3000), rangeBytesMax: 20_000 });
      const read = ranges.flatMap((r) => r.members.map((m) => m.sample));
      expect(read.sort((a, b) => a - b)).toEqual([...new Set(wanted)].sort((a, b) => a - b));
      for (const r of ranges) {
        if (r.members.length > 1) expect(r.lengthBytes).toBeLessThanOrEqual(20_000);
        for (const m of r.members) {
          const s = many[m.sample] as SampleEntry;
          expect([s.shard, s.offsetBytes, s.lengthBytes]).toEqual([
            r.shard,
            r.offsetBytes + m.atBytes,
            m.lengthBytes,
          ]);
          expect(m.atBytes + m.lengthBytes).toBeLessThanOrEqual(r.lengthBytes);
        }
      }
    }
  });
});
