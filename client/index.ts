// The stripefs client library: an API shaped like node:fs/promises over a
// striped, replicated or erasure-coded object store.

import { hostname } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import type { IdentitySource } from '../common/auth/signing.js';
import { StripeError } from '../common/errors.js';
import { newSessionId, type RequestTag, resolveJobId } from '../common/jobs/job-id.js';
import { seededRandom, seedFromEnv } from '../common/random.js';
import type { TlsSettings } from '../common/tls.js';
import type { Attr__Output } from '../proto/index.js';
import { BlockPool } from './block-pool.js';
import { BlockCache } from './cache.js';
import type { ClientContext } from './context.js';
import { ClientCounters } from './counters.js';
import {
  type DatasetReadOptions,
  type PackOptions,
  type PackSample,
  packDataset,
  StripeDataset,
} from './dataset/index.js';
import { blocksOnDisk, type DiskCache, versionPrefix } from './disk-cache.js';
import { openDiskCache } from './disk-cache-config.js';
import { DomHints } from './dom-hints.js';
import { type OpenFlags, StripeFileHandle } from './file-handle.js';
import { readBlockBytes } from './file-reader.js';
import {
  checkLayout,
  type FileLayout,
  type Layout,
  type LayoutInput,
  layoutToWire,
  requireLayoutFromWire,
  wholeLayoutFromWire,
} from './layout.js';
import { type ClientLimits, clientLimits } from './limits.js';
import type { ClientNetwork } from './map.js';
import { type AuditReport, MdsClient, type Opened, type OwnerFields, type Whoami } from './mds-client.js';
import { ObjectIo } from './object-io.js';
import { OpenCache } from './open-cache.js';
import { DiskOpenIndex } from './open-index.js';
import { OssPool } from './oss-pool.js';
import { OstHealth } from './ost-health.js';
import { describeLayout, type LayoutReport } from './report.js';
import { Statahead } from './statahead.js';
import { type ClientStats, statsOf } from './stats-report.js';
import { readStreamOf, writeStreamOf } from './streams.js';
import { checkTruncateSize, truncateObjects } from './truncate.js';
import { WriteBuffers } from './write-buffers.js';

export type { TlsSettings } from '../common/tls.js';
export * from './dataset/index.js';
export type { OpenFlags, StripeFileHandle } from './file-handle.js';
export type { Layout, LayoutInput, LayoutPattern } from './layout.js';
export { checkLayout, formatLayout, parseLayout, stripedPartOf } from './layout.js';
export type { ClientLimits } from './limits.js';
export { CLIENT_NETWORKS, type ClientNetwork, ostAddressesOf } from './map.js';
export type { AuditReport, OwnerFields, Whoami } from './mds-client.js';
export type { LayoutReport } from './report.js';
export type { ClientStats } from './stats-report.js';

