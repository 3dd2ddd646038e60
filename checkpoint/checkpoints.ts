// checkpoints(client, dir): saves that are staged, aggregated into whole
// stripes, uploaded with a bounded number of stripes in flight and published
// with one rename whose directory carries the manifest; async saves that
// return once staged; parallel ranks that one commit publishes; load, verify,
// remove, retention and gc. A thin layer over StripeClient: every byte goes
// through its file handles.
import type { Readable } from 'node:stream';
import type { Layout, StripeClient } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import { type CheckpointInfo, ensureDirs, listPublished, removeStep } from './catalog.js';
import { DiskBudget } from './disk-stage.js';
import { collect, type GcReport } from './gc.js';
import { CHECKPOINT_BOUNDS, type CheckpointLimits, checkpointLimits } from './limits.js';
import { checkParts, isBad, loadBuffers, type PartOutcome, partStream, readManifest } from './load.js';
import type { Manifest, PartRecord } from './manifest.js';
import { checkRank, checkStep, joinPath, STAGING_DIR, stepName } from './names.js';
import { isCode } from './namespace.js';
import { type LoadTargets, loadTargets, type Parts } from './parts.js';
import { commitRanks, type Declared } from './ranks.js';
import { checkRetention, type Retention, stepsToRemove } from './retention.js';
import { type SaveHandle, type SaveOptions, type SaveResult, startSave } from './save.js';
import type { SaveContext } from './stage-rank.js';
import { IdleBlocks, StagingMemory } from './staging-memory.js';

export interface CheckpointOptions extends Partial<CheckpointLimits>, Retention {
  /** Layout of the data files (default: the checkpoint directory's default layout). */
  layout?: Layout;
  /** A local folder for async saves to stage in (the multi-tier path), bounded by stagingDiskBytesMax. */
  stagingDir?: string;
}

export interface VerifyReport {
  step: number;
  ok: boolean;
  parts: number;
  bytes: number;
  bad: { name: string; reason: string }[];
}

export class Checkpoints {
  readonly limits: CheckpointLimits;
  private readonly retention: Retention;
  private readonly ctx: SaveContext;
  private readonly idle: IdleBlocks;
  private readonly saves = new Set<Promise<unknown>>();

  constructor(
    private readonly client: StripeClient,
    readonly dir: string,
    private readonly options: CheckpointOptions = {},
  ) {
    const { layout, stagingDir, keepLast, keepEvery, ...limits } = options;
    if (typeof dir !== 'string' || !dir.startsWith('/'))
      throw new StripeError('REQ_INVALID', `a checkpoint directory is an absolute path, got ${String(dir)}`);
    this.limits = checkpointLimits(limits);
    this.retention = checkRetention({ keepLast, keepEvery });
    this.idle = new IdleBlocks(this.limits.stagingBytesMax);
    let uploads: Promise<unknown> = Promise.resolve();
    this.ctx = {
      client,
      limits: this.limits,
      asyncMemory: new StagingMemory(this.limits.stagingBytesMax, this.idle),
      idle: this.idle,
      disk: stagingDir
        ? { root: stagingDir, budget: new DiskBudget(this.limits.stagingDiskBytesMax) }
        : undefined,
      uploadTurn: (work) => {
        const run = uploads.then(work);
        // The chain only orders uploads: each save reports its own failure through its promises.
        uploads = run.catch(() => undefined);
        return run;
      },
    };
  }

  /** Saves one checkpoint; resolves once it is published (durable and visible). */
  save(step: number, parts: Parts, options?: SaveOptions & { async?: false }): Promise<SaveResult>;
  /** Saves in the background; resolves once staged (the caller may change its buffers), with `durable` to await. */
  save(step: number, parts: Parts, options: SaveOptions & { async: true }): Promise<SaveHandle>;
  save(step: number, parts: Parts, options: SaveOptions = {}): Promise<SaveResult | SaveHandle> {
    return this.run(this.begin(step, parts, options, undefined), options);
  }

