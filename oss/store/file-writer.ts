// Coalesces the small pieces a network stream delivers (gRPC messages) into
// large positional writes, and writes pieces that are already large (the bulk
// path stages whole MiBs straight from the socket) without another copy,
// several contiguous ones per writev, with a bounded number of writes in
// flight so the disk works while the next bytes arrive. Staging buffers come
// from a shared pool and go back once their write has finished.
//
// With a second handle opened with O_DIRECT, runs of whole 4 KiB blocks in
// page-aligned buffers at aligned file positions bypass the page cache: on
// these VMs writing new data through the page cache is the slowest part of
// the path (first touch of fresh cache pages), O_DIRECT is 2-3x faster (see
// bench/oss.ts, docs/oss.md). The unaligned rest goes through the page cache;
// the kernel keeps the two coherent.
import type { FileHandle } from 'node:fs/promises';
import { BUFFER_ALIGN_BYTES, isAligned } from '../../common/bulk/buffer-pool.js';
import { DATA_BUFFER_BYTES, dataBuffers } from '../buffers.js';

export const STAGING_BYTES = DATA_BUFFER_BYTES;
export const WRITES_IN_FLIGHT_MAX = 4;
/** Contiguous owned pieces gathered into one writev (one hand-off to the thread pool). */
export const WRITEV_BYTES_MAX = 4 * 1024 * 1024;
const stagingPool = dataBuffers;

interface Batch {
  position: number;
  bytes: number;
  buffers: Buffer[];
  releases: (() => void)[];
}

export class FileWriter {
  private staging: Buffer | undefined;
  private stagingFill = 0;
  private stagingPosition = 0;
  private batch: Batch | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private failure: unknown;

  /** Bytes written with O_DIRECT and through the page cache (for metrics and tests). */
  directBytes = 0;
  pagedBytes = 0;

  constructor(
    private readonly fh: FileHandle,
    private readonly direct?: FileHandle,
  ) {}

  /** Copies `data` into staging; it may be reused as soon as this returns. */
  async append(data: Buffer, position: number): Promise<void> {
    if (this.failure) throw this.failure;
    await this.launchBatch();
    let at = 0;
    while (at < data.length) {
      if (this.staging && this.stagingPosition + this.stagingFill !== position + at)
        await this.spillStaging();
      if (!this.staging) {
        this.staging = stagingPool.take();
        this.stagingFill = 0;
        this.stagingPosition = position + at;
      }
      const take = Math.min(data.length - at, STAGING_BYTES - this.stagingFill);
      data.copy(this.staging, this.stagingFill, at, at + take);
      this.stagingFill += take;
      at += take;
      if (this.stagingFill === STAGING_BYTES) await this.spillStaging();
    }
  }

  /**
   * Writes `data` as it is (no copy); the caller must not touch it until
   * `release` is called, which happens once its write has finished (or failed).
   */
  async appendOwned(data: Buffer, position: number, release: () => void): Promise<void> {
    if (this.failure) {
      release();
      throw this.failure;
    }
    await this.spillStaging();
    const batch = this.batch;
    if (batch && batch.position + batch.bytes === position && batch.bytes + data.length <= WRITEV_BYTES_MAX) {
      batch.buffers.push(data);
      batch.releases.push(release);
      batch.bytes += data.length;
    } else {
      await this.launchBatch();
      this.batch = { position, bytes: data.length, buffers: [data], releases: [release] };
    }
    if (this.batch && this.batch.bytes >= WRITEV_BYTES_MAX) await this.launchBatch();
  }

  private async spillStaging(): Promise<void> {
    const buf = this.staging;
    if (!buf || this.stagingFill === 0) return;
    const length = this.stagingFill;
    const position = this.stagingPosition;
    this.staging = undefined;
    await this.launch(
      () => this.writeAll([buf.subarray(0, length)], position),
      [() => stagingPool.give(buf)],
    );
  }

  private async launchBatch(): Promise<void> {
    const batch = this.batch;
    if (!batch) return;
    this.batch = undefined;
    await this.launch(() => this.writeAll(batch.buffers, batch.position), batch.releases);
  }

  private async launch(write: () => Promise<void>, releases: (() => void)[]): Promise<void> {
    while (this.inFlight.size >= WRITES_IN_FLIGHT_MAX) await Promise.race(this.inFlight);
    const running = write()
      .catch((err: unknown) => {
        this.failure ??= err;
      })
      .finally(() => {
        for (const release of releases) release();
      });
    this.inFlight.add(running);
    void running.finally(() => this.inFlight.delete(running));
  }

  /**
   * Writes `buffers` back to back at `position`: the leading buffers that
   * O_DIRECT accepts (aligned memory, whole blocks, aligned position) go
   * through the direct handle, the rest through the page cache.
   */
  private async writeAll(buffers: Buffer[], position: number): Promise<void> {
    if (this.direct && position % BUFFER_ALIGN_BYTES === 0) {
      let n = 0;
      let bytes = 0;
      while (n < buffers.length) {
        const b = buffers[n] as Buffer;
        if (!isAligned(b) || b.length % BUFFER_ALIGN_BYTES !== 0) break;
        bytes += b.length;
        n++;
      }
      if (n > 0) {
        await this.writeRun(this.direct, buffers.slice(0, n), position);
        this.directBytes += bytes;
        buffers = buffers.slice(n);
        position += bytes;
      }
    }
    if (buffers.length === 0) return;
    await this.writeRun(this.fh, buffers, position);
    for (const b of buffers) this.pagedBytes += b.length;
  }

  /** Writes `buffers` back to back at `position` through fh, retrying short writes. */
  private async writeRun(fh: FileHandle, buffers: Buffer[], position: number): Promise<void> {
    let rest = buffers;
    while (rest.length > 0) {
      // A short O_DIRECT write leaves an unaligned rest: finish it through the page cache.
      if (rest !== buffers && fh === this.direct) fh = this.fh;
      const { bytesWritten } =
        rest.length === 1
          ? await fh.write(rest[0] as Buffer, 0, (rest[0] as Buffer).length, position)
          : await fh.writev(rest, position);
      position += bytesWritten;
      let skip = bytesWritten;
      while (rest.length > 0 && skip >= (rest[0] as Buffer).length) {
        skip -= (rest[0] as Buffer).length;
        rest = rest.slice(1);
      }
      if (skip > 0) rest = [(rest[0] as Buffer).subarray(skip), ...rest.slice(1)];
      if (bytesWritten === 0 && rest.length > 0) throw new Error('write made no progress');
    }
  }

  /** Writes what is staged and waits for every write; throws the first failure. */
  async finish(): Promise<void> {
    await this.spillStaging();
    await this.launchBatch();
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
  }

  /** Waits for writes in flight without writing what is staged (after a failure); frees what it holds. */
  async abandon(): Promise<void> {
    const buf = this.staging;
    this.staging = undefined;
    const batch = this.batch;
    this.batch = undefined;
    await Promise.all(this.inFlight);
    if (buf) stagingPool.give(buf);
    for (const release of batch?.releases ?? []) release();
  }
}