/** What stat answers. stripefs paths never follow symlinks: stat is lstat. */
export interface Stat {
  inode: number;
  type: 'file' | 'directory' | 'symlink';
  /** Files: committed bytes; symlinks: bytes of the target. */
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  /** Set only by setAttr (stripefs does not track reads); mtimeMs until then. */
  atimeMs: number;
  mode: number;
  uid: number;
  gid: number;
  nlink: number;
  layout: Layout | undefined;
  /** Symlinks only. */
  symlinkTarget: string | undefined;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** Capacity and entries (statfs): raw bytes of the OSTs that are in, before replication or parity. */
export interface StatFs {
  totalBytes: number;
  usedBytes: number;
  availableBytes: number;
  /** Files, directories and symlinks, the root included. */
  files: number;
  filesFree: number;
  ostsIn: number;
  ostsUp: number;
  /** Data on the MDS: files with bytes kept there, and those bytes (one copy, in the MDS database). */
  domFiles: number;
  domBytes: number;
}

/** What setAttr changes: only the fields given. */
export interface SetAttrOptions {
  /** Permission bits (the type bits stay). */
  mode?: number;
  uid?: number;
  gid?: number;
  mtimeMs?: number;
  atimeMs?: number;
}

const TYPES: Record<string, Stat['type']> = {
  FILE_TYPE_DIRECTORY: 'directory',
  FILE_TYPE_SYMLINK: 'symlink',
};

/** A caller's layout, checked here (LAYOUT_INVALID before any request), in its wire form. */
function wireLayoutOf(layout: LayoutInput | undefined) {
  return layout ? layoutToWire(checkLayout(layout)) : undefined;
}

/** open()'s xattrs as a create carries them (a string value is its UTF-8 bytes). */
function createXattrsOf(xattrs: Record<string, Uint8Array | string>): { name: string; value: Uint8Array }[] {
  return Object.entries(xattrs).map(([name, value]) => ({
    name,
    value: typeof value === 'string' ? Buffer.from(value, 'utf8') : value,
  }));
}

function statOf(attr: Attr__Output): Stat {
  const type = TYPES[attr.type] ?? 'file';
  const layout = wholeLayoutFromWire(attr.layout) ?? undefined;
  return {
    inode: attr.inode,
    type,
    size: attr.size,
    mtimeMs: attr.mtimeMs,
    ctimeMs: attr.ctimeMs,
    atimeMs: attr.atimeMs,
    mode: attr.mode,
    uid: attr.uid,
    gid: attr.gid,
    nlink: attr.nlink,
    layout: type === 'symlink' ? undefined : layout,
    symlinkTarget: type === 'symlink' ? attr.symlinkTarget : undefined,
    isFile: () => type === 'file',
    isDirectory: () => type === 'directory',
    isSymbolicLink: () => type === 'symlink',
  };
}

/** A file's layout from its attributes, or the error opening a directory or symlink as a file raises. */
function fileLayoutOf(path: string, attr: Attr__Output): FileLayout {
  if (attr.type === 'FILE_TYPE_DIRECTORY')
    throw new StripeError('NS_IS_DIR', `${path} is a directory`, { path });
  if (attr.type === 'FILE_TYPE_SYMLINK')
    throw new StripeError('NS_IS_SYMLINK', `${path} is a symlink`, { path });
  return requireLayoutFromWire(attr.layout, `${path} as the MDS returned it`);
}

/** The open cache; in its TTL mode with a disk cache, writing its answers to that disk (client/open-index.ts). */
async function openCacheOf(
  limits: ClientLimits,
  diskCache: DiskCache | undefined,
  identity: string | undefined,
): Promise<OpenCache> {
  const openCache = new OpenCache(
    limits.openCacheTtlMs,
    limits.openCacheEntriesMax,
    limits.openCacheBytesMax,
  );
  if (diskCache && limits.openCacheTtlMs > 0)
    openCache.disk = await DiskOpenIndex.open(
      diskCache.dir,
      identity,
      limits.openCacheTtlMs,
      limits.openCacheEntriesMax,
    );
  return openCache;
}

/**
 * An earlier client's open answer for `path` kept on this disk (the open cache's TTL mode) when
 * the whole of that file version is in the disk cache too (client/open-index.ts), else undefined.
 */
function keptOnDisk(
  { openCache, diskCache, limits }: Pick<ClientContext, 'openCache' | 'diskCache' | 'limits'>,
  path: string,
): Opened | undefined {
  return diskCache && openCache.disk?.wholeOnDisk(path, diskCache, limits.cacheBlockBytes);
}

/**
 * When a new map marks an OST down, its requests in flight are given up: a hung host (stopped,
 * cut off) never answers, and its readers fail over now instead of after the request timeout.
 */
function abortWhenDown(mds: MdsClient, pool: OssPool, counters: ClientCounters): void {
  let before = mds.mapView;
  mds.onMap((view) => {
    for (const [id, was] of before.osts) {
      if (!was.up || view.osts.get(id)?.up !== false) continue;
      counters.ostDownAborts += pool.abortOst(was, id, `map epoch ${view.epoch} marks it down`);
    }
    before = view;
  });
}

export interface ConnectOptions {
  /** MDS address, host:port. */
  mds: string;
  limits?: Partial<ClientLimits>;
  /** Seed for retry jitter (default STRIPEFS_SEED or time). */
  seed?: number;
  /**
   * Which OSS addresses to use: `public` (default: those an OSS announces for clients outside
   * its network, else its only ones) or `cluster` (a client inside the cluster network).
   */
  network?: ClientNetwork;
  /**
   * The job this client's requests are counted under (job statistics, as Lustre's jobstats).
   * Default: STRIPEFS_JOBID, else SLURM_JOB_ID, else `<program>.<uid>` (see resolveJobId).
   */
  jobId?: string;
  /**
   * Who the client is: a keyring file's path, an identity ({ name, secret }), or null to sign
   * nothing. Default: the keyring STRIPEFS_KEYRING (auth.keyring) names, else
   * ./data/admin.keyring when it exists.
   */
  keyring?: IdentitySource;
  /**
   * The local-disk cache tier (client/disk-cache.ts): blocks read-only handles fetched, kept in a
   * bounded folder of this host. Default: client.diskCacheDir and client.diskCacheBytes from the
   * configuration (empty: none); null: none.
   */
  diskCache?: { dir: string; bytesMax: number } | null;
  /**
   * TLS to the MDS and the OSSs, gRPC and bulk alike: the CA and the name to check servers
   * under (common/tls.ts). Default: tls.ca and tls.serverName from the configuration (none when
   * tls.ca is empty); null: none.
   */
  tls?: TlsSettings | null;
  /**
   * Send batched opens and stats (OpenMany, StatMany) over gRPC even when the MDS serves its
   * framed path beside it (client/mds-frames.ts). Default false: the framed path when GetMap
   * names its port, gRPC when it does not or cannot be reached.
   */
  mdsFramesOff?: boolean;
}

export class StripeClient {
  private readonly domHints = new DomHints();

