// A packed dataset opened for reading: the index is read once, samples are
// read by index or key. getMany turns a batch into ranges of the shards
// (client/dataset/plan.ts), reads them through the shards' ordinary file
// handles with a bounded number in flight (so striping, the block cache,
// readahead and degraded reads are those of any file), and checks every
// sample against its crc32c before handing it out.
import { crc32c } from '../../common/checksum.js';
import { StripeError } from '../../common/errors.js';
import { Semaphore } from '../../common/semaphore.js';
import type { StripeFileHandle } from '../file-handle.js';
import {
  type DatasetIndex,
  decodeHeader,
  decodeIndex,
  findKey,
  HEADER_BYTES,
  INDEX_NAME,
  indexBytesOf,
  keyOf,
  type SampleEntry,
  shardName,
} from './format.js';
import { DATASET_LIMITS } from './limits.js';
import { type PlannedRange, planRanges } from './plan.js';

/** What the reader needs of a StripeClient. */
export interface DatasetFiles {
  open(path: string, flags: 'r'): Promise<StripeFileHandle>;
}

export interface DatasetReadOptions {
  /** Check each sample's crc32c before returning it (default true). */
  verifyCrc?: boolean;
  gapBytesMax?: number;
  rangeBytesMax?: number;
  rangesInFlightMax?: number;
}

export interface DatasetStats {
  /** Samples returned, ranges read, bytes read (the gaps included), samples that failed their crc32c. */
  samples: number;
  ranges: number;
  bytesRead: number;
  corrupt: number;
}

export interface SampleInfo extends SampleEntry {
  index: number;
  key: string;
}

function joinPath(dir: string, name: string): string {
  return `${dir.replace(/\/+$/, '')}/${name}`;
}

export class StripeDataset {
  private readonly handles = new Map<number, Promise<StripeFileHandle>>();
  private readonly options: Required<DatasetReadOptions>;
  readonly stats: DatasetStats = { samples: 0, ranges: 0, bytesRead: 0, corrupt: 0 };

  private constructor(
    private readonly files: DatasetFiles,
    readonly path: string,
    readonly index: DatasetIndex,
    options: DatasetReadOptions,
  ) {
    this.options = {
      verifyCrc: options.verifyCrc ?? true,
      gapBytesMax: options.gapBytesMax ?? DATASET_LIMITS.coalesceGapBytesMax,
      rangeBytesMax: options.rangeBytesMax ?? DATASET_LIMITS.rangeBytesMax,
      rangesInFlightMax: options.rangesInFlightMax ?? DATASET_LIMITS.rangesInFlightMax,
    };
  }

  /** Opens the dataset packed at `path` (a folder holding index.sfds and its shards). */
  static async open(
    files: DatasetFiles,
    path: string,
    options: DatasetReadOptions = {},
  ): Promise<StripeDataset> {
    return new StripeDataset(files, path, await readIndex(files, joinPath(path, INDEX_NAME)), options);
  }

  /** Samples in the dataset. */
  get length(): number {
    return this.index.samples.length;
  }

  get shardCount(): number {
    return this.index.shards.length;
  }

  key(i: number): string {
    this.checkIndex(i);
    return keyOf(this.index, i);
  }

  /** Where sample i lies and its crc32c. */
  sample(i: number): SampleInfo {
    this.checkIndex(i);
    return { ...(this.index.samples[i] as SampleEntry), index: i, key: keyOf(this.index, i) };
  }

  /** The index of `key`, or -1. */
  indexOf(key: string): number {
    return findKey(this.index, key);
  }

  async get(i: number): Promise<Buffer> {
    return (await this.getMany([i]))[0] as Buffer;
  }

  async getByKey(key: string): Promise<Buffer> {
    const i = this.indexOf(key);
    if (i < 0) throw new StripeError('DATASET_KEY_NOT_FOUND', `no sample ${key} in ${this.path}`, { key });
    return this.get(i);
  }

  /**
   * Samples `indices` in the order given (a duplicate is read once and returned at each place).
   * The buffers may be views of a larger range read: copy one to keep it long after the others.
   */
  async getMany(indices: readonly number[]): Promise<Buffer[]> {
    if (indices.length > DATASET_LIMITS.samplesPerCallMax)
      throw new StripeError(
        'REQ_INVALID',
        `getMany of ${indices.length} samples: at most ${DATASET_LIMITS.samplesPerCallMax} a call`,
      );
    for (const i of indices) this.checkIndex(i);
    const got = new Map<number, Buffer>();
    const ranges = planRanges(this.index.samples, indices, this.options);
    const gate = new Semaphore(this.options.rangesInFlightMax);
    const reads = ranges.map((range) =>
      gate.run(async () => {
        const bytes = await this.readRange(range);
        for (const m of range.members) {
          const data = bytes.subarray(m.atBytes, m.atBytes + m.lengthBytes);
          this.checkSample(m.sample, data);
          got.set(m.sample, data);
        }
      }),
    );
    // Every range settles before this returns or throws: none is left reading for nobody.
    for (const settled of await Promise.allSettled(reads))
      if (settled.status === 'rejected') throw settled.reason;
    this.stats.samples += indices.length;
    return indices.map((i) => got.get(i) as Buffer);
  }

