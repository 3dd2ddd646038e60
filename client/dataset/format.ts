// The on-disk form of a packed dataset's index (docs/dataset-format.md): a
// 64-byte header with a magic, a format version and its own crc32c, a table of
// shards, a table of samples in ascending byte order of key, and the keys.
// Pure: bytes in, a checked index out (and back). Every count and offset is
// checked before it is used, so a truncated or altered index is refused with
// DATASET_INDEX_INVALID and a newer format with DATASET_FORMAT_UNSUPPORTED.
import { crc32c } from '../../common/checksum.js';
import { StripeError } from '../../common/errors.js';
import { DATASET_LIMITS } from './limits.js';

export const INDEX_MAGIC = 'STRIPEDS';
export const FORMAT_VERSION = 1;
export const HEADER_BYTES = 64;
export const SHARD_ENTRY_BYTES = 16;
export const SAMPLE_ENTRY_BYTES = 32;
/** Header flag: samples are in ascending byte order of key, keys unique (always set by version 1). */
export const FLAG_KEYS_SORTED = 1;
export const INDEX_NAME = 'index.sfds';

/** Shard n's file name inside the dataset's folder. */
export function shardName(shard: number): string {
  return `shard-${String(shard).padStart(6, '0')}.bin`;
}

export interface SampleEntry {
  shard: number;
  offsetBytes: number;
  lengthBytes: number;
  crc32c: number;
}

export interface ShardEntry {
  sizeBytes: number;
  samples: number;
}

/** What an index says, with the keys kept as one UTF-8 blob (a key is decoded only when asked for). */
export interface DatasetIndex {
  formatVersion: number;
  shards: ShardEntry[];
  samples: SampleEntry[];
  keyOffsets: Uint32Array;
  keyLengths: Uint32Array;
  keys: Buffer;
  totalSampleBytes: number;
}

function invalid(message: string): StripeError {
  return new StripeError('DATASET_INDEX_INVALID', message);
}

function u64(buf: Buffer, at: number, what: string): number {
  const value = buf.readBigUInt64LE(at);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw invalid(`${what} ${value} is too large`);
  return Number(value);
}

/** Encodes samples (already in ascending key order) and shard sizes into index bytes. */
export function encodeIndex(shards: ShardEntry[], samples: (SampleEntry & { key: string })[]): Buffer {
  const keyBytes = samples.map((s) => Buffer.from(s.key, 'utf8'));
  const keysLength = keyBytes.reduce((n, k) => n + k.length, 0);
  const bodyStart = HEADER_BYTES;
  const samplesStart = bodyStart + shards.length * SHARD_ENTRY_BYTES;
  const keysStart = samplesStart + samples.length * SAMPLE_ENTRY_BYTES;
  const out = Buffer.alloc(keysStart + keysLength);
  shards.forEach((s, i) => {
    out.writeBigUInt64LE(BigInt(s.sizeBytes), bodyStart + i * SHARD_ENTRY_BYTES);
    out.writeUInt32LE(s.samples, bodyStart + i * SHARD_ENTRY_BYTES + 8);
  });
  let keyOffset = 0;
  let total = 0;
  samples.forEach((s, i) => {
    const at = samplesStart + i * SAMPLE_ENTRY_BYTES;
    const key = keyBytes[i] as Buffer;
    out.writeUInt32LE(s.shard, at);
    out.writeUInt32LE(s.crc32c >>> 0, at + 4);
    out.writeBigUInt64LE(BigInt(s.offsetBytes), at + 8);
    out.writeBigUInt64LE(BigInt(s.lengthBytes), at + 16);
    out.writeUInt32LE(keyOffset, at + 24);
    out.writeUInt32LE(key.length, at + 28);
    key.copy(out, keysStart + keyOffset);
    keyOffset += key.length;
    total += s.lengthBytes;
  });
  out.write(INDEX_MAGIC, 0, 'latin1');
  out.writeUInt32LE(FORMAT_VERSION, 8);
  out.writeUInt32LE(HEADER_BYTES, 12);
  out.writeBigUInt64LE(BigInt(samples.length), 16);
  out.writeUInt32LE(shards.length, 24);
  out.writeUInt32LE(SAMPLE_ENTRY_BYTES, 28);
  out.writeBigUInt64LE(BigInt(keysLength), 32);
  out.writeBigUInt64LE(BigInt(total), 40);
  out.writeUInt32LE(crc32c(out.subarray(HEADER_BYTES)), 48);
  out.writeUInt32LE(FLAG_KEYS_SORTED, 52);
  out.writeUInt32LE(crc32c(out.subarray(0, 60)), 60);
  // Check the pair: what was written decodes to what was given.
  const back = decodeIndex(out);
  if (back.samples.length !== samples.length || back.totalSampleBytes !== total)
    throw new Error('dataset index did not decode to what was encoded');
  return out;
}

interface Header {
  samples: number;
  shards: number;
  keysBytes: number;
  totalSampleBytes: number;
  bodyCrc: number;
}