  private constructor(
    private readonly ctx: ClientContext,
    private readonly pool: OssPool,
    /** The job and session every request of this client carries. */
    readonly tag: Readonly<RequestTag>,
  ) {}

  /** The limits this client was connected with (defaults and the caller's overrides). */
  get limits(): Readonly<ClientLimits> {
    return this.ctx.limits;
  }

  /** The job this client's requests are counted under. */
  get jobId(): string {
    return this.tag.jobId;
  }

  static async connect(options: ConnectOptions): Promise<StripeClient> {
    const limits = clientLimits(options.limits);
    const tag: RequestTag = {
      jobId: resolveJobId(options.jobId === undefined ? {} : { jobId: options.jobId }).jobId,
      session: newSessionId(),
      clientName: `${hostname()}:${process.pid}`,
    };
    const diskCache = await openDiskCache(options.diskCache, options.mds);
    const mds = new MdsClient(options.mds, {
      ...(options.network ? { network: options.network } : {}),
      tag,
      ...(options.keyring !== undefined ? { keyring: options.keyring } : {}),
      tls: options.tls,
      ...(options.mdsFramesOff ? { framesOff: true } : {}),
    });
    await mds.start();
    const counters = new ClientCounters(limits.latencyBucketsPerDecade);
    // Read blocks are reused once the cache drops them (client/block-pool.ts). The pool keeps
    // as many idle blocks as the cache holds: after a dropCache or an invalidated file the next
    // reads refill the cache from warm memory instead of fresh allocations (first-touch faults
    // and the collector chasing the external memory). Cached plus idle blocks still stay within
    // the cache's bytes, since a block is idle only once the cache has let it go.
    const blocks = new BlockPool(
      limits.cacheBlockBytes,
      Math.ceil(limits.cacheBytesMax / limits.cacheBlockBytes),
    );
    const health = new OstHealth(limits.ostSuspectMs, undefined, limits.slowOstFactor);
    const pool = new OssPool(
      limits,
      counters,
      (bytes) => blocks.take(bytes),
      (ost, ms) => health.observeLatency(ost, ms),
      (ost) => mds.mapView.osts.get(ost)?.up === false,
      tag,
      mds.tickets,
      options.tls,
    );
    abortWhenDown(mds, pool, counters);
    const random = seededRandom(options.seed ?? seedFromEnv());
    const io = new ObjectIo({ mds, limits, random, counters, pool, health, blocks });
    const openCache = await openCacheOf(limits, diskCache, mds.identityName);
    const ctx: ClientContext = {
      mds,
      io,
      cache: new BlockCache(limits.cacheBytesMax, blocks),
      blocks,
      // Idle write buffers: as many bytes as one writer may have in flight.
      writeBuffers: new WriteBuffers(limits.writeBehindBytesMax),
      health,
      limits,
      counters,
      blocksInFlight: new Map(),
      blocksRebuilding: new Set(),
      prefetchInFlight: { bytes: 0 },
      openCache,
      statahead: new Statahead(
        mds,
        openCache,
        limits.stataheadBatchEntries,
        limits.stataheadBatchesAhead,
        (path) => keptOnDisk({ openCache, diskCache, limits }, path) !== undefined,
      ),
      diskCache,
    };
    return new StripeClient(ctx, pool, tag);
  }

  private timed<T>(work: Promise<T>): Promise<T> {
    const started = performance.now();
    return work.finally(() => this.ctx.counters.latencies.record('metadata', performance.now() - started));
  }

  async mkdir(
    path: string,
    options: { recursive?: boolean; layout?: LayoutInput } & OwnerFields = {},
  ): Promise<void> {
    const layout = wireLayoutOf(options.layout);
    const { mode, uid, gid } = options;
    await this.timed(this.ctx.mds.mkdir(path, options.recursive ?? false, layout, { mode, uid, gid }));
  }

  async readdir(path: string): Promise<string[]> {
    const { mds, limits, statahead } = this.ctx;
    const names = statahead.enabled
      ? await this.readdirPlus(path)
      : (await this.timed(mds.readdir(path, false, limits.readdirPageEntries))).map((e) => e.name);
    statahead.listed(path, names);
    return names;
  }

