// ec reads of one data chunk's range, and of a readahead run of one: read the
// chunk, or rebuild it from k others, or find it on the PG's old holder while
// the PG moves, or read a suspect chunk as the last resort, as the copy rules
// (client/copy-rules.ts) decide; the rebuilds are client/ec-rebuild.ts's.
import { type BlockStamps, sameStamps } from '../common/block-stamps.js';
import { StripeError } from '../common/errors.js';
import type { CopyIo } from './copy-io.js';
import {
  ecHolderToRead,
  ecLastResort,
  ecRunPlan,
  ecStart,
  endsAttempt,
  type Failure,
  type HealthView,
} from './copy-rules.js';
import type { ClientCounters } from './counters.js';
import { type EcRebuild, type EcSiblings, peekSiblings, type RebuildOf } from './ec-rebuild.js';
import type { FileLayout } from './layout.js';
import { locateEcChunks, type ObjectTarget } from './locate.js';
import type { MapView } from './map.js';
import type { PartPlaces } from './object-transport.js';
import { type RetryDeps, withRetries } from './retry.js';

export interface EcReadDeps extends RetryDeps {
  copies: CopyIo;
  rebuild: EcRebuild;
  health: HealthView;
  counters: ClientCounters;
}

function rebuildOf(view: MapView, fileLayout: FileLayout, targets: ObjectTarget[], chunk: number): RebuildOf {
  return { view, targets, k: fileLayout.layout.k as number, m: fileLayout.layout.m as number, chunk };
}

export class EcRead {
  constructor(private readonly deps: EcReadDeps) {}

  /**
   * Bytes [chunkOffset, chunkOffset+length) of data chunk `chunk`. The range lies inside one
   * stripe's shard, so the same range of any k chunks rebuilds it.
   */
  range(
    fileLayout: FileLayout,
    inode: number,
    chunk: number,
    chunkOffset: number,
    length: number,
    siblings?: EcSiblings,
  ): Promise<Buffer> {
    const { copies, health } = this.deps;
    return withRetries(this.deps, async (view) => {
      const targets = locateEcChunks(view, fileLayout, inode);
      const primary = targets[chunk] as ObjectTarget;
      const ost = primary.osts[0];
      const failures: Failure[] = [];
      const start = ecStart(view, health, ost);
      if (start.do === 'read-chunk') {
        const others = () => targets.map((t) => t.osts[0]);
        const read = await copies.readChunk(
          view,
          primary,
          start.ost,
          chunkOffset,
          length,
          copies.giveUpUnless(view, start.ost, others),
        );
        if (read.ok) return read.data;
        if (endsAttempt(read.code)) throw read.error;
        failures.push({ ost: start.ost, code: read.code });
        copies.report(start.ost, primary.objectId, read.code);
      } else if (start.failure) {
        failures.push(start.failure);
      }
      siblings?.rebuilding();
      const of = rebuildOf(view, fileLayout, targets, chunk);
      const known = siblings ? await peekSiblings(siblings, of.k, chunk) : new Map<number, Promise<Buffer>>();
      const seen: BlockStamps[] = [];
      const rebuilt = await this.deps.rebuild.range(of, chunkOffset, length, failures, known, seen);
      if (rebuilt) return rebuilt;
      // Not enough chunks where the map puts them: while the PG is moving, the
      // chunk of this position may still be on its old holder.
      const moved = await this.fromOldHolder(view, primary, chunk, chunkOffset, length, failures, seen);
      if (moved) return moved;
      if (ecLastResort(view, ost, failures)) {
        const read = await copies.readChunk(view, primary, ost, chunkOffset, length);
        if (read.ok) return read.data;
        failures.push({ ost, code: read.code });
      }
      const stripe = Math.floor(chunkOffset / fileLayout.layout.stripeSize);
      throw new StripeError(
        'IO_DEGRADED',
        `not enough chunks could be read to rebuild stripe ${stripe} of ${primary.objectId} at ${chunkOffset}+${length}`,
        {
          stripes: [stripe],
          objects: targets.map((t) => t.objectId),
          osts: targets.map((t) => t.osts[0] ?? -1),
          failures,
        },
      );
    });
  }

  /**
   * The chunk of position `chunk` from the PG's old holder of that position, if the PG is moving,
   * and only when it holds the same write as a placed chunk read for this range (`seen`): an old
   * holder receives no writes once its PG moved, so its chunk may be older than the placed ones,
   * which hold the last acknowledged write or a newer one.
   */
  private async fromOldHolder(
    view: MapView,
    primary: ObjectTarget,
    chunk: number,
    chunkOffset: number,
    length: number,
    failures: Failure[],
    seen: readonly BlockStamps[],
  ): Promise<Buffer | undefined> {
    // No placed chunk read to check it against: its write cannot be told current.
    if (seen.length === 0) return undefined;
    // Not knowing only costs the rebuild's own error here (IO_DEGRADED, retried): no guess is made.
    const answer = await this.deps.copies.holdersOf(view, primary).catch((err: unknown) => {
      if (err instanceof StripeError && endsAttempt(err.code)) throw err;
      return undefined;
    });
    const holder = ecHolderToRead(answer, chunk, failures);
    if (holder === undefined) return undefined;
    const read = await this.deps.copies.readChunk(view, primary, holder, chunkOffset, length);
    if (!read.ok) {
      failures.push({ ost: holder, code: read.code });
      return undefined;
    }
    const stamps = read.stamps;
    if (!stamps || !seen.some((s) => sameStamps(s, stamps))) {
      failures.push({ ost: holder, code: 'OBJ_STALE' });
      return undefined;
    }
    this.deps.counters.degradedReads++;
    return read.data;
  }

  /**
   * A readahead run of data chunk `chunk` (ObjectIo.readRun): from the chunk's own OST, or, where
   * the reader fetches the sibling runs too (`siblingsOf`), rebuilt around a chunk that is down,
   * suspect or slow (copy-rules ecRunPlan). `into`: where parts read from the chunk itself land.
   */
  run(
    fileLayout: FileLayout,
    inode: number,
    chunk: number,
    objectOffset: number,
    lengths: readonly number[],
    onPart: (index: number, data: Buffer) => void,
    siblingsOf?: (index: number) => EcSiblings,
    into?: PartPlaces,
  ): Promise<void> {
    const view = this.deps.mds.mapView;
    const targets = locateEcChunks(view, fileLayout, inode);
    const ost = targets[chunk]?.osts[0];
    const direct = () =>
      this.deps.copies.readRun(
        view,
        targets[chunk] as ObjectTarget,
        ost,
        objectOffset,
        lengths,
        onPart,
        into,
      );
    if (!siblingsOf) return direct();
    const of = rebuildOf(view, fileLayout, targets, chunk);
    switch (ecRunPlan(view, this.deps.health, ost)) {
      case 'direct':
        return direct();
      case 'rebuild':
        return this.deps.rebuild.run(of, objectOffset, lengths, onPart, siblingsOf);
      case 'rebuild-or-direct':
        return this.deps.rebuild.run(of, objectOffset, lengths, onPart, siblingsOf, direct);
    }
  }
}
