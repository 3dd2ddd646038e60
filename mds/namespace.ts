// The namespace core: path resolution, the mutation mutex, inode allocation
// and the overlay that lets mutations proceed while earlier ones are still
// being synced. One file per operation in ops/ is handed a Txn from here.
import { type Clock, Semaphore, StripeError } from '../common/index.js';
import type { ClusterMap, RuleSpec } from '../placement/index.js';
import type { GroupCommitter } from './commit.js';
import type { BatchOp, MdsDb } from './db.js';
import { DomStore } from './dom.js';
import { isDentryKey, KEYS, SCHEMA_VERSION } from './keys.js';
import type { LayoutRecord } from './layout.js';
import { type BackPointer, type NodeRecord, newNode, ROOT_INODE } from './records.js';
import { DbReader, Overlay, type Reader, Txn } from './txn.js';

/** Inode numbers reserved per counter write, so the counter is not a hot key. */
export const INODE_BLOCK = 4096;
/** Directory records kept in memory (the cache is dropped whole when it fills). */
export const DIR_CACHE_ENTRIES_MAX = 65_536;

/** What the namespace needs from the cluster map. */
export interface ClusterHooks {
  epoch(): number;
  map(): ClusterMap;
  /** The id of the pool for this rule, creating and persisting it on first use. */
  ensurePool(rule: RuleSpec): Promise<number>;
}

/** Told when a mutation begun in it handed its writes to the group commit (Namespace.inScope). */
export interface MutationScope {
  submitted(): void;
}

export interface Resolved {
  node: NodeRecord;
  parentIno: number; // 0 for the root
  name: string;
  /** Inodes of the directories walked, root first (for the rename loop check). */
  chain: number[];
}

export class Namespace {
  readonly reader: DbReader;
  /** Files' bytes kept on the MDS (data on the MDS). */
  readonly dom = new DomStore();
  private readonly overlay = new Overlay();
  private readonly mutex = new Semaphore(1);
  /** The scope of the mutations begun now (inScope). */
  private scope: MutationScope | undefined;
  private nextIno = 0;
  private inoLimit = 0;
  /** Entries that exist, as applied (statfs); KEYS.nodeCounter holds it durably. */
  private nodes = 0;
  /** Each running transaction's change to the entry count. */
  private readonly nodeDeltas = new WeakMap<Txn, number>();
  /**
   * Durable directory records (and the root) by key, so path walks cost no
   * database read per component. Filled after synced writes and after reads;
   * a read fills it only if no directory entry was removed or replaced while
   * it ran (dirChanges), so a slow read can never reinstate a stale record.
   */
  private readonly dirCache = new Map<string, NodeRecord>();
  private dirChanges = 0;
  /** Called after a transaction queued objects for destruction. */
  onDestroyQueued: () => void = () => {};
  /** Monotonic time the last mutation started (background work yields while it is recent). */
  lastMutationMs = Number.NEGATIVE_INFINITY;

  constructor(
    readonly db: MdsDb,
    private readonly committer: GroupCommitter,
    readonly clock: Clock,
    readonly rootDefault: LayoutRecord,
    readonly cluster: ClusterHooks,
  ) {
    this.reader = new DbReader(db);
  }

  /** Creates the root and the counters on first start; loads the counters. */
  async init(): Promise<void> {
    const schema = await this.db.get(KEYS.schema);
    if (schema !== undefined && schema !== SCHEMA_VERSION)
      throw new Error(`MDS database schema ${schema}, expected ${SCHEMA_VERSION}`);
    const limit = (await this.db.get(KEYS.inodeCounter)) as number | undefined;
    this.nextIno = limit ?? ROOT_INODE + 1;
    this.inoLimit = this.nextIno; // everything below the stored limit may have been handed out
    await this.dom.init(this.db);
    if (schema === undefined) {
      const root = newNode(ROOT_INODE, 'dir', null, true, this.clock.nowMs());
      this.nodes = 1;
      await this.committer.submit([
        { type: 'put', key: KEYS.schema, value: SCHEMA_VERSION },
        { type: 'put', key: KEYS.rootAttr, value: root },
        { type: 'put', key: KEYS.inodeCounter, value: this.nextIno },
        { type: 'put', key: KEYS.nodeCounter, value: this.nodes },
      ]);
      return;
    }
    const nodes = (await this.db.get(KEYS.nodeCounter)) as number | undefined;
    this.nodes = nodes ?? (await this.countNodesOnce());
  }