  /**
   * Saves this rank's parts of checkpoint `step` into the staging directory every rank shares;
   * `commit` publishes them once every declared rank or part is there. Resolves (or `durable`
   * settles) once the rank's parts are durable, still hidden.
   */
  saveRank(
    step: number,
    rank: number,
    parts: Parts,
    options?: SaveOptions & { async?: false },
  ): Promise<SaveResult>;
  saveRank(
    step: number,
    rank: number,
    parts: Parts,
    options: SaveOptions & { async: true },
  ): Promise<SaveHandle>;
  saveRank(
    step: number,
    rank: number,
    parts: Parts,
    options: SaveOptions = {},
  ): Promise<SaveResult | SaveHandle> {
    return this.run(this.begin(step, parts, options, rank), options);
  }

  /** Publishes what the ranks staged; CKPT_INCOMPLETE (publishing nothing) while a declared rank or part is missing. */
  async commit(step: number, declared: Declared): Promise<SaveResult> {
    checkStep(step);
    const started = performance.now();
    const published = await commitRanks(this.client, this.dir, step, declared, await this.layoutForSave());
    const pruned = await this.pruneQuietly();
    return { ...published, stagedMs: 0, durableMs: performance.now() - started, ...pruned };
  }

  /** Published checkpoints, oldest first (a step directory without its manifest is not one). */
  list(): Promise<CheckpointInfo[]> {
    return listPublished(this.client, this.dir);
  }

  async latest(): Promise<CheckpointInfo | undefined> {
    return (await this.list()).at(-1);
  }

  manifest(step: number): Promise<Manifest> {
    return readManifest(this.client, this.dir, checkStep(step));
  }

  /**
   * Every part (or those named) as a buffer, read in parallel and checked against its crc32c.
   * `into` gives memory to load parts into in place (a restored model's own tensors, as PyTorch's
   * distributed checkpoint loads): each exactly its part's size; the map then holds views of it.
   * Parts without one get buffers of their own. After a failure `into` holds unspecified bytes.
   */
  async load(
    step: number,
    options: { parts?: string[]; into?: LoadTargets } = {},
  ): Promise<Map<string, Buffer>> {
    const manifest = await this.manifest(step);
    const into = options.into ? loadTargets(options.into) : new Map<string, Uint8Array>();
    const selected = this.select(manifest, options.parts);
    this.select(manifest, [...into.keys()]); // every part given memory exists (CKPT_NOT_FOUND)
    return loadBuffers(this.client, this.stepPath(step), selected, this.limits, into);
  }

  /** Every part (or those named) as a stream, opened when first read; each fails with CKPT_CORRUPT if its crc32c differs. */
  async loadStreams(step: number, options: { parts?: string[] } = {}): Promise<Map<string, Readable>> {
    const manifest = await this.manifest(step);
    const parts = this.select(manifest, options.parts);
    return new Map(parts.map((p) => [p.name, partStream(this.client, this.stepPath(step), p)]));
  }

  /** Reads every part and checks sizes and crc32c against the manifest. */
  async verify(
    step: number,
    options: { onPart?: (outcome: PartOutcome) => void } = {},
  ): Promise<VerifyReport> {
    const manifest = await this.manifest(step);
    const outcomes = await checkParts(
      this.client,
      this.stepPath(step),
      manifest.parts,
      this.limits,
      options.onPart,
    );
    const bad = outcomes.filter(isBad).map((o) => ({
      name: o.part.name,
      reason: o.error ?? `crc32c ${o.crc32c}, the manifest says ${o.part.crc32c}`,
    }));
    return { step, ok: bad.length === 0, parts: manifest.parts.length, bytes: manifest.bytes, bad };
  }

  /** Removes a published checkpoint (hidden in one rename, then deleted); returns the bytes freed. */
  remove(step: number): Promise<number> {
    return removeStep(this.client, this.dir, checkStep(step));
  }

