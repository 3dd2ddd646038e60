// One save from start to finish: the staging directory, the rank's data
// (stage-rank.ts), then either the manifest and the publishing rename (a
// single writer) or the rank's record (parallel ranks, published by commit).
// `staged` and `durable` are reported apart; a save that fails removes its
// private staging directory, and one killed leaves it for gc.
import { randomBytes } from 'node:crypto';
import type { Layout } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import { encodeJson, type RankRecord } from './manifest.js';
import {
  checkStep,
  joinPath,
  privateStagingName,
  rankRecordName,
  STAGING_DIR,
  sharedStagingName,
} from './names.js';
import { isCode, refuseIfPublished, removeTree, writeSmallFile } from './namespace.js';
import { type Parts, partEntries } from './parts.js';
import { buildManifest, publish, writeManifest } from './publish.js';
import {
  type RankSave,
  type SaveContext,
  type SaveProgress,
  type StagingMode,
  stageRank,
} from './stage-rank.js';

export type { SaveProgress };

export type SavePhase =
  | 'staging'
  | 'staged'
  | 'uploading'
  | 'flushed'
  | 'manifest'
  | 'publishing'
  | 'published'
  | 'pruned';

export interface SaveEvent extends SaveProgress {
  step: number;
  phase: SavePhase;
}

export interface SaveOptions {
  /** Return once staged (memory, or stagingDir), persisting in the background. */
  async?: boolean;
  /**
   * Where an async save stages: 'memory' (a copy), 'disk' (needs stagingDir; the default when one
   * is set), or 'reference': buffer parts are sent from the caller's memory, which must then stay
   * unchanged until `durable` (stream parts are still copied into memory).
   */
  staging?: 'memory' | 'disk' | 'reference';
  /** JSON kept in the manifest (e.g. epoch, loss). */
  meta?: unknown;
  /** Told as the save goes: bytes staged, bytes uploaded, then each step of publishing. */
  onProgress?: (event: SaveEvent) => void;
}

export interface SaveResult {
  step: number;
  /** The published checkpoint (a rank's save: the shared staging directory). */
  path: string;
  bytes: number;
  parts: number;
  /** Milliseconds from the call until staged, and until durable (published). */
  stagedMs: number;
  durableMs: number;
  /** Steps the retention policy removed after publishing, and why it could not, if it could not. */
  removed: number[];
  pruneError?: string;
  progress?: SaveProgress;
}

export interface SaveHandle {
  readonly step: number;
  /** Every byte is staged: the caller may change or drop its buffers. */
  readonly staged: Promise<{ bytes: number; ms: number }>;
  /** Published (a rank: its parts durable in the shared staging directory). */
  readonly durable: Promise<SaveResult>;
  progress(): SaveProgress;
}

export interface SaveRequest {
  dir: string;
  step: number;
  parts: Parts;
  rank: number | undefined;
  options: SaveOptions;
  layout(): Promise<Layout>;
  prune(): Promise<{ removed: number[]; pruneError?: string }>;
}

const NO_PROGRESS: SaveProgress = {
  stagedBytes: 0,
  uploadedBytes: 0,
  inFlightBlocks: 0,
  inFlightBlocksPeak: 0,
  stagingBytes: 0,
  stagingBytesPeak: 0,
};

function modeOf(ctx: SaveContext, options: SaveOptions): StagingMode {
  if (!options.async) return 'sync';
  if (options.staging === 'disk' && !ctx.disk)
    throw new StripeError('REQ_INVALID', "staging: 'disk' needs a stagingDir in checkpoints() options");
  if (options.staging === 'memory' || options.staging === 'reference') return options.staging;
  return ctx.disk ? 'disk' : 'memory';
}