  /**
   * A listing with statahead on: its pages carry the entries' attributes (readdirplus), put in
   * the open cache, so the stats a scan makes in listing order find them there and cost the MDS no
   * call. Past half the cache's entries the pages carry names only (their attributes would push
   * out the first ones before the scan reached them); statahead fetches those ahead as the scan
   * goes. A page's attributes are kept only in the cache, never the whole listing's.
   */
  private async readdirPlus(path: string): Promise<string[]> {
    const { mds, limits, openCache } = this.ctx;
    const attrsMax = Math.floor(limits.openCacheEntriesMax / 2);
    const names: string[] = [];
    let cursor = '';
    do {
      const withAttrs = names.length < attrsMax;
      const page = await this.timed(mds.readdirPage(path, withAttrs, cursor, limits.readdirPageEntries));
      for (const e of page.entries) {
        if (withAttrs && e.attr && names.length < attrsMax)
          openCache.put(path === '/' ? `/${e.name}` : `${path}/${e.name}`, {
            attr: e.attr,
            domData: undefined,
          });
        names.push(e.name);
      }
      cursor = page.nextCursor;
    } while (cursor !== '');
    return names;
  }

  /** A directory listing with every entry's attributes, fetched with the listing (no stat per entry). */
  async list(path: string): Promise<{ name: string; stat: Stat }[]> {
    const entries = await this.timed(this.ctx.mds.readdir(path, true, this.ctx.limits.readdirPageEntries));
    const { openCache, statahead } = this.ctx;
    statahead.listed(
      path,
      entries.map((e) => e.name),
    );
    return entries.map((e) => {
      if (!e.attr) throw new Error(`MDS listed ${path}/${e.name} without attributes`);
      // With the open cache on, a listing's attributes answer the stats that follow it.
      openCache.put(path === '/' ? `/${e.name}` : `${path}/${e.name}`, { attr: e.attr, domData: undefined });
      return { name: e.name, stat: statOf(e.attr) };
    });
  }

  /**
   * One page of a directory listing with attributes: up to `limit` entries whose names come after
   * `after` (exclusive; any string, not only a listed name) in UTF-8 byte order, and the name to
   * pass as `after` for the next page (undefined at the end). For listings too large to hold.
   */
  async listPage(
    path: string,
    options: { after?: string; limit?: number } = {},
  ): Promise<{ entries: { name: string; stat: Stat }[]; next: string | undefined }> {
    const limit = options.limit ?? this.ctx.limits.readdirPageEntries;
    const page = await this.timed(this.ctx.mds.readdirPage(path, true, options.after ?? '', limit));
    const entries = page.entries.map((e) => {
      if (!e.attr) throw new Error(`MDS listed ${path}/${e.name} without attributes`);
      return { name: e.name, stat: statOf(e.attr) };
    });
    return { entries, next: page.nextCursor === '' ? undefined : page.nextCursor };
  }

  /** The entry itself: a symlink is not followed (stat and lstat are the same call). */
  async stat(path: string): Promise<Stat> {
    const { openCache, statahead } = this.ctx;
    await statahead.before(path, false);
    const cached = openCache.get(path, false);
    statahead.after(path, cached !== undefined);
    if (cached) return statOf(cached.attr);
    const attr = await this.timed(this.ctx.mds.stat(path));
    openCache.put(path, { attr, domData: undefined });
    return statOf(attr);
  }

  /**
   * An open for reading: from the open cache within its TTL (opt-in), else from the answers an
   * earlier client kept on this disk with the whole file (client/open-index.ts; statahead does not
   * see those opens, they need no fetching ahead), else the MDS (read-on-open).
   */
  private async openForRead(path: string): Promise<Opened> {
    const { openCache, statahead } = this.ctx;
    const kept = openCache.holds(path, true) ? undefined : this.openedFromDisk(path);
    if (kept) {
      openCache.put(path, kept, false);
      return kept;
    }
    await statahead.before(path, true);
    const cached = openCache.get(path, true);
    statahead.after(path, cached !== undefined);
    if (cached) return cached;
    const opened = await this.timed(this.ctx.mds.open(path));
    openCache.put(path, opened);
    return opened;
  }

  /** An earlier client's answer kept on this disk, when the whole file is there too (client/open-index.ts). */
  private openedFromDisk(path: string): Opened | undefined {
    const kept = keptOnDisk(this.ctx, path);
    if (kept && this.ctx.openCache.disk) this.ctx.openCache.disk.hits++;
    return kept;
  }

  lstat(path: string): Promise<Stat> {
    return this.stat(path);
  }