  /** A database from before the entry count: every entry counted once (the root included), then kept. */
  private async countNodesOnce(): Promise<number> {
    let count = 1;
    for await (const _key of this.db.keys(KEYS.dentriesAll)) count++;
    await this.committer.submit([{ type: 'put', key: KEYS.nodeCounter, value: count }]);
    return count;
  }

  /** Entries that exist: files, directories and symlinks, the root included. */
  get nodeCount(): number {
    return this.nodes;
  }

  private countNodes(txn: Txn, delta: number): void {
    const before = this.nodeDeltas.get(txn);
    const total = (before ?? 0) + delta;
    this.nodeDeltas.set(txn, total);
    txn.put(KEYS.nodeCounter, this.nodes + total);
    if (before === undefined)
      txn.onApply.push(() => {
        this.nodes += this.nodeDeltas.get(txn) ?? 0;
      });
  }

  /**
   * Runs `start` with `scope` current: every mutation it begins before its first await (as a call's
   * handler begins its own, and a batch each of its items') tells the scope once its writes are
   * decided and handed to the group commit, before they are synced. The gRPC layer starts the
   * call's audit line then, so its fsync runs beside the commit's (grpc-service.ts, coded).
   */
  inScope<T>(scope: MutationScope | undefined, start: () => T): T {
    const outer = this.scope;
    this.scope = scope;
    try {
      return start();
    } finally {
      this.scope = outer;
    }
  }

  /** The scope mutations begun now report to (a batch that awaits before its items keeps it for them). */
  get currentScope(): MutationScope | undefined {
    return this.scope;
  }

  /** Runs fn alone, applies its writes, and resolves after they are synced. */
  async mutate<T>(fn: (txn: Txn) => Promise<T>): Promise<T> {
    let result: T;
    let durable: Promise<void>;
    let afterDurable: (() => void)[] = [];
    const scope = this.scope;
    this.lastMutationMs = this.clock.monotonicMs();
    await this.mutex.acquire();
    try {
      const txn = new Txn(this.db, this.overlay);
      result = await fn(txn);
      const ops = txn.ops;
      const seq = this.overlay.apply(ops);
      for (const hook of txn.onApply) hook();
      afterDurable = txn.onDurable;
      durable = this.committer.submit(ops).then(() => {
        this.noteDurable(ops);
        this.overlay.release(ops, seq);
      });
      if (ops.length > 0) scope?.submitted();
    } finally {
      this.mutex.release();
    }
    await durable;
    for (const hook of afterDurable) hook();
    return result;
  }

  allocInode(txn: Txn): number {
    const ino = this.nextIno;
    if (ino >= this.inoLimit) {
      const limit = ino + INODE_BLOCK;
      txn.put(KEYS.inodeCounter, limit);
      // The new limit counts only once this transaction is applied.
      txn.onApply.push(() => {
        this.inoLimit = Math.max(this.inoLimit, limit);
      });
    }
    // Numbers are taken at once (an aborted transaction only leaves a gap).
    this.nextIno = ino + 1;
    return ino;
  }

  async root(reader: Reader): Promise<NodeRecord> {
    const root = await this.lookup(reader, KEYS.rootAttr);
    if (!root) throw new Error('MDS database has no root directory');
    return root;
  }

  private noteDurable(ops: readonly BatchOp[]): void {
    for (const op of ops) {
      if (!isDentryKey(op.key) && op.key !== KEYS.rootAttr) continue;
      const dir = op.type === 'put' && (op.value as NodeRecord).type === 'dir';
      if (op.type === 'del' || dir) this.dirChanges++;
      if (dir) this.dirCache.set(op.key, op.value as NodeRecord);
      else this.dirCache.delete(op.key);
    }
  }

