// <data>/launcher-settings.json: what a local cluster keeps across `stripefs cluster up` runs on
// the same data folder: each OST's quota (chosen once, when the folder is new) and the hosts
// `stripefs cluster add` started, which come back with the others on the next `up`.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LauncherSettings {
  ostCapacityBytes?: number;
  addedHosts?: { host: string; rack: string }[];
}

const SETTINGS_FILE = 'launcher-settings.json';

export function readSettings(dataDir: string): LauncherSettings {
  const file = join(dataDir, SETTINGS_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LauncherSettings) : {};
}

/** Merges `changes` into the file (written whole, then renamed: never half a file). */
export function updateSettings(dataDir: string, changes: LauncherSettings): LauncherSettings {
  mkdirSync(dataDir, { recursive: true });
  const next = { ...readSettings(dataDir), ...changes };
  const file = join(dataDir, SETTINGS_FILE);
  writeFileSync(`${file}.tmp`, `${JSON.stringify(next, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
  return next;
}