  /** chmod, chown and utimes in one call: only the fields given change (ctime moves). */
  async setAttr(path: string, attrs: SetAttrOptions): Promise<Stat> {
    this.ctx.openCache.forget(path);
    const request = {
      path,
      setMode: attrs.mode !== undefined,
      mode: attrs.mode ?? 0,
      setUid: attrs.uid !== undefined,
      uid: attrs.uid ?? 0,
      setGid: attrs.gid !== undefined,
      gid: attrs.gid ?? 0,
      setMtime: attrs.mtimeMs !== undefined,
      mtimeMs: Math.round(attrs.mtimeMs ?? 0),
      setAtime: attrs.atimeMs !== undefined,
      atimeMs: Math.round(attrs.atimeMs ?? 0),
    };
    return statOf(await this.timed(this.ctx.mds.setAttr(request)));
  }

  /**
   * Grows a file to at least `sizeBytes`, never shrinking it and changing no object: commits the
   * size that handles opened with `deferSize` wrote up to (any layout, ec too).
   */
  async growTo(path: string, sizeBytes: number): Promise<void> {
    checkTruncateSize(sizeBytes);
    this.ctx.openCache.forget(path);
    const { inode } = await this.timed(this.ctx.mds.stat(path));
    await this.timed(this.ctx.mds.commit(inode, sizeBytes, Date.now(), true));
    this.ctx.cache.invalidate(inode);
  }

  /**
   * Sets the size of a file: shrinking cuts its objects on every copy first, growing
   * reads back zeros. ec files only shrink, to a multiple of k x stripe size
   * (LAYOUT_READ_ONLY otherwise). For a file open in this process, truncate the handle.
   */
  async truncate(path: string, sizeBytes: number): Promise<void> {
    checkTruncateSize(sizeBytes);
    this.ctx.openCache.forget(path);
    // Opened, not stat-ed: the open's answer carries the data-path ticket the cuts need (a stat's none).
    const { attr } = await this.timed(this.ctx.mds.open(path));
    const fileLayout = fileLayoutOf(path, attr);
    const cut = await truncateObjects(this.ctx, attr.inode, fileLayout, attr.size, sizeBytes);
    await this.ctx.io.flushAll(cut);
    if (sizeBytes !== attr.size) await this.timed(this.ctx.mds.commit(attr.inode, sizeBytes, Date.now()));
    this.ctx.cache.invalidate(attr.inode);
  }

  /** An extended attribute's value; XATTR_NOT_FOUND (ENODATA) when the entry has none of that name. */
  getXattr(path: string, name: string): Promise<Buffer> {
    return this.timed(this.ctx.mds.getXattr(path, name));
  }

  /**
   * An extended attribute's value and the id (inode) of the file it was read from: a caller that
   * also opens or stats the path by name can tell whether both reached the same file.
   */
  xattrOf(path: string, name: string): Promise<{ value: Buffer; inode: number }> {
    return this.timed(this.ctx.mds.xattrOf(path, name));
  }

  /**
   * Stores an extended attribute with the entry (user., trusted., security.; LIMITS.xattr*).
   * `user.stripefs.layout` on a directory sets its default layout (text form, e.g. ec:4+2:host).
   */
  async setXattr(
    path: string,
    name: string,
    value: Uint8Array | string,
    options: { create?: boolean; replace?: boolean } = {},
  ): Promise<void> {
    if (options.create && options.replace)
      throw new StripeError('REQ_INVALID', 'setXattr takes create or replace, not both');
    const mode = options.create
      ? 'XATTR_SET_MODE_CREATE'
      : options.replace
        ? 'XATTR_SET_MODE_REPLACE'
        : 'XATTR_SET_MODE_UNSPECIFIED';
    const bytes = typeof value === 'string' ? Buffer.from(value) : value;
    await this.timed(this.ctx.mds.setXattr(path, name, bytes, mode));
  }

  /** Names of the stored extended attributes, sorted (user.stripefs.layout is never listed). */
  listXattrs(path: string): Promise<string[]> {
    return this.timed(this.ctx.mds.listXattrs(path));
  }

  /** Removes one; on a directory, user.stripefs.layout goes back to the inherited default. */
  removeXattr(path: string, name: string): Promise<void> {
    return this.timed(this.ctx.mds.removeXattr(path, name));
  }

  /** A symlink at `path` holding `target` as given (never resolved by stripefs). */
  async symlink(target: string, path: string, owner: { uid?: number; gid?: number } = {}): Promise<void> {
    await this.timed(this.ctx.mds.symlink(target, path, owner));
  }

  readlink(path: string): Promise<string> {
    return this.timed(this.ctx.mds.readlink(path));
  }

