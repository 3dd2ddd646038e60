// Coalesces the small pieces a network stream delivers (gRPC messages) into
// large positional writes, and writes pieces that are already large (the bulk
// path stages whole MiBs straight from the socket) without another copy,
// several contiguous ones per writev, with a bounded number of writes in
// flight so the disk works while the next bytes arrive. Staging buffers come
// from a shared pool and go back once their write has finished.
import type { FileHandle } from 'node:fs/promises';
import { DATA_BUFFER_BYTES, dataBuffers } from './buffers.js';

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

  constructor(private readonly fh: FileHandle) {}

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

  /** Writes `buffers` back to back at `position`, retrying short writes. */
  private async writeAll(buffers: Buffer[], position: number): Promise<void> {
    let rest = buffers;
    while (rest.length > 0) {
      const { bytesWritten } =
        rest.length === 1
          ? await this.fh.write(rest[0] as Buffer, 0, (rest[0] as Buffer).length, position)
          : await this.fh.writev(rest, position);
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
