// Packs samples into a dataset: consecutive samples (in ascending key order)
// fill shard files of about shardBytes, several shards written at once, each
// sample's crc32c taken from the bytes as they are written; the index goes
// last. Everything is written into a staging folder beside DEST that is
// renamed to DEST at the end (refusing to replace anything), so DEST is
// either absent or a whole dataset, and a failed pack removes its staging.
import { randomBytes } from 'node:crypto';
import { crc32c } from '../../common/checksum.js';
import { StripeError } from '../../common/errors.js';
import { Semaphore } from '../../common/semaphore.js';
import type { StripeFileHandle } from '../file-handle.js';
import type { LayoutInput } from '../layout.js';
import { encodeIndex, INDEX_NAME, type SampleEntry, type ShardEntry, shardName } from './format.js';
import { DATASET_LIMITS } from './limits.js';

/** One sample to pack: its key, its size (known before its bytes) and how to read it. */
export interface PackSample {
  key: string;
  sizeBytes: number;
  read(): Promise<Buffer>;
}

/** What packing needs of a StripeClient. */
export interface DatasetWriteFiles {
  stat(path: string): Promise<unknown>;
  mkdir(path: string, options?: { layout?: LayoutInput }): Promise<void>;
  open(path: string, flags: 'wx'): Promise<StripeFileHandle>;
  writeFile(path: string, data: Uint8Array): Promise<void>;
  rename(from: string, to: string, options?: { noReplace?: boolean }): Promise<void>;
  readdir(path: string): Promise<string[]>;
  unlink(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
}

export interface PackOptions {
  shardBytes?: number;
  /** Layout of the shards and the index (default: DEST's parent's default layout). */
  layout?: LayoutInput;
  shardsWritingMax?: number;
  /** Called as samples are written: their bytes and count. */
  onProgress?: (bytes: number, samples: number) => void;
}

export interface PackReport {
  path: string;
  samples: number;
  shards: number;
  bytes: number;
  indexBytes: number;
}

type Planned = PackSample & { keyBytes: Buffer };

function sourceInvalid(message: string, details: Record<string, unknown> = {}): StripeError {
  return new StripeError('DATASET_SOURCE_INVALID', message, details);
}

/** The samples in key order, checked: at least one, keys non-empty, unique and within the limits. */
function checkSamples(samples: readonly PackSample[]): Planned[] {
  if (samples.length === 0) throw sourceInvalid('nothing to pack: no samples (an empty source folder?)');
  if (samples.length > DATASET_LIMITS.samplesMax)
    throw sourceInvalid(`${samples.length} samples: at most ${DATASET_LIMITS.samplesMax} a dataset`);
  const planned = samples.map((s) => ({ ...s, keyBytes: Buffer.from(s.key, 'utf8') }));
  planned.sort((a, b) => Buffer.compare(a.keyBytes, b.keyBytes));
  planned.forEach((s, i) => {
    if (s.keyBytes.length === 0 || s.keyBytes.length > DATASET_LIMITS.keyBytesMax)
      throw sourceInvalid(
        `sample key ${JSON.stringify(s.key)} is empty or longer than ${DATASET_LIMITS.keyBytesMax} bytes`,
      );
    if (!Number.isSafeInteger(s.sizeBytes) || s.sizeBytes < 0 || s.sizeBytes > DATASET_LIMITS.sampleBytesMax)
      throw sourceInvalid(
        `sample ${s.key} has ${s.sizeBytes} bytes: at most ${DATASET_LIMITS.sampleBytesMax}`,
        { key: s.key },
      );
    if (i > 0 && (planned[i - 1] as Planned).keyBytes.equals(s.keyBytes))
      throw sourceInvalid(`sample key ${s.key} appears twice`, { key: s.key });
  });
  return planned;
}

/** Consecutive samples per shard: a shard takes samples until it holds shardBytes (at least one each). */
function planShards(samples: readonly Planned[], shardBytes: number): { first: number; end: number }[] {
  const shards: { first: number; end: number }[] = [];
  let first = 0;
  let bytes = 0;
  samples.forEach((s, i) => {
    if (i > first && bytes + s.sizeBytes > shardBytes) {
      shards.push({ first, end: i });
      first = i;
      bytes = 0;
    }
    bytes += s.sizeBytes;
  });
  shards.push({ first, end: samples.length });
  return shards;
}

export async function packDataset(
  files: DatasetWriteFiles,
  dest: string,
  samples: readonly PackSample[],
  options: PackOptions = {},
): Promise<PackReport> {
  const shardBytes = options.shardBytes ?? DATASET_LIMITS.shardBytesDefault;
  if (!Number.isSafeInteger(shardBytes) || shardBytes < 1)
    throw new StripeError('REQ_INVALID', `shardBytes must be a positive integer, got ${shardBytes}`);
  const planned = checkSamples(samples);
  const target = dest.replace(/\/+$/, '');
  await refuseExisting(files, target);
  const staging = `${target}.packing-${randomBytes(4).toString('hex')}`;
  await files.mkdir(staging, options.layout ? { layout: options.layout } : {});
  try {
    const plan = planShards(planned, shardBytes);
    const entries: (SampleEntry & { key: string })[] = new Array(planned.length);
    const shards: ShardEntry[] = new Array(plan.length);
    const gate = new Semaphore(options.shardsWritingMax ?? DATASET_LIMITS.shardsWritingMax);
    const writes = plan.map((range, n) =>
      gate.run(async () => {
        shards[n] = await writeShard(
          files,
          `${staging}/${shardName(n)}`,
          n,
          planned,
          range,
          entries,
          options,
        );
      }),
    );
    for (const settled of await Promise.allSettled(writes))
      if (settled.status === 'rejected') throw settled.reason;
    const index = encodeIndex(shards, entries);
    await files.writeFile(`${staging}/${INDEX_NAME}`, index);
    await files.rename(staging, target, { noReplace: true });
    const bytes = entries.reduce((n, e) => n + e.lengthBytes, 0);
    return { path: target, samples: entries.length, shards: shards.length, bytes, indexBytes: index.length };
  } catch (err) {
    await removeStaging(files, staging);
    throw err;
  }
}

async function refuseExisting(files: DatasetWriteFiles, target: string): Promise<void> {
  const found = await files.stat(target).then(
    () => true,
    (err: unknown) => {
      if (err instanceof StripeError && err.code === 'NS_NOT_FOUND') return false;
      throw err;
    },
  );
  if (found)
    throw new StripeError('NS_EXISTS', `${target} exists: pack into a new name (nothing was written)`, {
      path: target,
    });
}

/** Writes samples [first, end) into one shard, reading a few ahead; fills their index entries. */
async function writeShard(
  files: DatasetWriteFiles,
  path: string,
  shard: number,
  samples: readonly Planned[],
  range: { first: number; end: number },
  entries: (SampleEntry & { key: string })[],
  options: PackOptions,
): Promise<ShardEntry> {
  const handle = await files.open(path, 'wx');
  let offsetBytes = 0;
  try {
    const ahead: Promise<Buffer>[] = [];
    let next = range.first;
    const readNext = () => {
      const s = samples[next++] as Planned;
      const reading = s.read();
      // Awaited in order below; the catch keeps an early failure from being unhandled meanwhile.
      reading.catch(() => undefined);
      ahead.push(reading);
    };
    while (next < range.end && ahead.length < DATASET_LIMITS.readsAheadPerShardMax) readNext();
    for (let i = range.first; i < range.end; i++) {
      const s = samples[i] as Planned;
      const bytes = await (ahead.shift() as Promise<Buffer>);
      if (next < range.end) readNext();
      if (bytes.length !== s.sizeBytes)
        throw sourceInvalid(
          `${s.key} changed while packing: ${bytes.length} bytes, ${s.sizeBytes} when listed`,
          { key: s.key },
        );
      await handle.write(bytes, 0, bytes.length, offsetBytes);
      entries[i] = { key: s.key, shard, offsetBytes, lengthBytes: bytes.length, crc32c: crc32c(bytes) };
      offsetBytes += bytes.length;
      options.onProgress?.(bytes.length, 1);
    }
  } finally {
    await handle.close();
  }
  return { sizeBytes: offsetBytes, samples: range.end - range.first };
}

/** Removes what a failed pack wrote (best effort: the failure that got here is the one reported). */
async function removeStaging(files: DatasetWriteFiles, staging: string): Promise<void> {
  try {
    const names = await files.readdir(staging);
    const gate = new Semaphore(DATASET_LIMITS.shardsWritingMax);
    await Promise.allSettled(names.map((name) => gate.run(() => files.unlink(`${staging}/${name}`))));
    await files.rmdir(staging);
  } catch {
    // Left behind: its name (DEST.packing-XXXX) says what it is; the pack's own error is reported.
  }
}
