// One rank's part of a save: its parts packed into one data file inside a
// staging directory, with the packer (staging) and the uploader running side
// by side. `staged` settles once every byte is in the stage (client memory or
// local disk, or for a synchronous save handed to the uploader), `done` once
// the data file is acknowledged, fsynced and its size committed: durable, but
// still hidden in the staging directory.
import { type Layout, type StripeClient, stripedPartOf } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import type { DiskBudget } from './disk-stage.js';
import { DiskStage } from './disk-stage.js';
import type { CheckpointLimits } from './limits.js';
import { crcHex, type PartRecord, RANK_FORMAT, type RankRecord } from './manifest.js';
import { dataFileName, joinPath } from './names.js';
import { type PackedPart, pack } from './pack.js';
import type { PartSource } from './parts.js';
import { MemoryStage, type Stage } from './stage.js';
import { type IdleBlocks, StagingMemory } from './staging-memory.js';
import { PartCrcs, type UploadCounters, upload } from './upload.js';

export type StagingMode = 'sync' | 'memory' | 'disk' | 'reference';

/** What every save of one Checkpoints shares. */
export interface SaveContext {
  client: StripeClient;
  limits: CheckpointLimits;
  /** Client memory of async saves staged in memory, all saves together. */
  asyncMemory: StagingMemory;
  idle: IdleBlocks;
  disk: { root: string; budget: DiskBudget } | undefined;
  /** Runs uploads one at a time, in the order saves were started. */
  uploadTurn<T>(work: () => Promise<T>): Promise<T>;
}

export interface SaveProgress {
  stagedBytes: number;
  uploadedBytes: number;
  /** Blocks sent and not yet acknowledged: now, and at most so far. */
  inFlightBlocks: number;
  inFlightBlocksPeak: number;
  /** Staging memory (or local disk) held by this save's stage: now, and at most so far. */
  stagingBytes: number;
  stagingBytesPeak: number;
}

export interface RankRequest {
  step: number;
  rank: number;
  stagingPath: string;
  entries: [string, PartSource][];
  layout: Layout;
  mode: StagingMode;
  onStaged?: (bytes: number) => void;
  onUploaded?: (bytes: number) => void;
}

export interface RankSave {
  staged: Promise<{ bytes: number }>;
  done: Promise<RankRecord>;
  progress(): SaveProgress;
}

/**
 * Bytes of one staging block (a whole stripe unit; ec: a whole stripe of data), the stripes
 * that fit in inFlightBytesMax (at least one; ec counts the parity too) and their write-behind,
 * and the most a synchronous or referenced save lends of a caller's buffer at once: whole rows
 * of the stripe with as many units of each object as one request carries (`requestBytesMax`,
 * the client's writeRequestBytesMax), within half the write-behind. Lent that way, each object's
 * units go out as one write run per request, as a sequential write's do, instead of a request
 * per unit (ec sends stripe by stripe either way: its lends stay one stripe).
 */
export function blockGeometry(
  whole: Layout,
  inFlightBytesMax: number,
  requestBytesMax: number,
): { blockBytes: number; lendBytesMax: number; inFlightBlocksMax: number; writeBehindBytes: number } {
  const layout = stripedPartOf(whole);
  const ec = layout.pattern === 'ec';
  const blockBytes = ec ? (layout.k as number) * layout.stripeSize : layout.stripeSize;
  const sentBytes = ec
    ? ((layout.k as number) + (layout.m as number)) * layout.stripeSize
    : layout.stripeSize;
  const inFlightBlocksMax = Math.max(1, Math.floor(inFlightBytesMax / sentBytes));
  const writeBehindBytes = inFlightBlocksMax * sentBytes;
  const unitsPerRequest = Math.max(1, Math.floor(requestBytesMax / layout.stripeSize));
  const rowsBytes = ec ? blockBytes : unitsPerRequest * (layout.stripeCount ?? 1) * blockBytes;
  const lendBytesMax = Math.max(
    blockBytes,
    Math.min(rowsBytes, Math.floor(writeBehindBytes / 2 / blockBytes) * blockBytes),
  );
  return { blockBytes, lendBytesMax, inFlightBlocksMax, writeBehindBytes };
}

