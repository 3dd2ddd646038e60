// Coalesces the small pieces a network stream delivers (64 KiB segments,
// gRPC messages) into large positional writes, with a bounded number of
// writes in flight so the disk works while the next bytes arrive.
import type { FileHandle } from 'node:fs/promises';

export const STAGING_BYTES = 1024 * 1024;
export const WRITES_IN_FLIGHT_MAX = 2;

export class FileWriter {
  private staging: Buffer | undefined;
  private stagingFill = 0;
  private stagingPosition = 0;
  private readonly inFlight = new Set<Promise<unknown>>();
  private failure: unknown;

  constructor(private readonly fh: FileHandle) {}

  async append(data: Buffer, position: number): Promise<void> {
    if (this.failure) throw this.failure;
    let at = 0;
    while (at < data.length) {
      if (this.staging && this.stagingPosition + this.stagingFill !== position + at) await this.spill();
      if (!this.staging) {
        this.staging = Buffer.allocUnsafe(STAGING_BYTES);
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

  private async spill(): Promise<void> {
    const buf = this.staging;
    if (!buf || this.stagingFill === 0) return;
    const length = this.stagingFill;
    const position = this.stagingPosition;
    this.staging = undefined;
    while (this.inFlight.size >= WRITES_IN_FLIGHT_MAX) await Promise.race(this.inFlight);
    const write = this.writeAll(buf, length, position).catch((err: unknown) => {
      this.failure ??= err;
    });
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
}
