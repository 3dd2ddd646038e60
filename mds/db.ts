// The MDS database: one classic-level store, UTF-8 keys (see keys.ts), JSON
// values. Every acknowledged change reaches it through the group committer
// (commit.ts) as part of one synced batch.
import { ClassicLevel } from 'classic-level';

export type MdsDb = ClassicLevel<string, unknown>;

export type BatchOp = { type: 'put'; key: string; value: unknown } | { type: 'del'; key: string };

export async function openDb(dir: string): Promise<MdsDb> {
  const db = new ClassicLevel<string, unknown>(dir, { keyEncoding: 'utf8', valueEncoding: 'json' });
  await db.open();
  return db;
}