/** Writes a rank's record under a temporary name and renames it into place: it appears whole. */
async function writeRankRecord(
  ctx: SaveContext,
  stagingPath: string,
  record: RankRecord,
  layout: Layout,
): Promise<void> {
  const final = joinPath(stagingPath, rankRecordName(record.rank));
  const temporary = joinPath(
    stagingPath,
    `.${rankRecordName(record.rank)}.${randomBytes(6).toString('hex')}`,
  );
  await writeSmallFile(ctx.client, temporary, encodeJson(record), layout);
  await ctx.client.rename(temporary, final);
}

async function prepare(
  ctx: SaveContext,
  request: SaveRequest,
  emit: (phase: SavePhase) => void,
  set: (r: RankSave) => void,
) {
  const { dir, step, rank } = request;
  checkStep(step);
  const mode = modeOf(ctx, request.options);
  const entries = partEntries(request.parts);
  const layout = await request.layout();
  let stagingPath: string;
  if (rank === undefined) {
    await refuseIfPublished(ctx.client, dir, step);
    stagingPath = joinPath(dir, STAGING_DIR, privateStagingName(step, Date.now()));
    await ctx.client.mkdir(stagingPath);
  } else {
    stagingPath = joinPath(dir, STAGING_DIR, sharedStagingName(step));
    await ctx.client.mkdir(stagingPath, { recursive: true });
    // A rank saving again is missing until its new record is in place, never half old, half new.
    await ctx.client.unlink(joinPath(stagingPath, rankRecordName(rank))).catch((err: unknown) => {
      if (!isCode(err, 'NS_NOT_FOUND')) throw err;
    });
  }
  const rankSave = stageRank(ctx, {
    step,
    rank: rank ?? 0,
    stagingPath,
    entries,
    layout,
    mode,
    onStaged: () => emit('staging'),
    onUploaded: () => emit('uploading'),
  });
  set(rankSave);
  return { rankSave, stagingPath, layout };
}

export function startSave(ctx: SaveContext, request: SaveRequest): SaveHandle {
  const started = performance.now();
  const { step, rank, options } = request;
  let rankSave: RankSave | undefined;
  const progress = (): SaveProgress => rankSave?.progress() ?? NO_PROGRESS;
  const emit = (phase: SavePhase): void => options.onProgress?.({ step, phase, ...progress() });
  const setup = prepare(ctx, request, emit, (r) => {
    rankSave = r;
  });
  const staged = setup.then(async ({ rankSave }) => {
    const { bytes } = await rankSave.staged;
    emit('staged');
    return { bytes, ms: performance.now() - started };
  });
  const durable = setup.then(async ({ rankSave, stagingPath, layout }): Promise<SaveResult> => {
    try {
      const record = await rankSave.done;
      emit('flushed');
      const { ms: stagedMs } = await staged;
      const result = { step, bytes: record.bytes, parts: record.parts.length, stagedMs };
      if (rank !== undefined) {
        await writeRankRecord(ctx, stagingPath, record, layout);
        return {
          ...result,
          path: stagingPath,
          durableMs: performance.now() - started,
          removed: [],
          progress: progress(),
        };
      }
      await writeManifest(
        ctx.client,
        stagingPath,
        buildManifest(step, [record], options.meta, Date.now()),
        layout,
      );
      emit('manifest');
      emit('publishing');
      const path = await publish(ctx.client, stagingPath, request.dir, step);
      const durableMs = performance.now() - started;
      emit('published');
      const pruned = await request.prune();
      emit('pruned');
      return { ...result, path, durableMs, ...pruned, progress: progress() };
    } catch (err) {
      // A private staging directory is nobody else's: take it away now rather than at gc.
      // Best effort: what this leaves behind, gc collects; the save's own error is the one to report.
      if (rank === undefined) await removeTree(ctx.client, stagingPath).catch(() => 0);
      throw err;
    }
  });
  // Callers may await only one of the two: the other must not count as an unhandled rejection.
  staged.catch(() => undefined); // handled by whoever awaits it, if anyone does
  durable.catch(() => undefined); // likewise
  return { step, staged, durable, progress };
}
