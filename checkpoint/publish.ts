// Publishing: the manifest is written inside the hidden staging directory,
// then one MDS rename moves the whole directory to its final name. Before the
// rename nothing of the checkpoint is visible; after it, all of it is, with
// its manifest: a reader can never see a partial checkpoint.

import type { Layout, StripeClient } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import { encodeJson, MANIFEST_FORMAT, type Manifest, type RankRecord } from './manifest.js';
import { joinPath, MANIFEST_NAME, stepName } from './names.js';
import { isCode, writeSmallFile } from './namespace.js';

export function buildManifest(
  step: number,
  records: readonly RankRecord[],
  meta: unknown,
  nowMs: number,
): Manifest {
  const sorted = [...records].sort((a, b) => a.rank - b.rank);
  const owner = new Map<string, number>();
  for (const r of sorted)
    for (const p of r.parts) {
      const other = owner.get(p.name);
      if (other !== undefined)
        throw new StripeError('REQ_INVALID', `part ${p.name} was saved by rank ${other} and rank ${r.rank}`, {
          part: p.name,
          ranks: [other, r.rank],
        });
      owner.set(p.name, r.rank);
    }
  return {
    format: MANIFEST_FORMAT,
    step,
    createdMs: nowMs,
    bytes: sorted.reduce((sum, r) => sum + r.parts.reduce((s, p) => s + p.bytes, 0), 0),
    ranks: sorted.length,
    files: sorted.map((r) => ({ name: r.file, bytes: r.bytes })),
    parts: sorted.flatMap((r) => r.parts),
    ...(meta === undefined ? {} : { meta }),
  };
}

/** Writes the manifest into the staging directory (replacing one an earlier, failed commit left). */
export async function writeManifest(
  client: StripeClient,
  stagingPath: string,
  manifest: Manifest,
  layout: Layout,
): Promise<void> {
  const path = joinPath(stagingPath, MANIFEST_NAME);
  const data = encodeJson(manifest);
  try {
    await writeSmallFile(client, path, data, layout);
  } catch (err) {
    if (!isCode(err, 'NS_EXISTS')) throw err;
    await client.unlink(path);
    await writeSmallFile(client, path, data, layout);
  }
}

/** The one rename that makes a checkpoint visible; CKPT_EXISTS when that step is already published. */
export async function publish(
  client: StripeClient,
  stagingPath: string,
  dir: string,
  step: number,
): Promise<string> {
  const finalPath = joinPath(dir, stepName(step));
  try {
    await client.rename(stagingPath, finalPath);
  } catch (err) {
    if (isCode(err, 'NS_NOT_EMPTY', 'NS_EXISTS', 'NS_NOT_DIR'))
      throw new StripeError('CKPT_EXISTS', `a checkpoint of step ${step} is already published in ${dir}`, {
        dir,
        step,
      });
    throw err;
  }
  return finalPath;
}
