// Which objects a removed file left, and where: pure. raid0/replicated files
// have objects `<inode>.<i>` for i < stripeCount, every replica under the
// same id; ec files one group `<inode>.0` whose chunk j is `<inode>.0.c<j>` on
// position j. Every kept map is asked, because data may not have moved yet.
import { objectToPg, placePg } from '../../placement/index.js';
import type { ClusterState } from '../cluster/state.js';
import type { DestroyRecord } from '../records.js';

export interface ObjectTarget {
  ostId: number;
  objectId: string;
  poolId: number;
  pg: number;
}

export function objectsOf(record: DestroyRecord, states: readonly ClusterState[]): ObjectTarget[] {
  const found = new Map<string, ObjectTarget>();
  const { layout, ino } = record;
  for (const state of states) {
    const pool = state.pools.find((p) => p.id === layout.poolId);
    if (!pool) continue; // the pool was created after this map
    const add = (ostId: number, objectId: string, pg: number): void => {
      if (ostId >= 0) found.set(`${ostId}/${objectId}`, { ostId, objectId, poolId: pool.id, pg });
    };
    if (layout.pattern === 'ec') {
      const key = `${ino}.0`;
      const pg = objectToPg(pool, key);
      placePg(state.map, pool, pg).osts.forEach((ostId, j) => {
        add(ostId, `${key}.c${j}`, pg);
      });
      continue;
    }
    for (let i = 0; i < layout.stripeCount; i++) {
      const key = `${ino}.${i}`;
      const pg = objectToPg(pool, key);
      for (const ostId of placePg(state.map, pool, pg).osts) add(ostId, key, pg);
    }
  }
  return [...found.values()];
}