  /** A node by key: pending writes first (in a transaction), then the directory cache, then the database. */
  private async lookup(reader: Reader, key: string): Promise<NodeRecord | undefined> {
    if (reader instanceof Txn) {
      const pending = reader.peek(key);
      if (pending.hit) return pending.value as NodeRecord | undefined;
    }
    const cached = this.dirCache.get(key);
    if (cached) return cached;
    const changesBefore = this.dirChanges;
    const node = await reader.get<NodeRecord>(key);
    if (
      node?.type === 'dir' &&
      changesBefore === this.dirChanges &&
      !(reader instanceof Txn && reader.peek(key).hit)
    ) {
      if (this.dirCache.size >= DIR_CACHE_ENTRIES_MAX) this.dirCache.clear();
      this.dirCache.set(key, node);
    }
    return node;
  }

  /** Walks the path; NS_NOT_FOUND / NS_NOT_DIR name the component that failed. */
  async resolve(reader: Reader, names: string[]): Promise<Resolved> {
    let node = await this.root(reader);
    let parentIno = 0;
    const chain: number[] = [];
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (node.type !== 'dir') {
        throw new StripeError('NS_NOT_DIR', `/${names.slice(0, i).join('/')} is not a directory`, {
          path: `/${names.slice(0, i).join('/')}`,
        });
      }
      chain.push(node.ino);
      const child = await this.lookup(reader, KEYS.dentry(node.ino, name));
      if (!child) {
        throw new StripeError('NS_NOT_FOUND', `/${names.slice(0, i + 1).join('/')} does not exist`, {
          path: `/${names.slice(0, i + 1).join('/')}`,
        });
      }
      parentIno = node.ino;
      node = child;
    }
    return { node, parentIno, name: names[names.length - 1] ?? '', chain };
  }

  async resolveDir(reader: Reader, names: string[]): Promise<Resolved> {
    const found = await this.resolve(reader, names);
    if (found.node.type !== 'dir')
      throw new StripeError('NS_NOT_DIR', `/${names.join('/')} is not a directory`, {
        path: `/${names.join('/')}`,
      });
    return found;
  }

  /** Writes a node where it lives: the root record or its dentry. */
  putNode(txn: Txn, parentIno: number, name: string, node: NodeRecord): void {
    if (node.ino === ROOT_INODE) txn.put(KEYS.rootAttr, node);
    else txn.put(KEYS.dentry(parentIno, name), node);
  }

  link(txn: Txn, parentIno: number, name: string, node: NodeRecord): void {
    txn.put(KEYS.dentry(parentIno, name), node);
    txn.put(KEYS.backPointer(node.ino), { parent: parentIno, name } satisfies BackPointer);
  }

  /** Links a new entry and counts it. */
  addNode(txn: Txn, parentIno: number, name: string, node: NodeRecord): void {
    this.link(txn, parentIno, name, node);
    this.countNodes(txn, 1);
  }

  /** Removes an entry with its extended attributes; a file's objects are queued for destruction in the same batch. */
  unlinkEntry(txn: Txn, parentIno: number, name: string, node: NodeRecord): void {
    txn.del(KEYS.dentry(parentIno, name));
    txn.del(KEYS.backPointer(node.ino));
    for (const xattr of Object.keys(node.xattrs ?? {})) txn.del(KEYS.xattr(node.ino, xattr));
    this.dom.drop(txn, node);
    this.countNodes(txn, -1);
    if (node.type === 'file' && node.layout) {
      txn.put(KEYS.destroy(node.ino), { ino: node.ino, layout: node.layout, queuedAtMs: this.clock.nowMs() });
      txn.onDurable.push(() => this.onDestroyQueued());
    }
  }

  async isEmptyDir(txn: Txn, ino: number): Promise<boolean> {
    const range = KEYS.dentryRange(ino);
    return !(await txn.anyIn(range.gt, range.lt));
  }

  /** The layout a new entry in this directory inherits. */
  dirDefault(dir: NodeRecord): LayoutRecord {
    return dir.layout ?? this.rootDefault;
  }
}
