// The segment log: small objects' bytes as records appended to a few large
// files (log/<segment, 8 hex>.seg) instead of a file per object, BlueStore's
// idea. Every record is a whole number of 4 KiB units at a 4 KiB-aligned
// offset (O_DIRECT where the file system allows it) and holds one version of
// one object, nothing else: the OST's index says which record is an object's
// (its meta record's `log`), with the crcs and stamps of its blocks as for a
// file. Writes that arrive while a round is on disk share the next round: one
// pwritev, one fdatasync when any of them asks for durability, one index batch
// (group commit, as mds/commit.ts does for the MDS). The round's records follow
// a head that carries its index changes (log-round.ts), so that one fdatasync
// makes the round durable whole and the index batch is written unsynced: an
// OST opened after a power loss replays the heads past the position the index
// last recorded. A record no meta record points at is dead: an overwrite's old
// one, a deleted object's, a write's that never committed. Sealed segments with
// a large dead share are compacted (log-compact.ts). Reopened, the log replays
// what the index lacks, then trusts the index: the last segment is cut back to
// the end of its last whole round or live record (a torn tail goes), segments
// without a live record are removed.
import { constants, type FileHandle, mkdir, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { BUFFER_ALIGN_BYTES } from '../../common/bulk/buffer-pool.js';
import { crc32c } from '../../common/checksum.js';
import { dataBuffers } from '../buffers.js';
import { LOG_ROUND_BYTES_MAX, LOG_ROUND_ENTRIES_MAX } from '../limits.js';
import { encodeChanges, encodeHead, headBytesFor, readRound } from './log-round.js';
import type { StoreFaultSites } from './object-store.js';
import type { BatchOp, LogLocation, LogPosition, OstIndex, PreparedWrite } from './ost-index.js';

/** Records start and end on this boundary (O_DIRECT's unit). */
export const LOG_ALIGN_BYTES = BUFFER_ALIGN_BYTES;

export interface SegmentLogOptions {
  dir: string;
  directIo: boolean;
  fsync: boolean;
  /** A segment takes records until it holds this many bytes, then the next one starts. */
  segmentBytes: number;
  faults: StoreFaultSites;
  /** Objects whose records an fdatasync that failed may have lost: their flushes must fail from now on. */
  lostSync: (objectIds: string[]) => Promise<void>;
}

export interface Segment {
  id: number;
  fh: FileHandle;
  /** Where the next record goes (the active segment), or the segment's size. */
  endBytes: number;
  liveBytes: number;
  /** Objects whose live record is here, with its offset. */
  live: Map<string, number>;
  /** Bytes from 0 an fdatasync made durable. */
  syncedBytes: number;
  /** Objects with a record written here since the last fdatasync. */
  unsynced: Set<string>;
}

/** One write's record (or a flush, without one) waiting for a round. */
export interface LogEntry {
  objectId: string;
  /** An aligned buffer whose first `bytes` (whole units) are the record. */
  record?: Buffer;
  bytes: number;
  /** Durable before the round answers (its fdatasync, which makes its head with the index changes durable too). */
  sync: boolean;
  /** Call the fault sites (after the record is written, before the fdatasync): a client's write or flush, not compaction's. */
  faultSite: boolean;
  /** Also write the index synced (every change before it durable, those made outside the log too). */
  syncIndex?: boolean;
  /** The index change the round writes once the record is in place; its meta gets the location. */
  prepared?: PreparedWrite;
  /** The record this one replaces (dead once the round committed). */
  replaces?: LogLocation;
}

export interface LogOutcome {
  location?: LogLocation;
  /** The fdatasync this entry asked for failed (or its fault site threw). */
  fsyncFailure?: unknown;
}

interface Queued extends LogEntry {
  resolve: (outcome: LogOutcome) => void;
  reject: (err: unknown) => void;
  outcome: LogOutcome;
}

export interface LogUsage {
  segments: number;
  /** Bytes of every segment, live or dead. */
  bytes: number;
  liveBytes: number;
  rounds: number;
  compactedSegments: number;
  movedBytes: number;
  /** Segments found at open shorter than the live records the index places in them (cut short by a power loss). */
  tornSegments: number;
  /** Bytes past the last live record cut from the last segment at open. */
  droppedTailBytes: number;
  /** Rounds replayed into the index at open (their index batch was lost). */
  replayedRounds: number;
  /** Record bytes written with O_DIRECT and through the page cache since open. */
  directBytes: number;
  pagedBytes: number;
}

const segmentName = (id: number): string => `${id.toString(16).padStart(8, '0')}.seg`;

export class SegmentLog {
  readonly segments = new Map<number, Segment>();
  /** Where records go; made with the first record (the log has no files until then). */
  private active: Segment | undefined;
  private nextId = 1;
  private readonly queue: Queued[] = [];
  private pumping: Promise<void> | undefined;
  /** Segments listed at open, with the end of their last live record (filled by adopt). */
  private readonly found = new Map<
    number,
    { endBytes: number; live: Map<string, number>; liveBytes: number }
  >();
  /** The end of the last whole round the replay at open found (the last segment is not cut before it). */
  private replayEnd: LogPosition | undefined;
  /** Set once an index batch was lost on purpose (the fault site): every later one is lost too. */
  private indexTailLost = false;
  /** Told when a sealed segment's dead share may have passed the bound. */
  onDead: (segment: Segment) => void = () => undefined;
  readonly counts = {
    rounds: 0,
    compactedSegments: 0,
    movedBytes: 0,
    tornSegments: 0,
    droppedTailBytes: 0,
    replayedRounds: 0,
    directBytes: 0,
    pagedBytes: 0,
  };

  private constructor(
    readonly opts: SegmentLogOptions,
    private readonly index: OstIndex,
  ) {}

  /** Lists the segments; adopt() each live record the index holds, then start(). */
  static async open(opts: SegmentLogOptions, index: OstIndex): Promise<SegmentLog> {
    const log = new SegmentLog(opts, index);
    for (const name of await listOrNone(opts.dir)) {
      const match = /^([0-9a-f]{8})\.seg$/.exec(name);
      if (match)
        log.found.set(Number.parseInt(match[1]!, 16), { endBytes: 0, live: new Map(), liveBytes: 0 });
    }
    return log;
  }

  /**
   * Replays into the index the rounds past the position it recorded last (their batches were
   * written unsynced and a power loss took them), up to the first that is missing or torn. Runs
   * after open(), before the index is read (adopt).
   */
  async replay(): Promise<void> {
    const from = await this.index.logPosition();
    if (!from) return;
    const ids = [...this.found.keys()].sort((a, b) => a - b);
    let [segment, offset] = from;
    const scratch = dataBuffers.take();
    try {
      for (;;) {
        if (this.found.has(segment)) {
          const rounds = await this.replaySegment(segment, offset, scratch);
          // A segment after the position starts with a round: without a whole one there, nothing later happened.
          if (rounds === 0 && offset === 0) break;
        }
        // The rounds went on in the next segment (this one was sealed, or compacted away).
        const next = ids.find((id) => id > segment);
        if (next === undefined) break;
        [segment, offset] = [next, 0];
      }
    } finally {
      dataBuffers.give(scratch);
    }
  }

  /** Replays the whole rounds of one segment from `offset`; how many. */
  private async replaySegment(segment: number, offset: number, scratch: Buffer): Promise<number> {
    const fh = await open(join(this.opts.dir, segmentName(segment)), constants.O_RDONLY);
    let rounds = 0;
    try {
      let at = offset;
      for (;;) {
        const round = await readRound(fh, segment, at, scratch);
        if (!round) break;
        await this.index.applyReplayed(round.ops, [segment, round.end]);
        this.replayEnd = [segment, round.end];
        this.counts.replayedRounds++;
        rounds++;
        at = round.end;
      }
    } finally {
      await fh.close();
    }
    return rounds;
  }

  /** A live record the index points at (at open). */
  adopt(objectId: string, [segment, offset, bytes]: LogLocation): void {
    let found = this.found.get(segment);
    if (!found) {
      // The index names a segment that is gone (start() counts it torn): reads of the object fail their checksums.
      found = { endBytes: 0, live: new Map(), liveBytes: 0 };
      this.found.set(segment, found);
    }
    found.live.set(objectId, offset);
    found.liveBytes += bytes;
    found.endBytes = Math.max(found.endBytes, offset + bytes);
  }

  /** Opens the segments with live records, removes the others, and cuts the last one back to its live end. */
  async start(): Promise<void> {
    const ids = [...this.found.keys()].sort((a, b) => a - b);
    const lastId = ids[ids.length - 1] ?? 0;
    for (const id of ids) {
      const found = this.found.get(id)!;
      const path = join(this.opts.dir, segmentName(id));
      if (found.live.size === 0) {
        await rm(path, { force: true });
        continue;
      }
      const fh = await open(path, constants.O_RDWR | constants.O_CREAT | this.directFlag(), 0o644);
      const size = (await fh.stat()).size;
      if (size < found.endBytes) this.counts.tornSegments++;
      // What the last run wrote may still be in the page cache only (it was killed): durable from here on.
      if (this.opts.fsync) await fh.datasync();
      const segment: Segment = {
        id,
        fh,
        endBytes: Math.max(size, found.endBytes),
        liveBytes: found.liveBytes,
        live: found.live,
        syncedBytes: size,
        unsynced: new Set(),
      };
      this.segments.set(id, segment);
      if (id === lastId) {
        // Past the last whole round and live record: a round torn by the crash, or one that never committed.
        const end = Math.max(found.endBytes, this.replayEnd?.[0] === id ? this.replayEnd[1] : 0);
        if (size > end) {
          await fh.truncate(end);
          this.counts.droppedTailBytes += size - end;
        }
        segment.endBytes = end;
        segment.syncedBytes = Math.min(size, end);
        this.active = segment;
      }
    }
    this.found.clear();
    this.nextId = lastId + 1;
    // The replay starts here next time; synced, with what the replay wrote.
    await this.index.setLogPosition(this.active ? [this.active.id, this.active.endBytes] : [this.nextId, 0]);
    for (const segment of this.segments.values()) if (segment !== this.active) this.onDead(segment);
  }

  private directFlag(): number {
    return this.opts.directIo ? constants.O_DIRECT : 0;
  }

  private async createSegment(): Promise<Segment> {
    const id = this.nextId++;
    await mkdir(this.opts.dir, { recursive: true });
    const fh = await open(
      join(this.opts.dir, segmentName(id)),
      constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | this.directFlag(),
      0o644,
    );
    if (this.opts.fsync) await syncDir(this.opts.dir);
    const segment: Segment = {
      id,
      fh,
      endBytes: 0,
      liveBytes: 0,
      live: new Map(),
      syncedBytes: 0,
      unsynced: new Set(),
    };
    this.segments.set(id, segment);
    return segment;
  }

  pathOf(segment: number): string {
    return join(this.opts.dir, segmentName(segment));
  }

  isActive(segment: Segment): boolean {
    return segment === this.active;
  }

  /** Queues an entry for the next round; resolves once its record and index change are written. */
  submit(entry: LogEntry): Promise<LogOutcome> {
    return new Promise<LogOutcome>((resolve, reject) => {
      this.queue.push({ ...entry, resolve, reject, outcome: {} });
      this.pumping ??= this.pump().finally(() => {
        this.pumping = undefined;
      });
    });
  }

  /** Waits until no round runs. */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  private async pump(): Promise<void> {
    while (this.queue.length > 0) {
      const round = this.takeRound();
      try {
        await this.runRound(round);
        for (const q of round) q.resolve(q.outcome);
      } catch (err) {
        for (const q of round) q.reject(err);
      }
    }
  }

  /** The next round's entries: at least one, bounded in count and bytes. */
  private takeRound(): Queued[] {
    const round: Queued[] = [];
    let bytes = 0;
    while (this.queue.length > 0 && round.length < LOG_ROUND_ENTRIES_MAX) {
      const next = this.queue[0]!;
      if (round.length > 0 && bytes + next.bytes > Math.min(LOG_ROUND_BYTES_MAX, this.opts.segmentBytes))
        break;
      bytes += next.bytes;
      round.push(this.queue.shift()!);
    }
    return round;
  }

  private async runRound(round: Queued[]): Promise<void> {
    this.counts.rounds++;
    const records = round.filter((q) => q.record !== undefined);
    const bytes = records.reduce((sum, q) => sum + q.bytes, 0);
    const segment = await this.segmentFor(
      records.length > 0 ? bytes + LOG_ALIGN_BYTES : 0,
      records.length > 0,
    );
    const prepared = round.flatMap((q) => (q.prepared ? [q.prepared] : []));
    let ops: BatchOp[] | undefined;
    if (segment && records.length > 0) ops = await this.append(segment, round, prepared);
    const synced = await this.syncRound(segment, round);
    for (const q of round) if (q.record && q.faultSite) this.opts.faults.dataWritten(q.objectId);
    if (this.opts.faults.indexTailLost?.()) this.indexTailLost = true;
    if (this.indexTailLost) this.index.loseWrites(prepared);
    else {
      // Unsynced: the round's head holds the same changes, durable with its records.
      const syncIndex = synced && round.some((q) => q.syncIndex);
      const logEnd: LogPosition | undefined = ops && segment ? [segment.id, segment.endBytes] : undefined;
      await this.index.applyWrites(prepared, syncIndex, logEnd, ops);
    }
    // Released first: an object's old record and its new one may share a segment.
    for (const q of round) if (q.replaces) this.release(q.objectId, q.replaces);
    for (const q of round) if (q.outcome.location) this.track(q.objectId, q.outcome.location);
  }

  /**
   * Writes the round at the segment's end: its head (the index changes, log-round.ts), then the
   * records back to back, each learning its location; the changes the head holds.
   */
  private async append(segment: Segment, round: Queued[], prepared: PreparedWrite[]): Promise<BatchOp[]> {
    const start = segment.endBytes;
    let headBytes = LOG_ALIGN_BYTES;
    let ops: BatchOp[];
    let body: Buffer;
    // The changes name the records' offsets, which follow the head: placed again if it outgrew its guess.
    for (;;) {
      let at = start + headBytes;
      for (const q of round) {
        if (!q.record) continue;
        q.outcome.location = [segment.id, at, q.bytes];
        if (q.prepared) q.prepared.meta.log = q.outcome.location;
        at += q.bytes;
      }
      for (const q of round)
        if (q.prepared && !q.outcome.location) throw new Error(`the record of ${q.objectId} was not placed`);
      ops = this.index.roundOps(prepared);
      body = encodeChanges(ops);
      const needed = headBytesFor(body, LOG_ALIGN_BYTES);
      if (needed <= headBytes) break;
      headBytes = needed;
    }
    const buffers: Buffer[] = [];
    let dataCrc = 0;
    for (const q of round) {
      if (!q.record || q.bytes === 0) continue;
      const record = q.record.subarray(0, q.bytes);
      dataCrc = crc32c(record, dataCrc);
      buffers.push(record);
    }
    const dataBytes = buffers.reduce((sum, b) => sum + b.length, 0);
    const headBuffer = dataBuffers.take();
    try {
      if (headBytes > headBuffer.length)
        throw new Error(`a round's head of ${headBytes} bytes outgrows its buffer`);
      const head = encodeHead(
        headBuffer,
        { segment: segment.id, offset: start, headBytes, dataBytes, dataCrc },
        body,
      );
      await writeAll(segment.fh, [head, ...buffers], start);
    } finally {
      dataBuffers.give(headBuffer);
    }
    const end = start + headBytes + dataBytes;
    if (this.opts.directIo) this.counts.directBytes += end - start;
    else this.counts.pagedBytes += end - start;
    segment.endBytes = end;
    for (const q of round) if (q.record) segment.unsynced.add(q.objectId);
    return ops;
  }

  /** The fdatasync of a round that asks for one: whether it held (the index batch is then written synced). */
  private async syncRound(segment: Segment | undefined, round: Queued[]): Promise<boolean> {
    const syncing = round.filter((q) => q.sync);
    if (syncing.length === 0 || !this.opts.fsync) return false;
    for (const q of syncing) {
      if (!q.faultSite) continue;
      try {
        this.opts.faults.beforeFsync(q.objectId);
      } catch (err) {
        q.outcome.fsyncFailure = err;
      }
    }
    if (!segment || segment.syncedBytes >= segment.endBytes) return true;
    try {
      await segment.fh.datasync();
    } catch (err) {
      for (const q of syncing) q.outcome.fsyncFailure ??= err;
      await this.lose(segment);
      return false;
    }
    segment.syncedBytes = segment.endBytes;
    segment.unsynced.clear();
    return true;
  }

  /**
   * An fdatasync of the segment failed: Linux may have dropped its unwritten pages and reports the
   * error once, so every record written since the last good one is suspect, and the segment takes
   * no more records.
   */
  private async lose(segment: Segment): Promise<void> {
    const suspects = [...segment.unsynced];
    segment.unsynced.clear();
    segment.syncedBytes = segment.endBytes;
    if (segment === this.active) this.active = undefined;
    await this.opts.lostSync(suspects);
    this.onDead(segment);
  }

  /** The active segment (a new one when there is none, or when `bytes` more would pass the segment size). */
  private async segmentFor(bytes: number, records: boolean): Promise<Segment | undefined> {
    const active = this.active;
    if (active && active.endBytes > 0 && active.endBytes + bytes > this.opts.segmentBytes)
      await this.seal(active);
    if (!this.active && records) this.active = await this.createSegment();
    return this.active;
  }

  /** The active segment takes no more records: synced (its records are then all durable) and left to compaction. */
  private async seal(segment: Segment): Promise<void> {
    if (this.opts.fsync && segment.syncedBytes < segment.endBytes) {
      try {
        await segment.fh.datasync();
      } catch {
        await this.lose(segment);
        return;
      }
      segment.syncedBytes = segment.endBytes;
      segment.unsynced.clear();
    }
    if (this.active === segment) this.active = undefined;
    this.onDead(segment);
  }

  private track(objectId: string, [segment, offset, bytes]: LogLocation): void {
    const s = this.segments.get(segment);
    if (!s) return;
    s.live.set(objectId, offset);
    s.liveBytes += bytes;
  }

  /** The record at `location` is the object's no more (overwritten elsewhere, moved to a file, deleted). */
  release(objectId: string, [segment, offset, bytes]: LogLocation): void {
    const s = this.segments.get(segment);
    if (!s || s.live.get(objectId) !== offset) return;
    s.live.delete(objectId);
    s.liveBytes -= bytes;
    if (s !== this.active) this.onDead(s);
  }

  /**
   * Reads the record at `location` into `into` (aligned, room for the record) and returns it;
   * bytes a segment cut short lacks read as zeros (their blocks then fail their checksums).
   */
  async read([segment, offset, bytes]: LogLocation, into: Buffer): Promise<Buffer> {
    const out = into.subarray(0, bytes);
    const s = this.segments.get(segment);
    if (!s) return out.fill(0);
    let done = 0;
    while (done < bytes) {
      const { bytesRead } = await s.fh.read(into, done, bytes - done, offset + done);
      done += bytesRead;
      // The end of the file (on an O_DIRECT handle a read may only go on from a whole unit).
      if (bytesRead === 0 || bytesRead % LOG_ALIGN_BYTES !== 0) break;
    }
    if (done < bytes) out.fill(0, done);
    return out;
  }

  /** Makes the object's record at `location` durable (with every index change before), as a flush does. */
  async syncThrough(objectId: string, [segment, offset, bytes]: LogLocation): Promise<LogOutcome> {
    const s = this.segments.get(segment);
    if (s && s.syncedBytes >= offset + bytes) {
      try {
        this.opts.faults.beforeFsync(objectId);
      } catch (err) {
        return { fsyncFailure: err };
      }
      // Its round's head, before it in the segment, holds its index change: durable already.
      return {};
    }
    return this.submit({ objectId, bytes: 0, sync: true, faultSite: true });
  }

  /** Removes a sealed segment no live record is left in, once the records moved out of it are durable. */
  async removeSegment(segment: Segment): Promise<void> {
    if (segment.live.size > 0 || segment === this.active) throw new Error(`segment ${segment.id} is in use`);
    // The index synced too: the deletes that killed its records were written outside the log.
    const outcome = await this.submit({
      objectId: '',
      bytes: 0,
      sync: true,
      faultSite: false,
      syncIndex: true,
    });
    if (outcome.fsyncFailure !== undefined) throw outcome.fsyncFailure;
    this.segments.delete(segment.id);
    await segment.fh.close();
    await rm(join(this.opts.dir, segmentName(segment.id)), { force: true });
    this.counts.compactedSegments++;
  }

  usage(): LogUsage {
    let bytes = 0;
    let liveBytes = 0;
    for (const s of this.segments.values()) {
      bytes += s.endBytes;
      liveBytes += s.liveBytes;
    }
    return { segments: this.segments.size, bytes, liveBytes, ...this.counts };
  }

  async close(): Promise<void> {
    await this.idle();
    // A close that fails frees the descriptor anyway; nothing reads through it again.
    for (const s of this.segments.values()) await s.fh.close().catch(() => undefined);
    this.segments.clear();
  }
}

/** Writes `buffers` back to back at `position`, retrying short writes. */
async function writeAll(fh: FileHandle, buffers: Buffer[], position: number): Promise<void> {
  let rest = buffers;
  while (rest.length > 0) {
    const { bytesWritten } = await fh.writev(rest, position);
    if (bytesWritten === 0) throw new Error('a segment write made no progress');
    position += bytesWritten;
    let skip = bytesWritten;
    while (rest.length > 0 && skip >= rest[0]!.length) {
      skip -= rest[0]!.length;
      rest = rest.slice(1);
    }
    if (skip > 0) rest = [rest[0]!.subarray(skip), ...rest.slice(1)];
  }
}

/** The names in a folder; none when it does not exist (a log that never took a record). */
async function listOrNone(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** Makes a new segment's name durable (its folder's entry). */
async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, constants.O_RDONLY);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
