// An open file, shaped like node:fs/promises FileHandle: read/write at a
// position (or the current one), sync, close. sync() and close() return only
// when every write is acknowledged by every copy and flushed (fsync) at the
// OSSs, then commit size and mtime at the MDS. A file with a part on the MDS
// (dom) keeps that part in a DomPart and hands the reader and writer only the
// bytes past it, as a file of their own (offset - domBytes).
import { StripeError } from '../common/errors.js';
import type { ClientContext } from './context.js';
import { DomPart } from './dom-part.js';
import { FileReader } from './file-reader.js';
import { FileWriter } from './file-writer.js';
import type { Stat } from './index.js';
import type { FileLayout } from './layout.js';
import { checkTruncateSize, stripedBytesOf, truncateObjects } from './truncate.js';

export type OpenFlags = 'r' | 'r+' | 'w' | 'wx' | 'a';

export class StripeFileHandle {
  private position = 0;
  private sizeBytes: number;
  private readonly reader: FileReader;
  private writer: FileWriter | undefined;
  /** The file's part on the MDS (files whose layout has a dom component). */
  private readonly dom: DomPart | undefined;
  private closed = false;
  private changed = false;
  /** End of the furthest byte this handle wrote (what a grow-only handle commits). */
  private writtenEndBytes = 0;
  /**
   * The file's attributes as its open answered them (StripeClient.open sets them): the file this
   * handle reads, whatever its name names since, without a stat of its own.
   */
  opened: Stat | undefined = undefined;
  /**
   * The extended attribute the open was asked to read (StripeClient.open's `xattr`), as that open
   * read it: null when the file has none; undefined when none was asked for.
   */
  openedXattr: Buffer | null | undefined = undefined;

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
    /** dom: the bytes the open returned (undefined: ask the MDS when first needed); `path` names the file in errors. */
    domData?: Buffer,
    private readonly path = `inode ${inode}`,
    /** Read-only handles: this file version's name prefix in the disk cache (client/disk-cache.ts). */
    diskPrefix?: string,
    /** false: the reader fetches nothing ahead (its caller keeps large reads in flight itself). */
    readahead = true,
    /**
     * A grow-only handle whose close makes its writes durable but commits no size: the caller grows
     * the file once later (StripeClient.growTo), for many such handles.
     */
    private readonly deferSize = false,
  ) {
    this.sizeBytes = initialSizeBytes;
    this.reader = new FileReader(
      ctx,
      inode,
      fileLayout,
      () => stripedBytesOf(fileLayout, this.sizeBytes),
      change,
      flags === 'r' ? diskPrefix : undefined,
      readahead,
    );
    const domBytes = fileLayout.domBytes ?? 0;
    if (domBytes > 0) {
      const expected = Math.min(initialSizeBytes, domBytes);
      const load = async () => (await ctx.mds.openByInode(inode, path, expected)).domData ?? Buffer.alloc(0);
      this.dom =
        initialSizeBytes === 0 ? DomPart.empty(domBytes, load) : new DomPart(domBytes, domData, load);
    }
    if (flags !== 'r') this.writer = this.newWriter(initialSizeBytes);
    if (flags === 'a') this.position = initialSizeBytes;
  }

  private newWriter(sizeBytes: number): FileWriter {
    return new FileWriter(
      this.ctx,
      this.inode,
      this.fileLayout,
      stripedBytesOf(this.fileLayout, sizeBytes),
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
    const bytesRead = await this.readAt(buffer, offset, at, length);
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
    const { striped, stripedAt } = await this.writeDom(data, at);
    if (striped.length > 0) await writer.write(striped, stripedAt);
    this.wrote(at, length, position);
    return { bytesWritten: length, buffer };
  }

  /** Reads [at, at+length) clipped to the size: the part on the MDS from the DomPart, the rest from the objects. */
  private async readAt(buffer: Uint8Array, offset: number, at: number, length: number): Promise<number> {
    if (!this.dom) return this.reader.readInto(buffer, offset, at, length);
    const end = Math.min(this.sizeBytes, at + length);
    if (end <= at) return 0;
    const domBytes = this.dom.domBytes;
    const parts: Promise<unknown>[] = [];
    if (at < domBytes) {
      const domEnd = Math.min(end, domBytes);
      parts.push(this.dom.readInto(buffer, offset, at, domEnd - at));
      this.ctx.counters.domBytesRead += domEnd - at;
    }
    if (end > domBytes) {
      const from = Math.max(at, domBytes);
      parts.push(this.reader.readInto(buffer, offset + from - at, from - domBytes, end - from));
    }
    await Promise.all(parts);
    return end - at;
  }

  /** The bytes of a write that fall in the part on the MDS go there; returns the rest, at its object-side offset. */
  private async writeDom(data: Uint8Array, at: number): Promise<{ striped: Uint8Array; stripedAt: number }> {
    if (!this.dom) return { striped: data, stripedAt: at };
    const domBytes = this.dom.domBytes;
    const inDom = Math.max(0, Math.min(data.length, domBytes - at));
    if (inDom > 0) {
      await this.dom.write(data.subarray(0, inDom), at);
      this.ctx.counters.domBytesWritten += inDom;
    }
    return { striped: data.subarray(inDom), stripedAt: Math.max(0, at + inDom - domBytes) };
  }

  /**
   * Writes `buffer` at `position` without copying it (raid0 and replicated; ec: the whole stripes
   * from a stripe boundary, the rest copied as write() does). The handle keeps views of `buffer`
   * until `released` settles: the caller must not change those bytes before. Each stripe unit the
   * range covers is sent as one request, with no aggregation, so whole, unit-aligned buffers make
   * whole requests. `final`: nothing else is written before sync() or close(), so an object this
   * is the only write to is made durable by the write itself (FileWriter.writeLent).
   */
  async writeLent(
    buffer: Uint8Array,
    position: number,
    options: { final?: boolean } = {},
  ): Promise<{ released: Promise<void> }> {
    const { at, data, writer } = this.prepareWrite(buffer, 0, buffer.length, position);
    const { striped, stripedAt } = await this.writeDom(data, at);
    const final = options.final === true;
    const lent =
      striped.length > 0
        ? await writer.writeLent(striped, stripedAt, final)
        : { released: Promise.resolve() };
    this.wrote(at, buffer.length, position);
    return lent;
  }

  /**
   * writeLent of `buffers` that lie back to back in the file from `position`, as one range: the
   * units of an object that follow each other in it go as one request even when they come from
   * different buffers (raid0 and replicated; ec and dom files take each buffer as writeLent does).
   * `released` settles once nothing holds any of them.
   */
  async writeLentv(
    buffers: readonly Uint8Array[],
    position: number,
    options: { final?: boolean } = {},
  ): Promise<{ released: Promise<void> }> {
    if (buffers.length === 1 || this.dom || this.fileLayout.layout.pattern === 'ec') {
      const released: Promise<void>[] = [];
      let at = position;
      for (const [i, buffer] of buffers.entries()) {
        const final = options.final === true && i === buffers.length - 1;
        released.push((await this.writeLent(buffer, at, { final })).released);
        at += buffer.length;
      }
      return { released: Promise.all(released).then(() => undefined) };
    }
    let length = 0;
    for (const b of buffers) length += b.length;
    const { at, writer } = this.prepareWrite(new Uint8Array(0), 0, 0, position);
    if (length > 0) this.reader.invalidate(at, length);
    const lent = await writer.writeLentRuns(buffers, at, options.final === true);
    this.wrote(at, length, position);
    return lent;
  }

  private prepareWrite(buffer: Uint8Array, offset: number, length: number, position: number | null) {
    this.assertOpen();
    if (!this.writer) throw new StripeError('REQ_INVALID', 'file handle is open read-only');
    if (offset < 0 || length < 0 || offset + length > buffer.length)
      throw new RangeError('write outside the buffer');
    const at = this.flags === 'a' ? this.sizeBytes : (position ?? this.position);
    const domBytes = this.dom?.domBytes ?? 0;
    if (at + length > domBytes)
      this.reader.invalidate(Math.max(0, at - domBytes), at + length - Math.max(at, domBytes));
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
    await this.writer.flush(true);
    await this.ctx.io.flushAll(this.writer.takeTouched());
    if (this.changed && !this.deferSize) {
      const size = this.growOnly ? this.writtenEndBytes : this.sizeBytes;
      await this.commit(size, this.growOnly);
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
    await this.ctx.io.flushAll([...this.writer.takeTouched(), ...cut]);
    const from = stripedBytesOf(this.fileLayout, Math.min(this.sizeBytes, sizeBytes));
    this.reader.invalidate(from, stripedBytesOf(this.fileLayout, Math.max(this.sizeBytes, sizeBytes)) - from);
    this.sizeBytes = sizeBytes;
    this.writtenEndBytes = Math.min(this.writtenEndBytes, sizeBytes);
    // A fresh writer: an ec writer's buffered last stripe and append point are the old file's.
    this.writer = this.newWriter(sizeBytes);
    this.dom?.truncate(sizeBytes);
    await this.commit(sizeBytes, false);
    this.changed = false;
  }

  /** Size and mtime, with what this handle changed of the part on the MDS, in one MDS transaction. */
  private async commit(sizeBytes: number, growOnly: boolean): Promise<void> {
    const patch = this.dom?.takePatch(sizeBytes);
    this.ctx.openCache.forget(this.path);
    try {
      await this.ctx.mds.commit(this.inode, sizeBytes, Date.now(), growOnly, patch);
    } catch (err) {
      if (patch) this.dom?.restore(patch);
      throw err;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.sync();
    } finally {
      this.closed = true;
      this.writer?.release();
    }
  }
}
