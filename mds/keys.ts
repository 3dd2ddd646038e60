// The one module that builds keys of the MDS database. Keys are UTF-8
// strings; numbers are 16 hex digits so byte order is numeric order, and
// directory entries sort by (parent inode, name bytes), which makes readdir
// one range scan in name order.
//
//   S/schema             schema version
//   C/inode              end of the reserved inode block (the allocator's counter)
//   C/nodes              entries that exist (files, directories, symlinks, the root), for statfs
//   C/dom                files with bytes on the MDS and those bytes ({ files, bytes }), for statfs
//   A/root               the root directory's attributes (it has no dentry)
//   D/<parent>/<name>    a directory entry with the child's full attributes inline
//   I/<inode>            back pointer inode -> (parent, name), for Commit by inode
//   Q/<inode>            destroy-queue record: a removed file whose objects must go
//   X/<inode>/<name>     one extended attribute's value (base64); its entry's record lists the names
//   B/<inode>            a file's bytes kept on the MDS (data on the MDS): { crc, data (base64) }
//   M/current            the current cluster state (map, pools, OSS records)
//   M/e/<epoch>          one kept map epoch
//   R/h/<pool>/<pg>      recovery: the holders of a PG whose holders differ from its placement
//   R/f/<pool>/<pg>      recovery: an ec PG's fill-only sources ([position, from, to]: mds/recovery/holders.ts, ecReturning)
//   R/s/<ost>/<pool>/<pg> recovery: an OST keeps a stale copy of a PG (purge it, or re-copy all)
//   R/r/<ost>/<objectId> recovery: a queued repair of one copy (kept until it is done or dropped)
//   R/cfg                recovery settings changed at run time (PUT /api/recovery)
//   R/w/<ost>            a phased weight change of an OST in progress (target, step)
//   R/g/<pool>/<pg>      deep scrub: a PG's last deep scrub (time, task, what it found)
//   R/gs                 deep scrub: when background scheduling began (PGs never scrubbed are due from it)
//   R/t/<task>           deep scrub: a task's header (scope, trigger, its PGs, state)
//   R/t/<task>/<pool>/<pg> deep scrub: one PG's result in a task (counters, findings), once it finished
//   K/<name>             an identity: its stored key (never the secret), caps, admin flag, allow-list
//   T/keys               the data-path ticket keys still valid (newest last)

export const SCHEMA_VERSION = 1;

function hex16(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`key number out of range: ${n}`);
  return n.toString(16).padStart(16, '0');
}

export const KEYS = {
  schema: 'S/schema',
  inodeCounter: 'C/inode',
  nodeCounter: 'C/nodes',
  domCounter: 'C/dom',
  rootAttr: 'A/root',
  clusterCurrent: 'M/current',
  dentry: (parent: number, name: string): string => `D/${hex16(parent)}/${name}`,
  /** All entries of one directory lie in [start, end): '0' follows '/' in byte order. */
  dentryRange: (parent: number): { gt: string; lt: string } => ({
    gt: `D/${hex16(parent)}/`,
    lt: `D/${hex16(parent)}0`,
  }),
  dentryPrefix: (parent: number): string => `D/${hex16(parent)}/`,
  backPointer: (inode: number): string => `I/${hex16(inode)}`,
  xattr: (inode: number, name: string): string => `X/${hex16(inode)}/${name}`,
  dom: (inode: number): string => `B/${hex16(inode)}`,
  domRange: { gt: 'B/', lt: 'B0' },
  /** Every directory entry of every directory, for counting them once (schema upgrade). */
  dentriesAll: { gt: 'D/', lt: 'D0' },
  destroy: (inode: number): string => `Q/${hex16(inode)}`,
  destroyRange: { gt: 'Q/', lt: 'Q0' },
  mapEpoch: (epoch: number): string => `M/e/${hex16(epoch)}`,
  mapEpochRange: { gt: 'M/e/', lt: 'M/e0' },
  holders: (poolId: number, pg: number): string => `R/h/${hex16(poolId)}/${hex16(pg)}`,
  holdersRange: { gt: 'R/h/', lt: 'R/h0' },
  fillSources: (poolId: number, pg: number): string => `R/f/${hex16(poolId)}/${hex16(pg)}`,
  fillSourcesRange: { gt: 'R/f/', lt: 'R/f0' },
  staleCopy: (ostId: number, poolId: number, pg: number): string =>
    `R/s/${hex16(ostId)}/${hex16(poolId)}/${hex16(pg)}`,
  staleCopyRange: { gt: 'R/s/', lt: 'R/s0' },
  repair: (ostId: number, objectId: string): string => `R/r/${hex16(ostId)}/${objectId}`,
  repairRange: { gt: 'R/r/', lt: 'R/r0' },
  recoverySettings: 'R/cfg',
  weightPhase: (ostId: number): string => `R/w/${hex16(ostId)}`,
  weightPhaseRange: { gt: 'R/w/', lt: 'R/w0' },
  scrubStamp: (poolId: number, pg: number): string => `R/g/${hex16(poolId)}/${hex16(pg)}`,
  scrubStampRange: { gt: 'R/g/', lt: 'R/g0' },
  scrubOrigin: 'R/gs',
  scrubTask: (taskId: number): string => `R/t/${hex16(taskId)}`,
  scrubTaskPg: (taskId: number, poolId: number, pg: number): string =>
    `R/t/${hex16(taskId)}/${hex16(poolId)}/${hex16(pg)}`,
  scrubTaskRange: { gt: 'R/t/', lt: 'R/t0' },
  identity: (name: string): string => `K/${name}`,
  identityRange: { gt: 'K/', lt: 'K0' },
  ticketKeys: 'T/keys',
} as const;

/** (pool, pg) of a holders or fill-sources key, (ost, pool, pg) of a stale-copy key, or (ost) of a weight-phase key. */
export function numbersOfRecoveryKey(key: string): number[] {
  return key
    .slice(4)
    .split('/')
    .map((part) => Number.parseInt(part, 16));
}

/** The inode of a destroy-queue (Q/) or dom (B/) key. */
/** (ost, object id) of a repair key. */
export function ofRepairKey(key: string): { ostId: number; objectId: string } {
  // 'R/r/' + 16 hex + '/' = 21 characters of prefix.
  return { ostId: Number.parseInt(key.slice(4, 20), 16), objectId: key.slice(21) };
}

export function inodeOfDestroyKey(key: string): number {
  return Number.parseInt(key.slice(2), 16);
}

/** Whether a key is a directory entry's (any parent). */
export function isDentryKey(key: string): boolean {
  return key.startsWith('D/');
}

export function nameOfDentryKey(key: string): string {
  // 'D/' + 16 hex + '/' = 19 characters of prefix.
  return key.slice(19);
}
