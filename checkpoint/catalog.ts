// What a checkpoint directory holds: published steps (a step directory
// counts only with its manifest, the success marker), and removal, which
// first moves a checkpoint into the hidden trash with one rename, so a
// reader sees it whole or not at all, and then deletes it.

import type { StripeClient } from '../client/index.js';
import { StripeError } from '../common/errors.js';
import { joinPath, MANIFEST_NAME, STAGING_DIR, stepName, stepOfName, TRASH_DIR, trashName } from './names.js';
import { isCode, listOrEmpty, mapBounded, removeTree } from './namespace.js';

/** Manifest stats asked of the MDS at once while listing (they are batched into StatMany calls). */
const LIST_STATS_IN_FLIGHT_MAX = 1_000;

export interface CheckpointInfo {
  step: number;
  /** The checkpoint's directory. */
  path: string;
  /** When its manifest was written (ms since the epoch, the MDS's clock). */
  createdMs: number;
}

export async function listPublished(client: StripeClient, dir: string): Promise<CheckpointInfo[]> {
  const candidates = (await listOrEmpty(client, dir))
    .filter((e) => e.stat.isDirectory())
    .map((e) => ({ step: stepOfName(e.name), path: joinPath(dir, e.name) }))
    .filter((c): c is { step: number; path: string } => c.step !== undefined);
  const found = await mapBounded(candidates, LIST_STATS_IN_FLIGHT_MAX, async (c) => {
    try {
      const stat = await client.stat(joinPath(c.path, MANIFEST_NAME));
      return { ...c, createdMs: stat.mtimeMs };
    } catch (err) {
      if (isCode(err, 'NS_NOT_FOUND')) return undefined;
      throw err;
    }
  });
  return found.filter((c): c is CheckpointInfo => c !== undefined).sort((a, b) => a.step - b.step);
}

export async function ensureDirs(client: StripeClient, dir: string): Promise<void> {
  await client.mkdir(joinPath(dir, STAGING_DIR), { recursive: true });
}

/** Moves a published checkpoint into the trash (one rename), then deletes it; returns the bytes freed. */
export async function removeStep(client: StripeClient, dir: string, step: number): Promise<number> {
  const from = joinPath(dir, stepName(step));
  const trash = joinPath(dir, TRASH_DIR);
  await client.mkdir(trash, { recursive: true });
  const to = joinPath(trash, trashName(stepName(step), Date.now()));
  try {
    await client.rename(from, to);
  } catch (err) {
    if (isCode(err, 'NS_NOT_FOUND'))
      throw new StripeError('CKPT_NOT_FOUND', `no checkpoint of step ${step} in ${dir}`, { dir, step });
    throw err;
  }
  return removeTree(client, to);
}
