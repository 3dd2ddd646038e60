// Repairs of single objects: a scrub or a client reports a bad chunk
// (ReportBadChunk); when its PG is settled (holders = placement) and other
// members are up, a one-object task re-writes it on the reporting OST from a
// good copy (ec: rebuilt from k others) through the same RecoverPg path.
import { objectToPg, placePg } from '../../placement/index.js';
import type { ClusterService } from '../cluster/service.js';
import type { PoolRecord } from '../cluster/state.js';
import { pgKey, upHolders } from './holders.js';
import type { RecoveryTask } from './planner.js';

export interface RecoverySettings {
  /** Cluster-wide bytes/s; 0 unthrottled. */
  maxBytesPerSec: number;
  maxActivePgs: number;
  paused: boolean;
}

/** Repairs running at once, and waiting at most (more reports are dropped until there is room). */
export const REPAIRS_ACTIVE_MAX = 4;
export const REPAIRS_QUEUED_MAX = 10_000;

export interface BadChunkReport {
  ostId: number;
  objectId: string;
  reason: string;
  poolId: number;
  pg: number;
}

const CHUNK = /^(.*)\.c(\d+)$/;

/** The key placement hashes: the object id, or for an ec chunk its group. */
function placementKeyOf(pool: PoolRecord, objectId: string): { key: string; position: number | undefined } {
  if (pool.rule.kind !== 'erasure') return { key: objectId, position: undefined };
  const match = CHUNK.exec(objectId);
  return match ? { key: match[1]!, position: Number(match[2]) } : { key: objectId, position: undefined };
}

export class Repairs {
  private readonly queue = new Map<string, RecoveryTask>();
  reportsIgnored = 0;

  constructor(
    private readonly cluster: ClusterService,
    private readonly start: (task: RecoveryTask) => Promise<void>,
  ) {}

  get queued(): number {
    return this.queue.size;
  }

  /** Plans the repair of a reported object; false when it cannot be placed or its PG is moving. */
  report(bad: BadChunkReport, holders: ReadonlyMap<string, readonly number[]>): boolean {
    const state = this.cluster.state;
    const pools = bad.poolId > 0 ? state.pools.filter((p) => p.id === bad.poolId) : state.pools;
    for (const pool of pools) {
      const { key, position } = placementKeyOf(pool, bad.objectId);
      const pg = bad.poolId > 0 && bad.pg < pool.pgCount ? bad.pg : objectToPg(pool, key);
      if (objectToPg(pool, key) !== pg) continue;
      const placement = placePg(state.map, pool, pg).osts;
      const at = position ?? placement.indexOf(bad.ostId);
      if (at < 0 || placement[at] !== bad.ostId) continue;
      if (holders.has(pgKey(pool.id, pg))) break; // moving: recovery rewrites it anyway
      const sources = upHolders(state.map, placement)
        .filter((h) => h.ostId !== bad.ostId)
        .map((h) => ({ ...h, inPlacement: true }));
      if (sources.length < (pool.rule.kind === 'erasure' ? pool.rule.k : 1)) break;
      if (this.queue.size >= REPAIRS_QUEUED_MAX) break;
      this.queue.set(`${bad.ostId}/${bad.objectId}`, {
        poolId: pool.id,
        pg,
        target: { ostId: bad.ostId, position: at },
        sources,
        mode: bad.reason === 'OBJ_NOT_FOUND' ? 'absent' : 'all',
        lost: false,
        objectIds: [bad.objectId],
      });
      return true;
    }
    this.reportsIgnored++;
    return false;
  }

  startDue(active: ReadonlyMap<string, { task: RecoveryTask }>): void {
    let running = [...active.values()].filter((a) => a.task.objectIds.length > 0).length;
    const state = this.cluster.state;
    for (const [key, task] of this.queue) {
      if (running >= REPAIRS_ACTIVE_MAX) return;
      // A copy a client skipped while its OST was down waits until the OST is
      // up again; one whose OST left the placement is recovery's business.
      const pool = state.pools.find((p) => p.id === task.poolId);
      const placement = pool ? placePg(state.map, pool, task.pg).osts : [];
      if (placement[task.target.position] !== task.target.ostId) {
        this.queue.delete(key);
        continue;
      }
      if (!state.map.osts.find((o) => o.id === task.target.ostId)?.state.up) continue;
      this.queue.delete(key);
      running++;
      void this.start(task);
    }
  }
}