  /** Applies the retention policy now; returns the steps removed. */
  async prune(retention: Retention = this.retention): Promise<number[]> {
    checkRetention(retention);
    const steps = (await this.list()).map((c) => c.step);
    const doomed = stepsToRemove(steps, retention).slice(0, CHECKPOINT_BOUNDS.removalsPerPassMax);
    const removed: number[] = [];
    for (const step of doomed) {
      await this.remove(step).then(
        () => removed.push(step),
        (err: unknown) => {
          if (!isCode(err, 'CKPT_NOT_FOUND')) throw err;
        },
      );
    }
    return removed;
  }

  /** Collects staging remains untouched for olderThanMs (default gcGraceMs), the trash, and applies retention. */
  async gc(
    options: { olderThanMs?: number; retention?: Retention } = {},
  ): Promise<GcReport & { retentionRemoved: number[] }> {
    const report = await collect(this.client, this.dir, {
      olderThanMs: options.olderThanMs ?? this.limits.gcGraceMs,
      nowMs: Date.now(),
      ...(this.options.stagingDir ? { localRoot: this.options.stagingDir } : {}),
    });
    const retentionRemoved = await this.prune(options.retention ?? this.retention);
    return { ...report, retentionRemoved };
  }

  /** Waits for saves in progress to settle, then lets go of the staging memory kept for reuse. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.saves]);
    this.idle.clear();
  }

  /** Staging memory (or local disk) held now and at most so far, all saves together. */
  staging(): {
    memoryBytes: number;
    memoryBytesPeak: number;
    diskBytes: number;
    diskBytesPeak: number;
    idleBytes: number;
  } {
    return {
      memoryBytes: this.ctx.asyncMemory.bytes,
      memoryBytesPeak: this.ctx.asyncMemory.peakBytes,
      diskBytes: this.ctx.disk?.budget.bytes ?? 0,
      diskBytesPeak: this.ctx.disk?.budget.peakBytes ?? 0,
      idleBytes: this.idle.bytes,
    };
  }

  private begin(step: number, parts: Parts, options: SaveOptions, rank: number | undefined): SaveHandle {
    if (rank !== undefined) checkRank(rank);
    const handle = startSave(this.ctx, {
      dir: this.dir,
      step,
      parts,
      rank,
      options,
      layout: () => this.layoutForSave(),
      prune: () => this.pruneQuietly(),
    });
    this.saves.add(handle.durable);
    handle.durable.then(
      () => this.saves.delete(handle.durable),
      () => this.saves.delete(handle.durable),
    );
    return handle;
  }

  private async run(handle: SaveHandle, options: SaveOptions): Promise<SaveResult | SaveHandle> {
    if (!options.async) return handle.durable;
    await handle.staged;
    return handle;
  }

  private async layoutForSave(): Promise<Layout> {
    await ensureDirs(this.client, this.dir);
    if (this.options.layout) return this.options.layout;
    const layout = (await this.client.stat(this.dir)).layout;
    if (!layout)
      throw new StripeError('LAYOUT_INVALID', `${this.dir} has no default layout: pass one to checkpoints()`);
    return layout;
  }

  private async pruneQuietly(): Promise<{ removed: number[]; pruneError?: string }> {
    if (this.retention.keepLast === undefined) return { removed: [] };
    try {
      return { removed: await this.prune() };
    } catch (err) {
      return { removed: [], pruneError: err instanceof Error ? err.message : String(err) };
    }
  }

  private stepPath(step: number): string {
    return joinPath(this.dir, stepName(step));
  }

  private select(manifest: Manifest, names: string[] | undefined): PartRecord[] {
    if (!names) return manifest.parts;
    const byName = new Map(manifest.parts.map((p) => [p.name, p]));
    return names.map((name) => {
      const part = byName.get(name);
      if (!part)
        throw new StripeError('CKPT_NOT_FOUND', `checkpoint ${manifest.step} has no part ${name}`, {
          step: manifest.step,
          part: name,
        });
      return part;
    });
  }
}

/** The checkpoints kept in `dir` (an absolute stripefs path), saved and loaded through `client`. */
export function checkpoints(client: StripeClient, dir: string, options: CheckpointOptions = {}): Checkpoints {
  return new Checkpoints(client, dir, options);
}

export { STAGING_DIR };
