// The write side of one open file. Small writes are aggregated into whole
// stripe units (raid0/replicated) or whole stripes (ec) before anything is
// sent; full units go out at once, in parallel with the next ones, up to a
// byte budget of unacknowledged data (write-behind, memory bounded). flush()
// returns when every byte sent so far is acknowledged by every copy.
import { type Pieces, piecesLength } from '../common/bulk/frame.js';
import { StripeError } from '../common/errors.js';
import type { ClientContext } from './context.js';
import { encodeParity, encodeParityOf } from './ec.js';
import type { FileLayout } from './layout.js';
import { locateEcChunks, locateObject, type ObjectTarget } from './locate.js';
import type { Touched } from './object-io.js';
import { assembleStripe, ecStripeDataBytes, mapRange } from './striping.js';
import { planWriteRuns } from './write-runs.js';

/** sentSinceSync's entry for an ec file's chunk objects (every stripe writes all of them). */
const EC_CHUNKS = -1;

interface PendingUnit {
  unit: number;
  objectIndex: number;
  objectOffset: number;
  fileOffset: number;
  buf: Buffer;
  length: number;
}

/** Full units of one object held to go out together (a write run), back to back in the object. */
interface HeldRun {
  objectOffset: number;
  units: PendingUnit[];
  bytes: number;
}

/** Buffers back to back, read as one: the views of a range of them (client/file-writer.ts writeLentRuns). */
class LentBuffers {
  readonly length: number;
  /** Where each buffer starts in the whole. */
  private readonly starts: number[] = [];

  constructor(private readonly buffers: readonly Uint8Array[]) {
    let at = 0;
    for (const b of buffers) {
      this.starts.push(at);
      at += b.length;
    }
    this.length = at;
  }

  /** Views of [from, from + length), one per buffer the range touches. */
  slices(from: number, length: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    const end = from + length;
    for (let i = 0; i < this.buffers.length && from < end; i++) {
      const buffer = this.buffers[i] as Uint8Array;
      const start = this.starts[i] as number;
      if (from >= start + buffer.length) continue;
      const until = Math.min(end, start + buffer.length);
      out.push(buffer.subarray(from - start, until - start));
      from = until;
    }
    return out;
  }
}

export class FileWriter {
  private pending: PendingUnit | undefined;
  /** raid0/replicated: full units held per object until their run is whole (client/write-runs.ts). */
  private readonly held = new Map<number, HeldRun>();
  private heldBytes = 0;
  private readonly inflight = new Set<Promise<void>>();
  private inflightBytes = 0;
  private failure: unknown;
  /** Objects written since the last sync, to Flush (fsync) at the OSSs. */
  readonly touched = new Map<string, Touched>();
  /**
   * Objects (by index; ec: EC_CHUNKS for every chunk object) written since the last sync: the last
   * write before a sync or close to an object not among them may ask the OSS to sync it (no Flush).
   */
  private readonly sentSinceSync = new Set<number>();
  // ec only: the stripe being filled and how much of it was sent already.
  private stripe: Buffer | undefined;
  private stripeIndex = 0;
  private stripeFill = 0;
  private stripeSent = 0;
  /** ec: the file's size when this writer opened it; a partial stripe may not end before it. */
  private readonly sizeAtOpen: number;
  /**
   * The size of whole-unit (raid0/replicated) or whole-stripe-with-parity (ec) buffers, taken
   * from the client's shared WriteBuffers and given back once every copy acknowledged them:
   * fresh memory is slow to touch the first time and large allocations showed up as GC time.
   */
  private readonly bufferBytes: number;

  constructor(
    private readonly ctx: ClientContext,
    private readonly inode: number,
    private readonly fileLayout: FileLayout,
    /** ec: bytes already in the file (where appends go). */
    private appendAt: number,
    /** ec: reads bytes already in the file (the start of a partial last stripe that an append completes). */
    private readonly readBack: (position: number, length: number) => Promise<Buffer>,
    /** Bytes sent and not yet acknowledged, at most (the client's writeBehindBytesMax unless the open asked). */
    private readonly writeBehindBytesMax = ctx.limits.writeBehindBytesMax,
  ) {
    this.sizeAtOpen = appendAt;
    const { layout } = fileLayout;
    this.bufferBytes =
      layout.pattern === 'ec'
        ? ((layout.k as number) + (layout.m as number)) * layout.stripeSize
        : layout.stripeSize;
  }