  /** Who this client signs as, as the MDS knows it (caps, allow-list, its address); undefined without auth. */
  whoami(): Promise<Whoami | undefined> {
    return this.timed(this.ctx.mds.whoami());
  }

  /** Writes refusals this process decided to the MDS's audit log (admin identities only). */
  reportAudit(reports: AuditReport[], dropped = 0): Promise<void> {
    return this.timed(this.ctx.mds.reportAudit(reports, dropped));
  }

  async statfs(): Promise<StatFs> {
    const r = await this.timed(this.ctx.mds.statfs());
    return {
      totalBytes: r.totalBytes,
      usedBytes: r.usedBytes,
      availableBytes: r.availableBytes,
      files: r.files,
      filesFree: r.filesFree,
      ostsIn: r.ostsIn,
      ostsUp: r.ostsUp,
      domFiles: r.domFiles,
      domBytes: r.domBytes,
    };
  }

  /** Atomic, replacing an existing target unless `noReplace` (then NS_EXISTS, and nothing moves). */
  rename(from: string, to: string, options: { noReplace?: boolean } = {}): Promise<void> {
    this.ctx.openCache.forgetTree(from);
    this.ctx.openCache.forgetTree(to);
    return this.timed(this.ctx.mds.rename(from, to, options.noReplace ?? false));
  }

  async unlink(path: string): Promise<void> {
    this.ctx.openCache.forget(path);
    await this.timed(this.ctx.mds.unlink(path));
  }

  rmdir(path: string): Promise<void> {
    this.ctx.openCache.forgetTree(path);
    return this.timed(this.ctx.mds.rmdir(path));
  }

  /**
   * `growOnly`: this handle is one of several writing disjoint ranges of the file at once (parallel
   * parts); its close commits the end it wrote and never shrinks the file, so they may close in
   * any order.
   *
   * `deferSize` (with `growOnly`): the close makes what the handle wrote durable but commits no size:
   * the caller grows the file once for many such handles (growTo), one MDS call fewer per handle.
   *
   * `writeBehindBytesMax`: bytes this handle may have sent and not yet had acknowledged (the
   * client's limit by default), e.g. a bounded number of stripes in flight for one writer.
   * `mode`, `uid` and `gid` apply when the open creates the file, and so do `xattrs` ('w' and
   * 'wx' only): extended attributes set in the create's own MDS transaction, checked as
   * setXattr checks them (no setXattr call after it).
   */
  async open(
    path: string,
    flags: OpenFlags = 'r',
    options: {
      layout?: LayoutInput;
      growOnly?: boolean;
      deferSize?: boolean;
      writeBehindBytesMax?: number;
      /** false: this handle fetches nothing ahead (a caller that keeps its own large reads in flight). */
      readahead?: boolean;
      xattrs?: Record<string, Uint8Array | string>;
      /**
       * ('r' only) Also read this extended attribute of the file, in the open's own MDS call (read
       * access needed): the handle's `openedXattr`, null when the file has none.
       */
      xattr?: string;
    } & OwnerFields = {},
  ): Promise<StripeFileHandle> {
    if (options.deferSize && !options.growOnly)
      throw new StripeError('REQ_INVALID', 'deferSize is for grow-only handles (growOnly: true)');
    if (options.xattrs && flags !== 'w' && flags !== 'wx')
      throw new StripeError('REQ_INVALID', "xattrs are set by an open that creates the file ('w' or 'wx')");
    if (options.xattr !== undefined && flags !== 'r')
      throw new StripeError('REQ_INVALID', "an open reads an extended attribute for reading only ('r')");
    const writeBehindBytesMax = options.writeBehindBytesMax ?? this.ctx.limits.writeBehindBytesMax;
    if (!Number.isSafeInteger(writeBehindBytesMax) || writeBehindBytesMax < 1)
      throw new StripeError(
        'REQ_INVALID',
        `writeBehindBytesMax must be a positive integer, got ${writeBehindBytesMax}`,
      );
    const owner = { mode: options.mode, uid: options.uid, gid: options.gid };
    if (flags !== 'r') this.ctx.openCache.forget(path);
    let opened: Opened;
    if (flags === 'w' || flags === 'wx') {
      const layout = wireLayoutOf(options.layout);
      const created = await this.timed(
        this.ctx.mds.create(path, {
          exclusive: flags === 'wx',
          truncate: true,
          ...owner,
          ...(layout ? { layout } : {}),
          ...(options.xattrs ? { xattrs: createXattrsOf(options.xattrs) } : {}),
        }),
      );
      opened = { attr: created.attr, domData: Buffer.alloc(0) };
    } else if (flags === 'a') {
      const created = await this.timed(
        this.ctx.mds.create(path, { exclusive: false, truncate: false, ...owner }),
      );
      opened = { attr: created.attr, domData: undefined };
    } else if (options.xattr !== undefined) {
      // The open cache keeps no attributes: this open always asks the MDS.
      opened = await this.timed(this.ctx.mds.openWithXattr(path, options.xattr));
    } else {
      opened = flags === 'r' ? await this.openForRead(path) : await this.timed(this.ctx.mds.open(path));
    }
    const handle = this.handleOf(path, opened, flags, {
      growOnly: options.growOnly ?? false,
      deferSize: options.deferSize ?? false,
      writeBehindBytesMax,
      readahead: options.readahead ?? true,
    });
    if (options.xattr !== undefined) handle.openedXattr = opened.xattr ?? null;
    return handle;
  }

