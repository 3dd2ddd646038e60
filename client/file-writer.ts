// The write side of one open file. Small writes are aggregated into whole
// stripe units (raid0/replicated) or whole stripes (ec) before anything is
// sent; full units go out at once, in parallel with the next ones, up to a
// byte budget of unacknowledged data (write-behind, memory bounded). flush()
// returns when every byte sent so far is acknowledged by every copy.
import { StripeError } from '../common/errors.js';
import type { ClientContext } from './context.js';
import { encodeParity } from './ec.js';
import type { FileLayout } from './layout.js';
import { locateEcChunks, locateObject, type ObjectTarget } from './locate.js';
import type { Touched } from './object-io.js';
import { assembleStripe, ecStripeDataBytes, mapRange } from './striping.js';

interface PendingUnit {
  unit: number;
  objectIndex: number;
  objectOffset: number;
  fileOffset: number;
  buf: Buffer;
  length: number;
}

export class FileWriter {
  private pending: PendingUnit | undefined;
  private readonly inflight = new Set<Promise<void>>();
  private inflightBytes = 0;
  private failure: unknown;
  /** Objects written since the last sync, to Flush (fsync) at the OSSs. */
  readonly touched = new Map<string, Touched>();
  // ec only: the stripe being filled and how much of it was sent already.
  private stripe: Buffer | undefined;
  private stripeIndex = 0;
  private stripeFill = 0;
  private stripeSent = 0;

  constructor(
    private readonly ctx: ClientContext,
    private readonly inode: number,
    private readonly fileLayout: FileLayout,
    /** ec: bytes already in the file (appends only). */
    private appendAt: number,
    /** ec: reads bytes already in the file (the start of a partial last stripe that an append completes). */
    private readonly readBack: (position: number, length: number) => Promise<Buffer>,
  ) {}

  get dirty(): boolean {
    return this.pending !== undefined || this.inflight.size > 0 || this.stripeFill > this.stripeSent;
  }

  async write(data: Uint8Array, position: number): Promise<void> {
    this.throwIfFailed();
    this.ctx.counters.bytesWritten += data.length;
    if (this.fileLayout.layout.pattern === 'ec') return this.writeEc(data, position);
    for (const e of mapRange(this.fileLayout.layout, position, data.length)) {
      const piece = data.subarray(e.fileOffset - position, e.fileOffset - position + e.length);
      const p = this.pending;
      if (!p || p.unit !== e.unit || p.fileOffset + p.length !== e.fileOffset) {
        if (p) await this.sendUnit(p);
        const unitLeft =
          this.fileLayout.layout.stripeSize - (e.fileOffset % this.fileLayout.layout.stripeSize);
        this.pending = { ...e, buf: Buffer.allocUnsafe(unitLeft), length: 0 };
      }
      const q = this.pending as PendingUnit;
      q.buf.set(piece, q.length);
      q.length += piece.length;
      if (q.length === q.buf.length) await this.sendUnit(q);
    }
  }

  private async sendUnit(p: PendingUnit): Promise<void> {
    if (this.pending === p) this.pending = undefined;
    const data = p.buf.subarray(0, p.length);
    await this.send(data.length, async () => {
      const touched = await this.ctx.io.writeTarget(
        (view) => locateObject(view, this.fileLayout, this.inode, p.objectIndex),
        p.objectOffset,
        data,
      );
      this.remember(touched);
    });
  }

  private async writeEc(data: Uint8Array, position: number): Promise<void> {
    if (position !== this.appendAt) {
      throw new StripeError(
        'LAYOUT_READ_ONLY',
        `ec files are write-once: append at ${this.appendAt}, not ${position}`,
        {
          inode: this.inode,
          position,
        },
      );
    }
    const stripeBytes = ecStripeDataBytes(this.fileLayout.layout);
    let at = 0;
    while (at < data.length) {
      if (!this.stripe) {
        const stripe = Buffer.alloc(stripeBytes);
        const index = Math.floor(this.appendAt / stripeBytes);
        const fill = this.appendAt % stripeBytes;
        // Appending to a file whose last stripe is partial: that stripe is encoded again whole.
        if (fill > 0) {
          const existing = await this.readBack(index * stripeBytes, fill);
          if (existing.length !== fill)
            throw new StripeError('IO_FAILED', `read ${existing.length} of the ${fill} bytes to append to`);
          existing.copy(stripe);
        }
        this.stripe = stripe;
        this.stripeIndex = index;
        this.stripeFill = fill;
        this.stripeSent = fill;
      }
      const n = Math.min(data.length - at, stripeBytes - this.stripeFill);
      this.stripe.set(data.subarray(at, at + n), this.stripeFill);
      this.stripeFill += n;
      this.appendAt += n;
      at += n;
      if (this.stripeFill === stripeBytes) {
        const full = this.stripe;
        this.stripe = undefined;
        await this.sendStripe(this.stripeIndex, full);
      }
    }
  }

  /** Encodes one stripe (full, or the partial last one at flush) and sends its k+m chunks in parallel. */
  private async sendStripe(stripe: number, data: Buffer): Promise<void> {
    const { layout } = this.fileLayout;
    const k = layout.k as number;
    const m = layout.m as number;
    const shardBytes = Math.min(layout.stripeSize, data.length);
    const shards = assembleStripe(layout, data, shardBytes);
    encodeParity(shards, k, m);
    await this.send(shards.length, async () => {
      const writes: Promise<Touched[]>[] = [];
      for (let j = 0; j < k + m; j++) {
        const locate = (view: Parameters<typeof locateEcChunks>[0]): ObjectTarget =>
          locateEcChunks(view, this.fileLayout, this.inode)[j] as ObjectTarget;
        writes.push(
          this.ctx.io.writeTarget(
            locate,
            stripe * layout.stripeSize,
            shards.subarray(j * shardBytes, (j + 1) * shardBytes),
          ),
        );
      }
      for (const touched of await Promise.all(writes)) this.remember(touched);
    });
  }

  /** Starts a send within the write-behind budget; waits for room first (backpressure). */
  private async send(bytes: number, task: () => Promise<void>): Promise<void> {
    while (this.inflight.size > 0 && this.inflightBytes + bytes > this.ctx.limits.writeBehindBytesMax) {
      await Promise.race(this.inflight);
    }
    this.throwIfFailed();
    this.inflightBytes += bytes;
    const started = performance.now();
    const running: Promise<void> = task()
      .then(
        () => this.ctx.counters.latencies.record('write', performance.now() - started),
        (err: unknown) => {
          this.failure ??= err;
        },
      )
      .finally(() => {
        this.inflight.delete(running);
        this.inflightBytes -= bytes;
      });
    this.inflight.add(running);
  }

  private remember(touched: Touched[]): void {
    for (const t of touched) this.touched.set(`${t.ost}/${t.ref.objectId}`, t);
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Sends what is buffered (a partial ec stripe too) and waits until everything is acknowledged. */
  async flush(): Promise<void> {
    if (this.pending) await this.sendUnit(this.pending);
    if (this.stripe && this.stripeFill > this.stripeSent) {
      this.stripeSent = this.stripeFill;
      // The stripe stays buffered: later appends re-send it whole (longer shards, same offset).
      await this.sendStripe(this.stripeIndex, Buffer.from(this.stripe.subarray(0, this.stripeFill)));
    }
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
    this.throwIfFailed();
  }
}
