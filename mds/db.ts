// The MDS database: one classic-level store, UTF-8 keys (see keys.ts), JSON
// values, except raw ones stored as their bytes (a file's bytes on the MDS:
// mds/dom.ts). Every acknowledged change reaches it through the group
// committer (commit.ts) as part of one synced batch.
import { ClassicLevel } from 'classic-level';

export type MdsDb = ClassicLevel<string, unknown>;

/** A change; `raw`: the value is a Buffer stored as its bytes, not as JSON. */
export type BatchOp =
  | { type: 'put'; key: string; value: unknown; raw?: boolean }
  | { type: 'del'; key: string };

/** The ops as classic-level takes them: raw values with the buffer encoding. */
export function levelOps(ops: readonly BatchOp[]) {
  return ops.map((op) =>
    op.type === 'put' && op.raw
      ? { type: 'put' as const, key: op.key, value: op.value, valueEncoding: 'buffer' as const }
      : op,
  );
}

/** A raw value (put with `raw`), or undefined. */
export function getRawSync(db: MdsDb, key: string): Buffer | undefined {
  return db.getSync<string, Buffer>(key, { valueEncoding: 'buffer' });
}

export async function openDb(dir: string): Promise<MdsDb> {
  const db = new ClassicLevel<string, unknown>(dir, { keyEncoding: 'utf8', valueEncoding: 'json' });
  await db.open();
  return db;
}