  private handleOf(
    path: string,
    opened: Opened,
    flags: OpenFlags,
    options: {
      growOnly?: boolean;
      deferSize?: boolean;
      writeBehindBytesMax?: number;
      readahead?: boolean;
    } = {},
  ): StripeFileHandle {
    const { attr, domData } = opened;
    const fileLayout = fileLayoutOf(path, attr);
    // Close-to-open: blocks cached before another commit of the file are not used again.
    this.ctx.cache.retain(attr.inode, attr.change);
    const handle = new StripeFileHandle(
      this.ctx,
      attr.inode,
      fileLayout,
      attr.size,
      flags,
      attr.change,
      options.growOnly ?? false,
      options.writeBehindBytesMax ?? this.ctx.limits.writeBehindBytesMax,
      domData,
      path,
      flags === 'r' ? versionPrefix(attr) : undefined,
      options.readahead ?? true,
      options.deferSize ?? false,
    );
    handle.opened = statOf(attr);
    return handle;
  }

  async writeFile(
    path: string,
    data: Uint8Array | string,
    options: { layout?: LayoutInput } = {},
  ): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const given = options.layout && checkLayout(options.layout);
    this.ctx.openCache.forget(path);
    const handle = this.domHints.mayFit(path, bytes.length, given)
      ? await this.createWithData(path, bytes, given)
      : await this.open(path, 'w', options);
    if (!handle) return;
    // The caller's bytes are sent as they are (no copy where the layout allows): writeFile holds
    // them until it returns, as node:fs does. The close follows at once: an object written once is
    // made durable by its write (no Flush for it).
    let released: Promise<void> = Promise.resolve();
    try {
      ({ released } = await handle.writeLent(bytes, 0, { final: true }));
    } finally {
      try {
        await handle.close();
      } finally {
        await released;
      }
    }
  }

  /**
   * Create, write and close in one MDS round trip when the file's layout keeps its bytes on the MDS
   * (undefined then); otherwise the created file's handle, for the usual writes.
   */
  private async createWithData(
    path: string,
    bytes: Uint8Array,
    given: Layout | undefined,
  ): Promise<StripeFileHandle | undefined> {
    const layout = given && layoutToWire(given);
    const created = await this.timed(
      this.ctx.mds.create(path, {
        exclusive: false,
        truncate: true,
        data: bytes,
        ...(layout ? { layout } : {}),
      }),
    );
    this.domHints.learn(path, created.attr);
    if (!created.dataStored)
      return this.handleOf(path, { attr: created.attr, domData: Buffer.alloc(0) }, 'w');
    const { counters } = this.ctx;
    counters.createsWithData++;
    counters.bytesWritten += bytes.length;
    counters.domBytesWritten += bytes.length;
    return undefined;
  }