function stageFor(ctx: SaveContext, mode: StagingMode, blockBytes: number, inFlightBlocksMax: number): Stage {
  // The packer's block being filled, the uploader's blocks in flight, and room to read ahead.
  const transitBytes = (inFlightBlocksMax + 4) * blockBytes;
  if (mode === 'memory' || mode === 'reference') {
    if (ctx.asyncMemory.bytesMax < 2 * blockBytes)
      throw new StripeError(
        'REQ_INVALID',
        `stagingBytesMax ${ctx.asyncMemory.bytesMax} holds fewer than two ${blockBytes}-byte stripes of this layout`,
      );
    return new MemoryStage(ctx.asyncMemory);
  }
  if (mode === 'sync') return new MemoryStage(new StagingMemory(transitBytes, ctx.idle));
  if (!ctx.disk) throw new Error('disk staging without a staging folder');
  const memory = new StagingMemory(transitBytes, ctx.idle);
  return new DiskStage(ctx.disk.root, memory, ctx.disk.budget, blockBytes, ctx.limits.stagingSegmentBytes);
}

function rankRecord(
  request: RankRequest,
  file: string,
  bytes: number,
  parts: readonly PackedPart[],
  crcs: PartCrcs,
): RankRecord {
  const records: PartRecord[] = parts.map((p, i) => ({
    name: p.name,
    file,
    offset: p.offset,
    bytes: p.bytes,
    crc32c: crcHex(crcs.crcOf(i)),
  }));
  return { format: RANK_FORMAT, step: request.step, rank: request.rank, file, bytes, parts: records };
}

export function stageRank(ctx: SaveContext, request: RankRequest): RankSave {
  const { blockBytes, lendBytesMax, inFlightBlocksMax, writeBehindBytes } = blockGeometry(
    request.layout,
    ctx.limits.inFlightBytesMax,
    ctx.client.limits.writeRequestBytesMax,
  );
  const stage = stageFor(ctx, request.mode, blockBytes, inFlightBlocksMax);
  const parts: PackedPart[] = [];
  const counters: UploadCounters = { uploadedBytes: 0, inFlightBlocks: 0, inFlightBlocksPeak: 0 };
  let stagedBytes = 0;
  const file = dataFileName(request.rank);
  const ready = (async () => {
    if (stage instanceof DiskStage) await stage.start();
    return ctx.client.open(joinPath(request.stagingPath, file), 'w', {
      layout: request.layout,
      writeBehindBytesMax: writeBehindBytes,
    });
  })();
  const staged = (async () => {
    await ready;
    const bytes = await pack(request.entries, stage, parts, {
      blockBytes,
      lendBytesMax,
      lend: request.mode === 'sync' || request.mode === 'reference',
      onStaged: (b) => {
        stagedBytes = b;
        request.onStaged?.(b);
      },
    });
    await stage.end();
    return { bytes };
  })();
  const crcs = new PartCrcs(parts);
  const uploaded = ready.then((handle) =>
    ctx.uploadTurn(() => upload(stage, handle, crcs, counters, request.onUploaded)),
  );
  const done = (async () => {
    try {
      const [{ bytes }] = await Promise.all([staged, uploaded]);
      await stage.dispose();
      return rankRecord(request, file, bytes, parts, crcs);
    } catch (err) {
      await stage.abort(err);
      throw err;
    }
  })();
  // A failure of either side stops the other (the packer may wait for room the uploader would free).
  staged.catch((err: unknown) => stage.abort(err));
  uploaded.catch((err: unknown) => stage.abort(err));
  return {
    staged,
    done,
    progress: () => ({
      stagedBytes,
      uploadedBytes: counters.uploadedBytes,
      inFlightBlocks: counters.inFlightBlocks,
      inFlightBlocksPeak: counters.inFlightBlocksPeak,
      stagingBytes: stage.heldBytes,
      stagingBytesPeak: stage.peakBytes,
    }),
  };
}
