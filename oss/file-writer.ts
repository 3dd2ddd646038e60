// Coalesces the small pieces a network stream delivers (gRPC messages) into
// large positional writes, and writes pieces that are already large (the bulk
// path stages whole MiBs straight from the socket) without another copy, with
// a bounded number of writes in flight so the disk works while the next
// bytes arrive. Staging buffers come from a shared pool and go back once
// their write has finished.
import type { FileHandle } from 'node:fs/promises';
import { DATA_BUFFER_BYTES, dataBuffers } from './buffers.js';

export const STAGING_BYTES = DATA_BUFFER_BYTES;
export const WRITES_IN_FLIGHT_MAX = 4;
const stagingPool = dataBuffers;

export class FileWriter {
  private staging: Buffer | undefined;
  private stagingFill = 0;
  private stagingPosition = 0;
  private readonly inFlight = new Set<Promise<unknown>>();
  private failure: unknown;

  constructor(private readonly fh: FileHandle) {}

  /** Copies `data` into staging; it may be reused as soon as this returns. */
  async append(data: Buffer, position: number): Promise<void> {
    if (this.failure) throw this.failure;
    let at = 0;
    while (at < data.length) {
      if (this.staging && this.stagingPosition + this.stagingFill !== position + at) await this.spill();
      if (!this.staging) {
        this.staging = stagingPool.take();
        this.stagingFill = 0;
        this.stagingPosition = position + at;
      }
      const take = Math.min(data.length - at, STAGING_BYTES - this.stagingFill);
      data.copy(this.staging, this.stagingFill, at, at + take);
      this.stagingFill += take;
      at += take;
      if (this.stagingFill === STAGING_BYTES) await this.spill();
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
    await this.spill();
    await this.launch(data, data.length, position, release);
  }

  private async spill(): Promise<void> {
    const buf = this.staging;
    if (!buf || this.stagingFill === 0) return;
    const length = this.stagingFill;
    const position = this.stagingPosition;
    this.staging = undefined;
    await this.launch(buf, length, position, () => stagingPool.give(buf));
  }

  private async launch(buf: Buffer, length: number, position: number, release: () => void): Promise<void> {
    while (this.inFlight.size >= WRITES_IN_FLIGHT_MAX) await Promise.race(this.inFlight);
    const write = this.writeAll(buf, length, position)
      .catch((err: unknown) => {
        this.failure ??= err;
      })
      .finally(release);
    this.inFlight.add(write);
    void write.finally(() => this.inFlight.delete(write));
  }

  private async writeAll(buf: Buffer, length: number, position: number): Promise<void> {
    let done = 0;
    while (done < length) {
      const { bytesWritten } = await this.fh.write(buf, done, length - done, position + done);
      done += bytesWritten;
    }
  }

  /** Writes what is staged and waits for every write; throws the first failure. */
  async finish(): Promise<void> {
    await this.spill();
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure;
  }

  /** Waits for writes in flight without writing what is staged (after a failure); frees the staging. */
  async abandon(): Promise<void> {
    const buf = this.staging;
    this.staging = undefined;
    await Promise.all(this.inFlight);
    if (buf) stagingPool.give(buf);
  }
}