  /**
   * The file's content. A file kept whole on the MDS comes back as the bytes its open brought
   * (read-on-open), without a handle or a copy: a view of the received reply, as a Buffer from
   * node:fs may be a view of a larger pool.
   */
  async readFile(path: string): Promise<Buffer> {
    const opened = await this.openForRead(path);
    const whole =
      this.wholeOnMds(path, opened) ??
      (await this.leftOutWhole(path, opened)) ??
      (await this.wholeFromDisk(opened));
    if (whole) return whole;
    const handle = this.handleOf(path, opened, 'r');
    try {
      const out = Buffer.allocUnsafe(handle.size);
      const { bytesRead } = await handle.read(out, 0, out.length, 0);
      return bytesRead === out.length ? out : out.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  /** The bytes of a file an open brought whole from the MDS (its layout keeps all of it there), else undefined. */
  private wholeOnMds(path: string, { attr, domData }: Opened): Buffer | undefined {
    if (domData === undefined || domData.length !== attr.size) return undefined;
    // Checked as a handle would be: a directory or a symlink is refused, a file with bytes past
    // the part on the MDS is read through a handle.
    if ((fileLayoutOf(path, attr).domBytes ?? 0) < attr.size) return undefined;
    const { cache, counters, openCache } = this.ctx;
    cache.retain(attr.inode, attr.change);
    counters.domBytesRead += attr.size;
    counters.latencies.record('read', 0);
    // The open cache keeps the answer for later opens: the caller gets bytes of its own.
    return openCache.enabled ? Buffer.from(domData) : domData;
  }

  /**
   * The bytes of a file whole on the MDS that its open's batch left out (the reply was full),
   * asked again by file id with the other files left out at the same time; else undefined.
   */
  private async leftOutWhole(path: string, opened: Opened): Promise<Buffer | undefined> {
    const { attr, domData } = opened;
    if (domData !== undefined || (fileLayoutOf(path, attr).domBytes ?? 0) < attr.size) return undefined;
    return this.wholeOnMds(path, await this.ctx.mds.openByInode(attr.inode, path, attr.size));
  }

  /**
   * The bytes of a file every block of whose version is in the disk cache, read from there
   * without a handle (a loader's next epoch); undefined when one is missing or fails its check, or
   * the memory cache holds the file (then a handle reads it, from memory or the OSSs).
   */
  private async wholeFromDisk({ attr }: Opened): Promise<Buffer | undefined> {
    const { diskCache, limits, counters, cache } = this.ctx;
    if (!diskCache || attr.type !== 'FILE_TYPE_FILE' || !attr.layout || (attr.layout.domBytes ?? 0) !== 0)
      return undefined;
    if (cache.has(attr.inode, attr.change, 0)) return undefined;
    const blocks = blocksOnDisk(
      diskCache,
      attr,
      readBlockBytes(attr.layout.stripeSize, limits.cacheBlockBytes),
    );
    if (!blocks || blocks.length === 0) return undefined;
    const started = performance.now();
    const data = await Promise.all(blocks.map((b) => diskCache.get(b.name, b.length)));
    if (data.some((d) => d === undefined)) return undefined;
    counters.bytesRead += attr.size;
    counters.latencies.record('read', performance.now() - started);
    return data.length === 1 ? (data[0] as Buffer) : Buffer.concat(data as Buffer[], attr.size);
  }

  createReadStream(
    path: string,
    options: { start?: number; end?: number; highWaterMark?: number } = {},
  ): Readable {
    const chunkBytes = options.highWaterMark ?? this.ctx.limits.streamChunkBytes;
    return readStreamOf(() => this.open(path, 'r'), { ...options, chunkBytes, highWaterMark: chunkBytes });
  }

  createWriteStream(path: string, options: { layout?: LayoutInput; highWaterMark?: number } = {}): Writable {
    return writeStreamOf(
      () => this.open(path, 'w', options),
      options.highWaterMark ?? this.ctx.limits.streamHighWaterMarkBytes,
    );
  }

  /** Sets the default layout of a directory for files created in it from now on. */
  async setLayout(dir: string, layout: LayoutInput): Promise<void> {
    await this.timed(this.ctx.mds.setLayout(dir, layoutToWire(checkLayout(layout))));
  }

  /** Like `lfs getstripe`: the layout, and for a file every object with its PG and OSTs. */
  async getLayout(path: string): Promise<LayoutReport> {
    const attr = await this.timed(this.ctx.mds.stat(path));
    return describeLayout(attr, this.ctx.mds.mapView);
  }

  /**
   * Drops this client's cached blocks of `path`, or of every file: the next
   * read of them goes to the OSSs (like dropping the page cache before a cold
   * read). Blocks being fetched are not affected.
   */
  async dropCache(path?: string): Promise<void> {
    if (path === undefined) {
      this.ctx.cache.clear();
      return;
    }
    this.ctx.openCache.forget(path);
    const attr = await this.timed(this.ctx.mds.stat(path));
    this.ctx.cache.invalidate(attr.inode);
  }

  stats(): ClientStats {
    return statsOf(this.ctx);
  }

  /** A packed dataset (docs/dataset-format.md): samples by index or key, batches as multi-range reads. */
  openDataset(path: string, options: DatasetReadOptions = {}): Promise<StripeDataset> {
    return StripeDataset.open(this, path, options);
  }

  /** Packs samples into shards plus an index at `dest` (which must not exist), as `stripefs pack` does. */
  packDataset(dest: string, samples: readonly PackSample[], options: PackOptions = {}) {
    return packDataset(this, dest, samples, options);
  }

  async close(): Promise<void> {
    await this.ctx.diskCache?.flush();
    await this.ctx.openCache.disk?.flush();
    this.pool.close();
    this.ctx.mds.close();
  }
}