  /** Reads every sample in shard order and checks its crc32c; bad ones are listed, never thrown. */
  async verify(onProgress?: (bytes: number) => void): Promise<DatasetVerifyReport> {
    const report: DatasetVerifyReport = { samples: this.length, bytes: 0, badCount: 0, bad: [], ok: true };
    const all = Array.from({ length: this.length }, (_, i) => i);
    const ranges = planRanges(this.index.samples, all, {
      gapBytesMax: DATASET_LIMITS.coalesceGapBytesMax,
      rangeBytesMax: DATASET_LIMITS.verifyRangeBytesMax,
    });
    const gate = new Semaphore(this.options.rangesInFlightMax);
    const bad = (sample: number, reason: string) => {
      report.badCount++;
      report.ok = false;
      if (report.bad.length < DATASET_LIMITS.badSamplesListedMax)
        report.bad.push({
          index: sample,
          key: keyOf(this.index, sample),
          shard: this.index.samples[sample]?.shard ?? -1,
          reason,
        });
    };
    await Promise.all(
      ranges.map((range) =>
        gate.run(async () => {
          const bytes = await this.readRange(range).catch((err: unknown) => err as Error);
          for (const m of range.members) {
            if (bytes instanceof Error)
              bad(m.sample, `${(bytes as StripeError).code ?? 'ERROR'}: ${bytes.message}`);
            else if (
              crc32c(bytes.subarray(m.atBytes, m.atBytes + m.lengthBytes)) !==
              this.index.samples[m.sample]?.crc32c
            )
              bad(m.sample, 'crc32c mismatch');
          }
          report.bytes += range.lengthBytes;
          onProgress?.(range.lengthBytes);
        }),
      ),
    );
    report.bad.sort((a, b) => a.index - b.index);
    return report;
  }

  /** Closes every shard handle. */
  async close(): Promise<void> {
    const handles = [...this.handles.values()];
    this.handles.clear();
    await Promise.allSettled(handles.map(async (h) => (await h).close()));
  }

  private checkIndex(i: number): void {
    if (!Number.isSafeInteger(i) || i < 0 || i >= this.length)
      throw new StripeError(
        'REQ_INVALID',
        `sample index ${i} is outside 0..${this.length - 1} of ${this.path}`,
      );
  }

  private checkSample(i: number, data: Buffer): void {
    if (!this.options.verifyCrc) return;
    if (crc32c(data) === this.index.samples[i]?.crc32c) return;
    this.stats.corrupt++;
    throw new StripeError(
      'DATASET_SAMPLE_CORRUPT',
      `sample ${i} (${keyOf(this.index, i)}) of ${this.path} fails its crc32c: run stripefs dataset verify ${this.path}`,
      { index: i, key: keyOf(this.index, i) },
    );
  }

  private shard(n: number): Promise<StripeFileHandle> {
    let handle = this.handles.get(n);
    if (!handle) {
      handle = this.files.open(joinPath(this.path, shardName(n)), 'r');
      // A failed open is not kept: the next read tries again.
      handle.catch(() => this.handles.delete(n));
      this.handles.set(n, handle);
    }
    return handle;
  }

  private async readRange(range: PlannedRange): Promise<Buffer> {
    const handle = await this.shard(range.shard);
    const out = Buffer.allocUnsafe(range.lengthBytes);
    const { bytesRead } = await handle.read(out, 0, range.lengthBytes, range.offsetBytes);
    this.stats.ranges++;
    this.stats.bytesRead += bytesRead;
    if (bytesRead !== range.lengthBytes)
      throw new StripeError(
        'DATASET_SAMPLE_CORRUPT',
        `${shardName(range.shard)} of ${this.path} ends at ${range.offsetBytes + bytesRead}, before the ${range.offsetBytes + range.lengthBytes} its index needs`,
        { shard: range.shard },
      );
    return out;
  }
}

export interface DatasetVerifyReport {
  samples: number;
  /** Bytes read (gaps between samples included). */
  bytes: number;
  ok: boolean;
  /** Samples that failed, all counted; the first DATASET_LIMITS.badSamplesListedMax listed. */
  badCount: number;
  bad: { index: number; key: string; shard: number; reason: string }[];
}

/** Reads and decodes an index: its header first, so a bad size is refused before the rest is read. */
async function readIndex(files: DatasetFiles, path: string): Promise<DatasetIndex> {
  const handle = await files.open(path, 'r').catch((err: unknown) => {
    if (err instanceof StripeError && err.code === 'NS_NOT_FOUND')
      throw new StripeError(
        'DATASET_INDEX_INVALID',
        `${path} does not exist: not a packed dataset, or its pack did not finish`,
        { path },
      );
    throw err;
  });
  try {
    const head = Buffer.alloc(HEADER_BYTES);
    await handle.read(head, 0, Math.min(HEADER_BYTES, handle.size), 0);
    const expected = indexBytesOf(decodeHeader(head.subarray(0, Math.min(HEADER_BYTES, handle.size))));
    if (expected > DATASET_LIMITS.indexBytesMax || expected !== handle.size)
      throw new StripeError(
        'DATASET_INDEX_INVALID',
        `${path} holds ${handle.size} bytes; its header declares ${expected}`,
        { path },
      );
    const all = Buffer.allocUnsafe(handle.size);
    await handle.read(all, 0, all.length, 0);
    return decodeIndex(all);
  } finally {
    await handle.close();
  }
}
