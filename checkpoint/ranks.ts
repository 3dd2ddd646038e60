// Publishing a checkpoint that many ranks saved: read every rank's record
// from the shared staging directory, refuse (CKPT_INCOMPLETE, publishing
// nothing) while a declared rank or part is missing or a rank is being saved
// again, then write the manifest and rename, as a single save does.

import type { Layout, StripeClient } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import { CHECKPOINT_BOUNDS } from './limits.js';
import { decodeRankRecord, type RankRecord } from './manifest.js';
import { joinPath, rankOfRecordName, STAGING_DIR, sharedStagingName, stepName } from './names.js';
import { listOrEmpty, mapBounded, readSmallFile, refuseIfPublished } from './namespace.js';
import { buildManifest, publish, writeManifest } from './publish.js';

/** What a commit must find staged: ranks 0..ranks-1, and/or these part names. */
export interface Declared {
  ranks?: number;
  parts?: string[];
  /** JSON kept in the manifest. */
  meta?: unknown;
}

/** Rank records read at once. */
const RECORDS_IN_FLIGHT_MAX = 64;

function checkDeclared(declared: Declared): void {
  const { ranks, parts } = declared;
  if (ranks === undefined && parts === undefined)
    throw new StripeError('REQ_INVALID', 'a commit declares what it needs: ranks, parts, or both');
  if (ranks !== undefined && (!Number.isInteger(ranks) || ranks < 1 || ranks > CHECKPOINT_BOUNDS.ranksMax))
    throw new StripeError('REQ_INVALID', `ranks must be 1..${CHECKPOINT_BOUNDS.ranksMax}, got ${ranks}`);
  if (parts !== undefined && !Array.isArray(parts))
    throw new StripeError('REQ_INVALID', 'parts must be a list of names');
}

export async function commitRanks(
  client: StripeClient,
  dir: string,
  step: number,
  declared: Declared,
  layout: Layout,
): Promise<{ step: number; path: string; bytes: number; parts: number }> {
  checkDeclared(declared);
  await refuseIfPublished(client, dir, step);
  const stagingPath = joinPath(dir, STAGING_DIR, sharedStagingName(step));
  const entries = await listOrEmpty(client, stagingPath);
  const sizes = new Map(entries.map((e) => [e.name, e.stat.size]));
  const wanted = entries
    .map((e) => ({ name: e.name, rank: rankOfRecordName(e.name) }))
    .filter((e): e is { name: string; rank: number } => e.rank !== undefined)
    .filter((e) => declared.ranks === undefined || e.rank < declared.ranks);
  const records = await mapBounded(wanted, RECORDS_IN_FLIGHT_MAX, async (e) => {
    const path = joinPath(stagingPath, e.name);
    const record = decodeRankRecord(
      await readSmallFile(client, path, CHECKPOINT_BOUNDS.manifestBytesMax),
      path,
    );
    if (record.step !== step || record.rank !== e.rank)
      throw new StripeError(
        'CKPT_CORRUPT',
        `${path} is rank ${record.rank}'s record of step ${record.step}`,
        { path },
      );
    return record;
  });
  refuseIfIncomplete(dir, step, declared, records, sizes);
  const manifest = buildManifest(step, records, declared.meta, Date.now());
  await writeManifest(client, stagingPath, manifest, layout);
  const path = await publish(client, stagingPath, dir, step);
  return { step, path, bytes: manifest.bytes, parts: manifest.parts.length };
}

function refuseIfIncomplete(
  dir: string,
  step: number,
  declared: Declared,
  records: readonly RankRecord[],
  sizes: ReadonlyMap<string, number>,
): void {
  const ranks = new Set(records.map((r) => r.rank));
  const names = new Set(records.flatMap((r) => r.parts.map((p) => p.name)));
  const missingRanks = Array.from({ length: declared.ranks ?? 0 }, (_, r) => r).filter((r) => !ranks.has(r));
  const missingParts = (declared.parts ?? []).filter((name) => !names.has(name));
  // A record whose data file no longer has its length: that rank is saving again.
  const rewritingRanks = records.filter((r) => sizes.get(r.file) !== r.bytes).map((r) => r.rank);
  if (missingRanks.length + missingParts.length + rewritingRanks.length === 0) return;
  const what = [
    missingRanks.length ? `ranks ${missingRanks.slice(0, 20).join(', ')} not staged` : '',
    missingParts.length ? `parts ${missingParts.slice(0, 20).join(', ')} not staged` : '',
    rewritingRanks.length ? `ranks ${rewritingRanks.slice(0, 20).join(', ')} being saved again` : '',
  ].filter(Boolean);
  throw new StripeError(
    'CKPT_INCOMPLETE',
    `${dir}/${stepName(step)}: ${what.join('; ')}: nothing published; commit again once they are saved`,
    { step, missingRanks, missingParts, rewritingRanks, stagedRanks: [...ranks].sort((a, b) => a - b) },
  );
}
