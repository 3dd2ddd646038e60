// The part of an open file its layout keeps on the MDS (data on the MDS): the
// first domBytes of the file, at most LIMITS.domBytesMax, held whole in the
// handle. Reads are served from it (the open brought it: read-on-open); writes
// change it and widen one dirty range, which the next commit of size and mtime
// carries to the MDS (Commit dom_offset/dom_data), stored in the same MDS
// transaction as the size. Bytes past what the MDS stores read as zeros.
import type { DomPatch } from './mds-client.js';

export class DomPart {
  /** The bytes [0, length) known here; undefined until loaded (a file that had bytes when opened). */
  private image: Buffer | undefined;
  /** The image is the bytes the open brought (shared with the reply and the open cache): copied before a write. */
  private lent = false;
  private length = 0;
  private dirtyFrom = Number.POSITIVE_INFINITY;
  private dirtyTo = 0;
  private loading: Promise<void> | undefined;

  constructor(
    readonly domBytes: number,
    /** The bytes the open returned; undefined when it left them out (fetched by `load` when needed). */
    initial: Buffer | undefined,
    private readonly load: () => Promise<Buffer>,
  ) {
    if (initial) this.adopt(initial);
  }

  private adopt(bytes: Buffer): void {
    this.image = bytes;
    this.lent = true;
    this.length = Math.min(bytes.length, this.domBytes);
  }

  private async loaded(): Promise<Buffer> {
    if (!this.image) {
      this.loading ??= this.load().then((bytes) => this.adopt(bytes));
      await this.loading;
    }
    return this.image as Buffer;
  }

  /** Copies [position, position+length) of the part into target (zeros past the stored bytes). */
  async readInto(target: Uint8Array, targetOffset: number, position: number, length: number): Promise<void> {
    const image = await this.loaded();
    const stored = Math.max(0, Math.min(position + length, this.length) - position);
    if (stored > 0) target.set(image.subarray(position, position + stored), targetOffset);
    target.fill(0, targetOffset + stored, targetOffset + length);
  }

  /** Writes data at position (inside the part); it reaches the MDS with the next commit. */
  async write(data: Uint8Array, position: number): Promise<void> {
    const end = position + data.length;
    if (end > this.domBytes) throw new Error(`dom write ${position}+${data.length} past ${this.domBytes}`);
    let image = await this.loaded();
    if (this.lent) {
      image = Buffer.from(image);
      this.image = image;
      this.lent = false;
    }
    if (end > image.length) {
      const grown = Buffer.alloc(Math.min(this.domBytes, Math.max(end, image.length * 2)));
      image.copy(grown, 0, 0, this.length);
      image = grown;
      this.image = grown;
    }
    if (position > this.length) image.fill(0, this.length, position);
    image.set(data, position);
    this.length = Math.max(this.length, end);
    this.dirtyFrom = Math.min(this.dirtyFrom, position);
    this.dirtyTo = Math.max(this.dirtyTo, end);
  }

  /** The changed range, clipped to the file's size, to send with a commit; the part is clean afterwards. */
  takePatch(sizeBytes: number): DomPatch | undefined {
    const to = Math.min(this.dirtyTo, sizeBytes);
    const from = this.dirtyFrom;
    this.dirtyFrom = Number.POSITIVE_INFINITY;
    this.dirtyTo = 0;
    if (!this.image || to <= from) return undefined;
    return { offset: from, data: Buffer.from(this.image.subarray(from, to)) };
  }

  /** A commit that failed: its range is dirty again, for the next one. */
  restore(patch: DomPatch): void {
    this.dirtyFrom = Math.min(this.dirtyFrom, patch.offset);
    this.dirtyTo = Math.max(this.dirtyTo, patch.offset + patch.data.length);
  }

  /** The file was cut to sizeBytes: bytes past it read as zeros if it grows again. */
  truncate(sizeBytes: number): void {
    this.length = Math.min(this.length, sizeBytes);
    this.dirtyTo = Math.min(this.dirtyTo, sizeBytes);
  }

  /** A new file, or one truncated to nothing: nothing to load. */
  static empty(domBytes: number, load: () => Promise<Buffer>): DomPart {
    return new DomPart(domBytes, Buffer.alloc(0), load);
  }
}
