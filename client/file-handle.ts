// An open file, shaped like node:fs/promises FileHandle: read/write at a
// position (or the current one), sync, close. sync() and close() return only
// when every write is acknowledged by every copy and flushed (fsync) at the
// OSSs, then commit size and mtime at the MDS.
import { StripeError } from '../common/errors.js';
import type { ClientContext } from './context.js';
import { FileReader } from './file-reader.js';
import { FileWriter } from './file-writer.js';
import type { FileLayout } from './layout.js';
import { checkTruncateSize, truncateObjects } from './truncate.js';

export type OpenFlags = 'r' | 'r+' | 'w' | 'wx' | 'a';

export class StripeFileHandle {
  private position = 0;
  private sizeBytes: number;
  private readonly reader: FileReader;
  private writer: FileWriter | undefined;
  private closed = false;
  private changed = false;
  /** End of the furthest byte this handle wrote (what a grow-only handle commits). */
  private writtenEndBytes = 0;

  constructor(
    private readonly ctx: ClientContext,
    readonly inode: number,
    readonly fileLayout: FileLayout,
    initialSizeBytes: number,
    readonly flags: OpenFlags,
    /** The file's commit count when it was opened (Attr.change). */
    change = 0,
    /**
     * Commit only the end this handle wrote, never shrinking the file: one of several handles that
     * fill disjoint ranges of one file and close in any order.
     */
    private readonly growOnly = false,
    /** Unacknowledged bytes this handle may have in flight (default: the client's writeBehindBytesMax). */
    private readonly writeBehindBytesMax = ctx.limits.writeBehindBytesMax,
  ) {
    this.sizeBytes = initialSizeBytes;
    this.reader = new FileReader(ctx, inode, fileLayout, () => this.sizeBytes, change);
    if (flags !== 'r') this.writer = this.newWriter(initialSizeBytes);
    if (flags === 'a') this.position = initialSizeBytes;
  }

  private newWriter(sizeBytes: number): FileWriter {
    return new FileWriter(
      this.ctx,
      this.inode,
      this.fileLayout,
      sizeBytes,
      (position, length) => this.reader.read(position, length),
      this.writeBehindBytesMax,
    );
  }

  get size(): number {
    return this.sizeBytes;
  }

  private assertOpen(): void {
    if (this.closed) throw new StripeError('REQ_INVALID', 'file handle is closed');
  }

  async read(
    buffer: Uint8Array,
    offset = 0,
    length = buffer.length - offset,
    position: number | null = null,
  ): Promise<{ bytesRead: number; buffer: Uint8Array }> {
    this.assertOpen();
    if (offset < 0 || length < 0 || offset + length > buffer.length)
      throw new RangeError('read outside the buffer');
    // Read-your-writes: what this handle wrote is sent and acknowledged first.
    if (this.writer?.dirty) await this.writer.flush();
    const at = position ?? this.position;
    const started = performance.now();
    const bytesRead = await this.reader.readInto(buffer, offset, at, length);
    this.ctx.counters.latencies.record('read', performance.now() - started);
    if (position === null) this.position += bytesRead;
    return { bytesRead, buffer };
  }

  async write(
    buffer: Uint8Array,
    offset = 0,
    length = buffer.length - offset,
    position: number | null = null,
  ): Promise<{ bytesWritten: number; buffer: Uint8Array }> {
    const { at, data, writer } = this.prepareWrite(buffer, offset, length, position);
    await writer.write(data, at);
    this.wrote(at, length, position);
    return { bytesWritten: length, buffer };
  }

  /**
   * Writes `buffer` at `position` without copying it (raid0 and replicated; ec copies as write()
   * does). The handle keeps views of `buffer` until `released` settles: the caller must not change
   * those bytes before. Each stripe unit the range covers is sent as one request, with no
   * aggregation, so whole, unit-aligned buffers make whole requests.
   */
  async writeLent(buffer: Uint8Array, position: number): Promise<{ released: Promise<void> }> {
    const { at, data, writer } = this.prepareWrite(buffer, 0, buffer.length, position);
    const lent = await writer.writeLent(data, at);
    this.wrote(at, buffer.length, position);
    return lent;
  }

  private prepareWrite(buffer: Uint8Array, offset: number, length: number, position: number | null) {
    this.assertOpen();
    if (!this.writer) throw new StripeError('REQ_INVALID', 'file handle is open read-only');
    if (offset < 0 || length < 0 || offset + length > buffer.length)
      throw new RangeError('write outside the buffer');
    const at = this.flags === 'a' ? this.sizeBytes : (position ?? this.position);
    this.reader.invalidate(at, length);
    return { at, data: buffer.subarray(offset, offset + length), writer: this.writer };
  }

  private wrote(at: number, length: number, position: number | null): void {
    this.sizeBytes = Math.max(this.sizeBytes, at + length);
    this.writtenEndBytes = Math.max(this.writtenEndBytes, at + length);
    this.changed = true;
    if (position === null || this.flags === 'a') this.position = at + length;
  }

  /** Everything written is acknowledged, fsynced on every OST, and size and mtime are committed. */
  async sync(): Promise<void> {
    this.assertOpen();
    if (!this.writer) return;
    const started = performance.now();
    await this.writer.flush();
    const touched = [...this.writer.touched.values()];
    this.writer.touched.clear();
    await this.ctx.io.flushAll(touched);
    if (this.changed) {
      const size = this.growOnly ? this.writtenEndBytes : this.sizeBytes;
      await this.ctx.mds.commit(this.inode, size, Date.now(), this.growOnly);
      this.changed = false;
    }
    this.ctx.counters.latencies.record('sync', performance.now() - started);
  }

  /**
   * ftruncate: what this handle wrote is acknowledged first, then objects past the new
   * end are cut on every copy and flushed, then the size is committed. The position
   * stays. ec files only shrink to a stripe boundary (client/truncate.ts).
   */
  async truncate(sizeBytes: number): Promise<void> {
    this.assertOpen();
    if (!this.writer) throw new StripeError('REQ_INVALID', 'file handle is open read-only');
    if (this.growOnly) throw new StripeError('REQ_INVALID', 'a grow-only handle cannot truncate');
    checkTruncateSize(sizeBytes);
    await this.writer.flush();
    const cut = await truncateObjects(this.ctx, this.inode, this.fileLayout, this.sizeBytes, sizeBytes);
    await this.ctx.io.flushAll([...this.writer.touched.values(), ...cut]);
    const from = Math.min(this.sizeBytes, sizeBytes);
    this.reader.invalidate(from, Math.max(this.sizeBytes, sizeBytes) - from);
    this.sizeBytes = sizeBytes;
    this.writtenEndBytes = Math.min(this.writtenEndBytes, sizeBytes);
    // A fresh writer: an ec writer's buffered last stripe and append point are the old file's.
    this.writer = this.newWriter(sizeBytes);
    await this.ctx.mds.commit(this.inode, sizeBytes, Date.now());
    this.changed = false;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.sync();
    } finally {
      this.closed = true;
    }
  }
}