/** The header, checked: magic, version, its own crc32c, and counts within the limits. */
export function decodeHeader(buf: Buffer): Header {
  if (buf.length < HEADER_BYTES)
    throw invalid(`the index holds ${buf.length} bytes, less than its ${HEADER_BYTES}-byte header`);
  if (buf.toString('latin1', 0, 8) !== INDEX_MAGIC)
    throw invalid(`the index does not start with ${INDEX_MAGIC}: not a stripefs dataset index`);
  const version = buf.readUInt32LE(8);
  if (crc32c(buf.subarray(0, 60)) !== buf.readUInt32LE(60))
    throw invalid('the index header fails its crc32c');
  if (version !== FORMAT_VERSION)
    throw new StripeError(
      'DATASET_FORMAT_UNSUPPORTED',
      `the index has format version ${version}; this stripefs reads version ${FORMAT_VERSION} (upgrade stripefs, or pack the dataset again)`,
      { formatVersion: version },
    );
  if (buf.readUInt32LE(12) !== HEADER_BYTES || buf.readUInt32LE(28) !== SAMPLE_ENTRY_BYTES)
    throw invalid('the index header declares other table sizes than format version 1');
  const header = {
    samples: u64(buf, 16, 'sample count'),
    shards: buf.readUInt32LE(24),
    keysBytes: u64(buf, 32, 'key bytes'),
    totalSampleBytes: u64(buf, 40, 'sample bytes'),
    bodyCrc: buf.readUInt32LE(48),
  };
  if (header.samples > DATASET_LIMITS.samplesMax || header.shards > DATASET_LIMITS.shardsMax)
    throw invalid(
      `the index declares ${header.samples} samples in ${header.shards} shards: beyond the limits`,
    );
  if ((buf.readUInt32LE(52) & FLAG_KEYS_SORTED) === 0)
    throw invalid('the index does not keep its keys sorted');
  return header;
}

/** The index file's whole size a header declares. */
export function indexBytesOf(header: Header): number {
  return (
    HEADER_BYTES + header.shards * SHARD_ENTRY_BYTES + header.samples * SAMPLE_ENTRY_BYTES + header.keysBytes
  );
}

/** Decodes and checks a whole index (header, crc32c of the rest, every entry against its shard). */
export function decodeIndex(buf: Buffer): DatasetIndex {
  const header = decodeHeader(buf);
  const expected = indexBytesOf(header);
  if (buf.length !== expected)
    throw invalid(`the index holds ${buf.length} bytes; its header declares ${expected}`);
  if (crc32c(buf.subarray(HEADER_BYTES)) !== header.bodyCrc)
    throw invalid('the index tables fail their crc32c');
  const shards: ShardEntry[] = [];
  for (let i = 0; i < header.shards; i++) {
    const at = HEADER_BYTES + i * SHARD_ENTRY_BYTES;
    shards.push({ sizeBytes: u64(buf, at, `shard ${i} size`), samples: buf.readUInt32LE(at + 8) });
  }
  const samplesStart = HEADER_BYTES + header.shards * SHARD_ENTRY_BYTES;
  const keysStart = samplesStart + header.samples * SAMPLE_ENTRY_BYTES;
  const keys = buf.subarray(keysStart);
  const keyOffsets = new Uint32Array(header.samples);
  const keyLengths = new Uint32Array(header.samples);
  const samples: SampleEntry[] = new Array(header.samples);
  let total = 0;
  for (let i = 0; i < header.samples; i++) {
    const at = samplesStart + i * SAMPLE_ENTRY_BYTES;
    const sample = {
      shard: buf.readUInt32LE(at),
      crc32c: buf.readUInt32LE(at + 4),
      offsetBytes: u64(buf, at + 8, `sample ${i} offset`),
      lengthBytes: u64(buf, at + 16, `sample ${i} length`),
    };
    const keyOffset = buf.readUInt32LE(at + 24);
    const keyLength = buf.readUInt32LE(at + 28);
    keyOffsets[i] = keyOffset;
    keyLengths[i] = keyLength;
    checkSample(i, sample, shards, keyOffset + keyLength, keys.length);
    if (i > 0 && compareKeys(keys, keyOffsets, keyLengths, i - 1, i) >= 0)
      throw invalid(`sample ${i}'s key does not sort after sample ${i - 1}'s`);
    samples[i] = sample;
    total += sample.lengthBytes;
  }
  if (total !== header.totalSampleBytes)
    throw invalid(`the samples hold ${total} bytes; the header declares ${header.totalSampleBytes}`);
  return {
    formatVersion: FORMAT_VERSION,
    shards,
    samples,
    keyOffsets,
    keyLengths,
    keys,
    totalSampleBytes: total,
  };
}

function checkSample(
  i: number,
  s: SampleEntry,
  shards: ShardEntry[],
  keyEnd: number,
  keysBytes: number,
): void {
  const shard = shards[s.shard];
  if (!shard) throw invalid(`sample ${i} names shard ${s.shard} of ${shards.length}`);
  if (s.lengthBytes > DATASET_LIMITS.sampleBytesMax || s.offsetBytes + s.lengthBytes > shard.sizeBytes)
    throw invalid(`sample ${i} (${s.lengthBytes} bytes at ${s.offsetBytes}) lies outside shard ${s.shard}`);
  if (keyEnd > keysBytes) throw invalid(`sample ${i}'s key lies outside the key bytes`);
}

/** Byte order of keys a and b (negative: a first). */
export function compareKeys(
  keys: Buffer,
  offsets: Uint32Array,
  lengths: Uint32Array,
  a: number,
  b: number,
): number {
  const oa = offsets[a] as number;
  const ob = offsets[b] as number;
  return Buffer.compare(
    keys.subarray(oa, oa + (lengths[a] as number)),
    keys.subarray(ob, ob + (lengths[b] as number)),
  );
}

/** Sample i's key. */
export function keyOf(index: DatasetIndex, i: number): string {
  const at = index.keyOffsets[i] as number;
  return index.keys.toString('utf8', at, at + (index.keyLengths[i] as number));
}

/** The sample of `key` (binary search over the sorted keys), or -1. */
export function findKey(index: DatasetIndex, key: string): number {
  const wanted = Buffer.from(key, 'utf8');
  let low = 0;
  let high = index.samples.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = index.keyOffsets[mid] as number;
    const order = Buffer.compare(index.keys.subarray(at, at + (index.keyLengths[mid] as number)), wanted);
    if (order === 0) return mid;
    if (order < 0) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}
