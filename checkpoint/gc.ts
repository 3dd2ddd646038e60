// Collecting what saves and removals left behind: staging directories no save
// has touched for olderThanMs (a writer killed mid-save, a rank that never
// came), everything in the trash (a removal that died half way), and local
// staging folders of the same age.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { StripeClient } from '../client/index.js';
import { joinPath, STAGING_DIR, TRASH_DIR } from './names.js';
import { listOrEmpty, removeTree } from './namespace.js';

export interface GcReport {
  /** Staging directories removed, and those left because a save may still be writing them. */
  stagingRemoved: string[];
  stagingKept: string[];
  trashRemoved: string[];
  /** Local staging folders removed (with a stagingDir). */
  localRemoved: string[];
  /** Bytes of the files deleted in the cluster. */
  freedBytes: number;
}

/** The last time anything in a staging directory changed (its entries' and its own times). */
async function lastTouchedMs(
  client: StripeClient,
  path: string,
  own: { mtimeMs: number; ctimeMs: number },
): Promise<number> {
  let newest = Math.max(own.mtimeMs, own.ctimeMs);
  for (const { stat: s } of await listOrEmpty(client, path)) newest = Math.max(newest, s.mtimeMs, s.ctimeMs);
  return newest;
}

export async function collect(
  client: StripeClient,
  dir: string,
  options: { olderThanMs: number; nowMs: number; localRoot?: string },
): Promise<GcReport> {
  const report: GcReport = {
    stagingRemoved: [],
    stagingKept: [],
    trashRemoved: [],
    localRemoved: [],
    freedBytes: 0,
  };
  const stagingDir = joinPath(dir, STAGING_DIR);
  for (const { name, stat: s } of await listOrEmpty(client, stagingDir)) {
    const path = joinPath(stagingDir, name);
    const touched = s.isDirectory() ? await lastTouchedMs(client, path, s) : Math.max(s.mtimeMs, s.ctimeMs);
    if (options.nowMs - touched < options.olderThanMs) {
      report.stagingKept.push(path);
      continue;
    }
    if (s.isDirectory()) report.freedBytes += await removeTree(client, path);
    else {
      await client.unlink(path);
      report.freedBytes += s.size;
    }
    report.stagingRemoved.push(path);
  }
  const trashDir = joinPath(dir, TRASH_DIR);
  for (const { name } of await listOrEmpty(client, trashDir)) {
    const path = joinPath(trashDir, name);
    report.freedBytes += await removeTree(client, path);
    report.trashRemoved.push(path);
  }
  if (options.localRoot) report.localRemoved = await collectLocal(options.localRoot, options);
  return report;
}

async function collectLocal(
  root: string,
  options: { olderThanMs: number; nowMs: number },
): Promise<string[]> {
  const removed: string[] = [];
  // No local staging folder yet: nothing to collect.
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    const path = join(root, name);
    // Gone meanwhile (another gc, a save that finished): nothing to collect.
    const s = await stat(path).catch(() => undefined);
    if (!s || options.nowMs - s.mtimeMs < options.olderThanMs) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}