  get dirty(): boolean {
    return (
      this.pending !== undefined ||
      this.held.size > 0 ||
      this.inflight.size > 0 ||
      this.stripeFill > this.stripeSent
    );
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
        const buf =
          unitLeft === this.bufferBytes ? this.ctx.writeBuffers.take(unitLeft) : Buffer.allocUnsafe(unitLeft);
        this.pending = { ...e, buf, length: 0 };
      }
      const q = this.pending as PendingUnit;
      q.buf.set(piece, q.length);
      q.length += piece.length;
      if (q.length === q.buf.length) await this.holdUnit(q);
    }
  }

  /**
   * A full unit joins its object's held run when it follows it there (a write run); the run goes
   * once no further unit fits in writeRequestBytesMax, or before anything else is sent to its
   * object, and every run goes once the held units pass half writeBehindBytesMax.
   */
  private async holdUnit(p: PendingUnit): Promise<void> {
    if (this.pending === p) this.pending = undefined;
    const runBytesMax = this.ctx.limits.writeRequestBytesMax;
    const unitBytes = this.fileLayout.layout.stripeSize;
    let run = this.held.get(p.objectIndex);
    if (run && run.objectOffset + run.bytes === p.objectOffset && run.bytes + p.length <= runBytesMax) {
      run.units.push(p);
      run.bytes += p.length;
    } else {
      if (run) await this.sendHeld(p.objectIndex);
      run = { objectOffset: p.objectOffset, units: [p], bytes: p.length };
      this.held.set(p.objectIndex, run);
    }
    this.heldBytes += p.length;
    if (run.bytes + unitBytes > runBytesMax) await this.sendHeld(p.objectIndex);
    else if (this.heldBytes > this.writeBehindBytesMax / 2) await this.sendAllHeld();
  }

  /** Sends object `objectIndex`'s held run, if any, as one request; its buffers return once acknowledged. */
  private async sendHeld(objectIndex: number, sync = false): Promise<void> {
    const run = this.held.get(objectIndex);
    if (!run) return;
    this.held.delete(objectIndex);
    this.heldBytes -= run.bytes;
    const pieces = run.units.map((u) => u.buf.subarray(0, u.length));
    await this.sendPiece(
      objectIndex,
      run.objectOffset,
      pieces,
      () => {
        for (const u of run.units) this.ctx.writeBuffers.give(u.buf);
      },
      sync,
    );
  }

  /** Sends every held run; `final`: a run that is its object's only write since the last sync asks for a sync write. */
  private async sendAllHeld(final = false): Promise<void> {
    for (const objectIndex of [...this.held.keys()])
      await this.sendHeld(objectIndex, final && !this.sentSinceSync.has(objectIndex));
  }

  /** `sync`: the OSSs make the object durable before answering (a flush's write to an object not written since the last sync). */
  private async sendUnit(p: PendingUnit, sync = false): Promise<void> {
    if (this.pending === p) this.pending = undefined;
    // What is held for the object goes first: its bytes were written before these.
    await this.sendHeld(p.objectIndex);
    // Every copy has it: nothing reads the buffer any more (on failure it is left to the collector).
    await this.sendPiece(
      p.objectIndex,
      p.objectOffset,
      p.buf.subarray(0, p.length),
      () => this.ctx.writeBuffers.give(p.buf),
      sync,
    );
  }

  /** Sends one piece of one stripe unit as it is; settles (never rejects) once every copy answered. */
  private sendPiece(
    objectIndex: number,
    objectOffset: number,
    data: Pieces,
    acknowledged: () => void = () => {},
    sync = false,
  ): Promise<{ settled: Promise<void> }> {
    this.sentSinceSync.add(objectIndex);
    return this.send(piecesLength(data), async () => {
      const touched = await this.ctx.io.writeTarget(
        (view) => locateObject(view, this.fileLayout, this.inode, objectIndex),
        objectOffset,
        data,
        { sync },
      );
      this.remember(touched);
      acknowledged();
    });
  }

  /**
   * write() without the copy where the layout allows: raid0 and replicated units are sent as
   * views of `data` (no aggregation: each unit it covers is one request, so callers hand whole
   * units); ec whole stripes from a stripe boundary too, their parity encoded into a buffer of its
   * own (writeLentEc), and the rest of an ec write is copied as write() copies it.
   * Returns once the sends have started, as write() does; `released` settles once nothing holds
   * `data` any more (every copy answered; a failure surfaces at the next write or flush).
   * `final`: nothing more is written before the sync or close, so a piece that is its object's only
   * write since the last sync asks the OSSs to make it durable at once (writeFile).
   */
  async writeLent(data: Uint8Array, position: number, final = false): Promise<{ released: Promise<void> }> {
    if (this.fileLayout.layout.pattern === 'ec') return this.writeLentEc(data, position, final);
    return this.writeLentRuns([data], position, final);
  }

  /**
   * raid0/replicated writeLent of `buffers`, back to back in the file from `position`, as if they
   * were one buffer: a run of an object's units may take bytes of several of them (one request
   * where writing each buffer alone would send one per buffer).
   */
  async writeLentRuns(
    buffers: readonly Uint8Array[],
    position: number,
    final = false,
  ): Promise<{ released: Promise<void> }> {
    if (this.fileLayout.layout.pattern === 'ec')
      throw new StripeError('REQ_INVALID', 'ec files take lent writes one buffer at a time');
    this.throwIfFailed();
    if (this.pending) await this.sendUnit(this.pending);
    await this.sendAllHeld();
    const data = new LentBuffers(buffers);
    this.ctx.counters.bytesWritten += data.length;
    // The units of one object that follow each other in it go as one request (write runs).
    const runs = planWriteRuns(
      mapRange(this.fileLayout.layout, position, data.length),
      this.ctx.limits.writeRequestBytesMax,
    );
    const runsOf = new Map<number, number>();
    for (const r of runs) runsOf.set(r.objectIndex, (runsOf.get(r.objectIndex) ?? 0) + 1);
    const alone = (objectIndex: number) =>
      final && runsOf.get(objectIndex) === 1 && !this.sentSinceSync.has(objectIndex);
    const sends: Promise<void>[] = [];
    for (const r of runs) {
      const pieces = r.extents.flatMap((e) => data.slices(e.fileOffset - position, e.length));
      const sync = alone(r.objectIndex);
      sends.push((await this.sendPiece(r.objectIndex, r.objectOffset, pieces, undefined, sync)).settled);
    }
    return { released: Promise.all(sends).then(() => undefined) };
  }

  /**
   * ec writeLent: the whole stripes of `data`, when it starts on a stripe boundary with nothing
   * buffered (at the append point, or as a run of whole stripes elsewhere: jumpEc), go out as
   * views of `data` with their parity encoded beside; whatever else is copied as write() does.
   */
  private async writeLentEc(
    data: Uint8Array,
    position: number,
    final: boolean,
  ): Promise<{ released: Promise<void> }> {
    const stripeBytes = ecStripeDataBytes(this.fileLayout.layout);
    const wholeBytes = Math.floor(data.length / stripeBytes) * stripeBytes;
    if (this.stripe !== undefined || position % stripeBytes !== 0 || wholeBytes === 0) {
      await this.write(data, position);
      return { released: Promise.resolve() };
    }
    this.throwIfFailed();
    if (position !== this.appendAt) this.jumpEc(position, stripeBytes);
    this.ctx.counters.bytesWritten += wholeBytes;
    // One whole stripe and nothing after it: the chunk objects' only write since the last sync.
    const alone = final && wholeBytes === data.length && wholeBytes === stripeBytes;
    const sync = alone && !this.sentSinceSync.has(EC_CHUNKS);
    const sends: Promise<void>[] = [];
    for (let at = 0; at < wholeBytes; at += stripeBytes) {
      const stripe = (position + at) / stripeBytes;
      sends.push((await this.sendStripeLent(stripe, data.subarray(at, at + stripeBytes), sync)).settled);
      this.appendAt = position + at + stripeBytes;
    }
    if (wholeBytes < data.length) await this.write(data.subarray(wholeBytes), position + wholeBytes);
    return { released: Promise.all(sends).then(() => undefined) };
  }

  private async writeEc(data: Uint8Array, position: number): Promise<void> {
    const stripeBytes = ecStripeDataBytes(this.fileLayout.layout);
    if (position !== this.appendAt) this.jumpEc(position, stripeBytes);
    let at = 0;
    while (at < data.length) {
      if (!this.stripe) {
        // Room for the parity too: a full stripe is encoded in place (data shards are its k units).
        // Bytes not yet appended are never sent (a partial stripe is sent as a copy of its filled part).
        const stripe = this.ctx.writeBuffers.take(this.bufferBytes);
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
        await this.sendStripe(this.stripeIndex, full.subarray(0, stripeBytes), full);
      }
    }
  }

  /**
   * A write elsewhere than the append point starts a new run of whole stripes: it must begin on a
   * stripe boundary, and nothing buffered may be left unsent (a partial stripe is sent only as the
   * end of the file, at flush). Parts of one file written by several handles at once (an S3
   * multipart upload) each start such a run; whole stripes carry their own parity, so no read back.
   */
  private jumpEc(position: number, stripeBytes: number): void {
    const unsent = this.stripe !== undefined && this.stripeFill > this.stripeSent;
    if (position % stripeBytes !== 0 || unsent) {
      throw new StripeError(
        'LAYOUT_READ_ONLY',
        `ec files take appends (at ${this.appendAt}) or whole stripes from a stripe boundary (${stripeBytes} bytes), not a write at ${position}`,
        { inode: this.inode, position, stripeBytes },
      );
    }
    this.dropStripe();
    this.stripeFill = 0;
    this.stripeSent = 0;
    this.appendAt = position;
  }

  /** The buffered partial stripe goes back to the pool (sends take copies of a partial stripe, never this buffer). */
  private dropStripe(): void {
    if (this.stripe) this.ctx.writeBuffers.give(this.stripe);
    this.stripe = undefined;
  }

  /** The handle is closed: what this writer holds goes back to the client's pools. */
  release(): void {
    this.dropStripe();
  }

  /**
   * Encodes one stripe (full, or the partial last one at flush) and sends its k+m chunks in parallel.
   * `whole`: a pooled buffer of (k+m) units whose start is `data`, a full stripe, encoded in place
   * and given back once every chunk is acknowledged.
   */
  private async sendStripe(stripe: number, data: Buffer, whole?: Buffer, sync = false): Promise<void> {
    const { layout } = this.fileLayout;
    const k = layout.k as number;
    const m = layout.m as number;
    const shardBytes = Math.min(layout.stripeSize, data.length);
    const inPlace = whole !== undefined && data.length === k * layout.stripeSize;
    const unencoded = inPlace ? whole : assembleStripe(layout, data, shardBytes);
    await this.send(unencoded.length, async () => {
      // On this thread: the SIMD kernel encodes faster than a worker round trip pays back (docs/ARCHITECTURE.md).
      encodeParity(unencoded, k, m);
      await this.sendChunks(stripe, (j) => unencoded.subarray(j * shardBytes, (j + 1) * shardBytes), sync);
      if (inPlace) this.ctx.writeBuffers.give(unencoded);
    });
  }

  /**
   * A whole stripe sent from the caller's memory: the k data chunks are views of `data`, the
   * parity is encoded into a buffer of its own (writeLent).
   */
  private sendStripeLent(
    stripe: number,
    data: Uint8Array,
    sync = false,
  ): Promise<{ settled: Promise<void> }> {
    const { layout } = this.fileLayout;
    const k = layout.k as number;
    const m = layout.m as number;
    const unit = layout.stripeSize;
    return this.send(data.length + m * unit, async () => {
      const parity = this.ctx.writeBuffers.take(m * unit);
      encodeParityOf(data, parity, k, m);
      await this.sendChunks(
        stripe,
        (j) =>
          j < k
            ? data.subarray(j * unit, (j + 1) * unit)
            : parity.subarray((j - k) * unit, (j - k + 1) * unit),
        sync,
      );
      this.ctx.writeBuffers.give(parity);
    });
  }

  /**
   * Sends the k+m chunks of one stripe (`shard(j)`) in parallel under one version stamp: its
   * chunks are one write, and recovery compares them by it. Settles once every chunk answered
   * (nothing reads the shards afterwards), failing with the first failure. `sync`: each chunk is
   * made durable before its OSS answers (the chunk objects' only write since the last sync).
   */
  private async sendChunks(stripe: number, shard: (j: number) => Uint8Array, sync = false): Promise<void> {
    const { layout } = this.fileLayout;
    this.sentSinceSync.add(EC_CHUNKS);
    const total = (layout.k as number) + (layout.m as number);
    const stamp = this.ctx.io.versions.next();
    const writes: Promise<Touched[]>[] = [];
    for (let j = 0; j < total; j++) {
      const locate = (view: Parameters<typeof locateEcChunks>[0]): ObjectTarget =>
        locateEcChunks(view, this.fileLayout, this.inode)[j] as ObjectTarget;
      writes.push(this.ctx.io.writeTarget(locate, stripe * layout.stripeSize, shard(j), { stamp, sync }));
    }
    for (const settled of await Promise.allSettled(writes)) {
      if (settled.status === 'rejected') throw settled.reason;
      this.remember(settled.value);
    }
  }

  /**
   * Starts a send within the write-behind budget; waits for room first (backpressure). `settled`
   * (wrapped: an async function would adopt it) never rejects: a failure is kept for the next call.
   */
  private async send(bytes: number, task: () => Promise<void>): Promise<{ settled: Promise<void> }> {
    while (this.inflight.size > 0 && this.inflightBytes + bytes > this.writeBehindBytesMax) {
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
    return { settled: running };
  }

  /** A copy written twice since the last sync is flushed at the next (only a lone sync write is durable alone). */
  private remember(touched: Touched[]): void {
    for (const t of touched) {
      const key = `${t.ost}/${t.ref.objectId}`;
      this.touched.set(key, this.touched.has(key) ? { ...t, durable: false } : t);
    }
  }

  /** The copies written since the last sync, to flush (those not durable); the next sync starts afresh. */
  takeTouched(): Touched[] {
    const touched = [...this.touched.values()];
    this.touched.clear();
    this.sentSinceSync.clear();
    return touched;
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /**
   * Sends what is buffered (a partial ec stripe too) and waits until everything is acknowledged.
   * `final`: a sync or close follows, so the last write to an object not written since the last
   * sync asks the OSSs to make it durable at once (no Flush round trip for it).
   */
  async flush(final = false): Promise<void> {
    const pending = this.pending;
    if (pending) {
      // A partial last unit that follows its object's held run ends that run.
      const run = this.held.get(pending.objectIndex);
      if (run && run.objectOffset + run.bytes === pending.objectOffset) {
        this.pending = undefined;
        run.units.push(pending);
        run.bytes += pending.length;
        this.heldBytes += pending.length;
      } else await this.sendUnit(pending, final && !this.sentSinceSync.has(pending.objectIndex));
    }
    await this.sendAllHeld(final);
    if (this.stripe && this.stripeFill > this.stripeSent) {
      // A partial stripe has shorter shards: valid only as the file's last stripe.
      const end = this.stripeIndex * ecStripeDataBytes(this.fileLayout.layout) + this.stripeFill;
      if (end < this.sizeAtOpen) {
        throw new StripeError(
          'LAYOUT_READ_ONLY',
          `ec files cannot be overwritten in part: a write ending at ${end} leaves a partial stripe inside the file (${this.sizeAtOpen} bytes)`,
          { inode: this.inode, end, sizeBytes: this.sizeAtOpen },
        );
      }
      this.stripeSent = this.stripeFill;
      // The stripe stays buffered: later appends re-send it whole (longer shards, same offset).
      // sendStripe lays the partial stripe out in a buffer of its own before it returns.
      await this.sendStripe(
        this.stripeIndex,
        this.stripe.subarray(0, this.stripeFill),
        undefined,
        final && !this.sentSinceSync.has(EC_CHUNKS),
      );
    }
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
    this.throwIfFailed();
  }
}
