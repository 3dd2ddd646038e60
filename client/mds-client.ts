// Typed wrapper over MdsService. Keeps the current cluster map: a WatchMap
// stream pushes new epochs; GetMap is the fallback when the stream is down
// and when a data request answered MAP_STALE. Stats (and opens), creates and
// unlinks issued together are coalesced into one batched call (mds-batch.ts), and
// calls can be spread over several connections (one by default).
import type * as grpc from '@grpc/grpc-js';
import { AUTH_METADATA_KEY, CallSigner } from '../common/auth/proof.js';
import { type IdentitySource, resolveIdentity } from '../common/auth/signing.js';
import { type ErrorCode, StripeError } from '../common/errors.js';
import { CLIENT_OPTIONS, call } from '../common/grpc.js';
import {
  CLIENT_NAME_METADATA_KEY,
  JOB_ID_METADATA_KEY,
  type RequestTag,
  SESSION_METADATA_KEY,
} from '../common/jobs/job-id.js';
import { LIMITS } from '../common/limits.js';
import type { FramedMethod } from '../common/mds-frames.js';
import { channelCredentials, channelTlsOptions, explainUnavailable, type TlsSource } from '../common/tls.js';
import type { MdsServiceClient } from '../proto/gen/stripefs/v1/MdsService.js';
import type {
  Attr__Output,
  ClusterMap__Output,
  CreateRequest,
  DirEntry__Output,
  Layout,
  OpenManyRequest,
  OpenManyResponse__Output,
  OpenRequest,
  OpenResponse__Output,
  SetAttrRequest,
  StatfsResponse__Output,
  StatManyRequest,
  StatManyResponse__Output,
  StatRequest,
  StatResponse__Output,
  XattrSetMode,
} from '../proto/index.js';
import { contract } from '../proto/index.js';
import { type ClientNetwork, type MapView, mapViewFromWire } from './map.js';
import { CallBatcher, errorOfItem } from './mds-batch.js';
import { framedOr, MdsFrameChannel } from './mds-frames.js';
import { mdsInterceptor } from './mds-interceptor.js';
import { TicketCache } from './tickets.js';

const WATCH_RESTART_MS = 500;

/**
 * Connections to the MDS. One is the default: measured with 16 callers on two
 * cores, more connections spread the same calls over more HTTP/2 writes and
 * cost both sides more CPU per call without raising the rate (docs/ARCHITECTURE.md).
 */
export const MDS_CHANNELS_DEFAULT = 1;
export const MDS_CHANNELS_MAX = 16;
/** Stats one coalesced StatMany carries at most. */
export const STAT_BATCH_PATHS_MAX = 1_000;

export interface MdsClientOptions {
  /** Connections to open (default MDS_CHANNELS_DEFAULT). */
  channels?: number;
  /** Coalesce concurrent stats, creates and unlinks (default true). */
  batching?: boolean;
  /** Which OSS addresses to use (default public; see ClientNetwork). */
  network?: ClientNetwork;
  /** The job, session and client name every call carries (job statistics, the MDS's table of clients). */
  tag?: RequestTag;
  /** Who signs the calls (default: resolveIdentity's: STRIPEFS_KEYRING, else ./data/admin.keyring). */
  keyring?: IdentitySource;
  /** TLS to the MDS (common/tls.ts; default: as this process is configured, tls.*). */
  tls?: TlsSource;
  /** Send OpenMany and StatMany over gRPC even when the MDS serves its framed path (default false). */
  framesOff?: boolean;
}

/** Permission bits (0: the default) and owner of a new entry. */
export type OwnerFields = { mode?: number; uid?: number; gid?: number };
type CreateItem = {
  path: string;
  exclusive: boolean;
  truncate: boolean;
  layout?: Layout;
  /** The file's whole content, stored on the MDS with the create when its layout keeps that much there. */
  data?: Uint8Array;
  /** Extended attributes of the file the create makes, set in its transaction. */
  xattrs?: CreateXattr[];
} & OwnerFields;

/** An extended attribute a create sets (CreateRequest.xattrs). */
export type CreateXattr = { name: string; value: Uint8Array };

/** An open by file id; `path` names it in errors; `bytes` is what it expects on the MDS (0: unknown). */
type InodeOpen = { inode: number; path: string; bytes: number };
/**
 * Batches an open by file id rides in while the replies leave its bytes out (each reply carries
 * at least its first file's bytes, so every batch makes progress); then it goes alone.
 */
const INODE_OPEN_ROUNDS_MAX = 8;

/** A commit of size and mtime without dom bytes (those go alone, see commit). */
type CommitItem = { inode: number; size: number; mtimeMs: number; growOnly: boolean };

/** Bytes written at an offset of a file's part on the MDS (sent with a commit). */
export interface DomPatch {
  offset: number;
  data: Uint8Array;
}

/** A create's answer: the file, and whether the content it carried is stored and committed. */
export interface Created {
  attr: Attr__Output;
  dataStored: boolean;
}

/**
 * An open's answer: the file and, read-on-open, the bytes its layout keeps on the MDS
 * (undefined when a batch left them out: ask again by inode).
 */
export interface Opened {
  attr: Attr__Output;
  domData: Buffer | undefined;
  /** The extended attribute the open asked for (openWithXattr): its value, or null when the file has none. */
  xattr?: Buffer | null;
}

/** How long a PG's holders answer is reused, and how many answers are kept. */
const HOLDERS_CACHE_MS = 1_000;
const HOLDERS_CACHE_ENTRIES_MAX = 4_096;

export class MdsClient {
  /** The first connection (the map watch and callers that want a raw client use it). */
  readonly grpc: MdsServiceClient;
  private readonly channels: MdsServiceClient[];
  private nextChannel = 0;
  readonly batching: boolean;
  readonly statBatcher: CallBatcher<string, Attr__Output>;
  readonly openBatcher: CallBatcher<string, Opened>;
  /** Opens that also read one extended attribute (openWithXattr), batched as the others. */
  readonly xattrOpenBatcher: CallBatcher<{ path: string; xattrName: string }, Opened>;
  /** Opens by file id (bytes an OpenMany left out, a handle's part on the MDS), coalesced as opens by path. */
  readonly inodeOpenBatcher: CallBatcher<InodeOpen, Opened>;
  readonly createBatcher: CallBatcher<CreateItem, Created>;
  readonly unlinkBatcher: CallBatcher<string, void>;
  /** Commits without dom bytes (commit()); its transport calls the MDS only once the client is built. */
  readonly commitBatcher: CallBatcher<CommitItem, Attr__Output> = new CallBatcher({
    itemsMax: LIMITS.namespaceBatchItemsMax,
    one: async (item) => must((await call(this.channel(), 'Commit', item)).attr),
    many: async (items) =>
      (await call(this.channel(), 'CommitMany', { items })).results.map((r) =>
        r.error ? errorOfItem(r.error) : must(r.attr),
      ),
  });
  private view: MapView | undefined;
  private watch: grpc.ClientReadableStream<{ map: ClusterMap__Output | null }> | undefined;
  private closed = false;
  private readonly holdersCache = new Map<string, { atMs: number; answer: Promise<PgHolders> }>();
  private refreshing: Promise<MapView> | undefined;
  private readonly listeners = new Set<(view: MapView) => void>();
  private readonly network: ClientNetwork;
  /** The data-path tickets of this client's files, taken from every answer (client/tickets.ts). */
  readonly tickets = new TicketCache((inodes) => this.getTickets(inodes));
  private readonly tls: TlsSource;
  /** The identity this client signs as (undefined: it signs nothing). */
  identityName: string | undefined;
  /** Signs every call, gRPC and framed alike: one session at the MDS. */
  private signer: CallSigner | undefined;
  private readonly tag: RequestTag | undefined;
  private readonly framesOff: boolean;
  /** The framed path for OpenMany and StatMany (client/mds-frames.ts); its port comes with GetMap. */
  readonly frames: MdsFrameChannel;

  constructor(
    readonly address: string,
    options: MdsClientOptions = {},
  ) {
    this.tls = options.tls;
    this.tag = options.tag;
    this.framesOff = options.framesOff ?? false;
    this.channels = this.openChannels(options);
    this.frames = this.openFrames();
    this.grpc = this.channels[0]!;
    this.batching = options.batching ?? true;
    this.network = options.network ?? 'public';
    this.statBatcher = new CallBatcher({
      itemsMax: STAT_BATCH_PATHS_MAX,
      one: async (path) => must((await this.statCall({ path })).attr),
      many: async (paths) =>
        (await this.statManyCall({ paths })).results.map((r) =>
          r.found && r.attr
            ? r.attr
            : errorOfItem(
                r.error ?? { code: r.errorCode, message: `${r.path}: ${r.errorCode}`, detailsJson: '' },
              ),
        ),
    });
    this.openBatcher = new CallBatcher({
      itemsMax: LIMITS.namespaceBatchItemsMax,
      one: async (path) => openedOf(await this.openCall({ path })),
      many: async (paths) =>
        (await this.openManyCall({ items: paths.map((path) => ({ path })) })).results.map((r) =>
          r.error ? errorOfItem(r.error) : openedOf(r.open),
        ),
    });
    this.xattrOpenBatcher = this.newXattrOpenBatcher();
    this.inodeOpenBatcher = new CallBatcher({
      itemsMax: LIMITS.namespaceBatchItemsMax,
      // Cut where the MDS would cut its reply, so each batch carries all its files' bytes.
      bytesMax: LIMITS.domBatchBytesMax,
      bytesOf: (item) => item.bytes,
      one: async ({ inode, path }) => openedOf(await this.openCall({ inode, path })),
      many: async (items) =>
        (await this.openManyCall({ items: items.map(({ inode, path }) => ({ inode, path })) })).results.map(
          (r) => (r.error ? errorOfItem(r.error) : openedOf(r.open)),
        ),
    });
    this.createBatcher = new CallBatcher({
      itemsMax: LIMITS.namespaceBatchItemsMax,
      // Creates with their content (data on the MDS): at most a batch's worth of bytes per CreateMany.
      bytesMax: LIMITS.domBatchBytesMax,
      bytesOf: (item) => (item.data?.length ?? 0) + xattrBytesOf(item.xattrs),
      one: async (item) => createdOf(await call(this.channel(), 'Create', createRequestOf(item))),
      many: async (items) =>
        (await call(this.channel(), 'CreateMany', { items: items.map(createRequestOf) })).results.map((r) =>
          r.error ? errorOfItem(r.error) : createdOf(r),
        ),
    });
    this.unlinkBatcher = new CallBatcher({
      itemsMax: LIMITS.namespaceBatchItemsMax,
      one: async (path) => {
        await call(this.channel(), 'Unlink', { path });
      },
      many: async (paths) =>
        (await call(this.channel(), 'UnlinkMany', { items: paths.map((path) => ({ path })) })).results.map(
          (r) => (r.error ? errorOfItem(r.error) : undefined),
        ),
    });
  }

  private newXattrOpenBatcher(): CallBatcher<{ path: string; xattrName: string }, Opened> {
    return new CallBatcher({
      itemsMax: LIMITS.namespaceBatchItemsMax,
      one: async (item) => openedWithXattr(await this.openCall(item)),
      many: async (items) =>
        (await this.openManyCall({ items })).results.map((r) =>
          r.error ? errorOfItem(r.error) : openedWithXattr(r.open),
        ),
    });
  }

  /** OpenMany over the framed path when it is there, else over gRPC. */
  private openManyCall(request: OpenManyRequest): Promise<OpenManyResponse__Output> {
    return this.framedCall('OpenMany', request, () => call(this.channel(), 'OpenMany', request));
  }

  /** StatMany over the framed path when it is there, else over gRPC. */
  private statManyCall(request: StatManyRequest): Promise<StatManyResponse__Output> {
    return this.framedCall('StatMany', request, () => call(this.channel(), 'StatMany', request));
  }

  /** A lone Open (nothing in flight to batch it with) takes the framed path too. */
  private openCall(request: OpenRequest): Promise<OpenResponse__Output> {
    return this.framedCall('Open', request, () => call(this.channel(), 'Open', request));
  }

  /** A lone Stat takes the framed path too. */
  private statCall(request: StatRequest): Promise<StatResponse__Output> {
    return this.framedCall('Stat', request, () => call(this.channel(), 'Stat', request));
  }

  /** A framed method's call with gRPC's codecs for it; `overGrpc` when the framed path is not there. */
  private framedCall<Req, Res>(
    method: FramedMethod,
    request: Req,
    overGrpc: () => Promise<Res>,
  ): Promise<Res> {
    const definition = contract().MdsService.service[method];
    return framedOr(
      this.frames,
      method,
      definition.path,
      () => definition.requestSerialize(request as never),
      (body) => this.harvested(definition.responseDeserialize(body) as Res),
      overGrpc,
    );
  }

  /** A framed answer's tickets are kept as the gRPC interceptor keeps them (client/mds-interceptor.ts). */
  private harvested<T>(message: T): T {
    this.tickets.harvest(message);
    return message;
  }

  /** The framed path to this MDS; its port comes with each GetMap answer. */
  private openFrames(): MdsFrameChannel {
    return new MdsFrameChannel(
      this.address,
      this.tls,
      (path) => this.frameMeta(path),
      // A failed GetMap leaves the port as it was: the map watch and the next broken call ask again.
      () => void this.refreshMap().catch(() => undefined),
    );
  }

  /** The metadata of one framed call: what the gRPC interceptor puts on a call of `path`. */
  private frameMeta(path: string): [string, string][] {
    const pairs: [string, string][] = [];
    if (this.tag) {
      pairs.push([JOB_ID_METADATA_KEY, this.tag.jobId], [SESSION_METADATA_KEY, this.tag.session]);
      if (this.tag.clientName) pairs.push([CLIENT_NAME_METADATA_KEY, this.tag.clientName]);
    }
    if (this.signer) pairs.push([AUTH_METADATA_KEY, this.signer.sign(path)]);
    return pairs;
  }

  /** The next connection, round robin. */
  private channel(): MdsServiceClient {
    const channel = this.channels[this.nextChannel]!;
    this.nextChannel = (this.nextChannel + 1) % this.channels.length;
    return channel;
  }

  /** Fetches the map once and starts watching for newer epochs. */
  /** The client's channels to the MDS (options.channels), each signing and carrying tickets. */
  private openChannels(options: MdsClientOptions): MdsServiceClient[] {
    const count = options.channels ?? MDS_CHANNELS_DEFAULT;
    if (!Number.isInteger(count) || count < 1 || count > MDS_CHANNELS_MAX)
      throw new StripeError('REQ_INVALID', `MDS channels must be 1..${MDS_CHANNELS_MAX}, got ${count}`);
    const v1 = contract();
    // One signer for every connection: one session at the MDS.
    const identity = resolveIdentity(options.keyring);
    this.identityName = identity?.name;
    this.signer = identity && CallSigner.of(identity);
    const interceptors = [mdsInterceptor({ tag: options.tag, signer: this.signer, tickets: this.tickets })];
    // A local subchannel pool per client gives each its own connection.
    return Array.from(
      { length: count },
      (_, i) =>
        new v1.MdsService(this.address, channelCredentials(options.tls), {
          ...CLIENT_OPTIONS,
          ...channelTlsOptions(options.tls),
          ...(count > 1 ? { 'grpc.use_local_subchannel_pool': 1, 'stripefs.mds-channel': i } : {}),
          interceptors,
        }),
    );
  }

  async start(): Promise<void> {
    try {
      await this.refreshMap();
    } catch (err) {
      // A server that cannot be reached for TLS's sake says so (TLS_REQUIRED, TLS_UNTRUSTED, TLS_NOT_SERVED).
      throw await explainUnavailable(err, this.address, this.tls);
    }
    this.startWatch();
  }

  get mapView(): MapView {
    if (!this.view) throw new Error('MdsClient used before start()');
    return this.view;
  }

  /** Calls `listener` with every newer map; the returned function stops it. */
  onMap(listener: (view: MapView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves with the first map newer than `epoch` (refreshed once at the start), or undefined after `ms`. */
  async newerMap(epoch: number, ms: number): Promise<MapView | undefined> {
    if (this.mapView.epoch > epoch) return this.mapView;
    let stop = (): void => undefined;
    let timer: NodeJS.Timeout | undefined;
    const newer = new Promise<MapView | undefined>((resolve) => {
      stop = this.onMap((view) => resolve(view));
      timer = setTimeout(() => resolve(undefined), ms);
    });
    try {
      // The watch may be restarting: ask once as well (a failed ask leaves the wait to the watch).
      await this.refreshMap().catch(() => undefined);
      return this.mapView.epoch > epoch ? this.mapView : await newer;
    } finally {
      stop();
      clearTimeout(timer);
    }
  }

  /** GetMap now; concurrent callers share one request. */
  refreshMap(): Promise<MapView> {
    this.refreshing ??= call(this.channel(), 'GetMap', { epoch: 0 })
      .then((res) => {
        if (!res.map) throw new Error('GetMap returned no map');
        this.frames.setPort(this.framesOff ? 0 : (res.framePort ?? 0));
        this.accept(res.map);
        return this.mapView;
      })
      .finally(() => {
        this.refreshing = undefined;
      });
    return this.refreshing;
  }

  private accept(wire: ClusterMap__Output): void {
    if (this.view && wire.epoch <= this.view.epoch) return;
    this.view = mapViewFromWire(wire, this.network);
    for (const listener of this.listeners) listener(this.view);
  }

  private startWatch(): void {
    if (this.closed) return;
    const stream = this.grpc.WatchMap({ knownEpoch: this.view?.epoch ?? 0 });
    this.watch = stream;
    stream.on('data', (res: { map: ClusterMap__Output | null }) => {
      if (res.map) this.accept(res.map);
    });
    const restart = (): void => {
      if (this.watch !== stream || this.closed) return;
      this.watch = undefined;
      setTimeout(() => this.startWatch(), WATCH_RESTART_MS).unref();
    };
    stream.on('error', restart);
    stream.on('end', restart);
  }

  mkdir(path: string, parents: boolean, layout?: Layout, owner: OwnerFields = {}): Promise<Attr__Output> {
    return call(this.channel(), 'Mkdir', { path, parents, ...owner, ...(layout ? { layout } : {}) }).then(
      (r) => must(r.attr),
    );
  }
  rmdir(path: string): Promise<void> {
    return call(this.channel(), 'Rmdir', { path }).then(() => undefined);
  }
  create(
    path: string,
    opts: {
      exclusive: boolean;
      truncate: boolean;
      layout?: Layout;
      data?: Uint8Array;
      xattrs?: CreateXattr[];
    } & OwnerFields,
  ): Promise<Created> {
    const item = { path, ...opts };
    return this.batching
      ? this.createBatcher.submit(item)
      : call(this.channel(), 'Create', createRequestOf(item)).then(createdOf);
  }
  /** Open: the attributes and, read-on-open, the file's bytes on the MDS; concurrent opens share one OpenMany. */
  open(path: string): Promise<Opened> {
    return this.batching ? this.openBatcher.submit(path) : this.openCall({ path }).then(openedOf);
  }
  /**
   * An open that also answers the file's extended attribute `xattrName` (read access needed, as
   * for getXattr): one MDS call where an open and a getXattr were two.
   */
  openWithXattr(path: string, xattrName: string): Promise<Opened> {
    const item = { path, xattrName };
    return this.batching ? this.xattrOpenBatcher.submit(item) : this.openCall(item).then(openedWithXattr);
  }
  /** Many stats in one StatMany (statahead): each answer without bytes, or the error its Stat would raise. */
  async statMany(paths: string[]): Promise<(Opened | StripeError)[]> {
    const reply = await this.statManyCall({ paths });
    return reply.results.map((r) =>
      r.found && r.attr
        ? { attr: r.attr, domData: undefined }
        : errorOfItem(
            r.error ?? { code: r.errorCode, message: `${r.path}: ${r.errorCode}`, detailsJson: '' },
          ),
    );
  }
  /** Many opens in one OpenMany (statahead): each answer, or the error its Open would raise. */
  async openMany(paths: string[]): Promise<(Opened | StripeError)[]> {
    const reply = await this.openManyCall({ items: paths.map((path) => ({ path })) });
    return reply.results.map((r) => (r.error ? errorOfItem(r.error) : openedOf(r.open)));
  }
  /**
   * Open by file id (a handle's bytes on the MDS, whatever its name is now), always with its bytes;
   * `path` names it in errors. Concurrent ones share OpenMany calls, so the files an OpenMany by
   * path left without bytes (its reply full) come back in a few batches, not one call each; given
   * the bytes each expects (`bytes`: its size, up to its layout's part on the MDS), they are cut
   * into batches whose replies hold them all. One whose bytes a batch left out anyway (the file
   * grew) is asked again, and alone after INODE_OPEN_ROUNDS_MAX batches.
   */
  async openByInode(inode: number, path: string, bytes = 0): Promise<Opened> {
    if (this.batching) {
      for (let round = 0; round < INODE_OPEN_ROUNDS_MAX; round++) {
        const opened = await this.inodeOpenBatcher.submit({ inode, path, bytes });
        if (opened.domData !== undefined) return opened;
      }
    }
    // Alone, an Open carries its bytes (at most domBytesMax, under the message bound).
    return openedOf(await this.openCall({ inode, path }));
  }
  stat(path: string): Promise<Attr__Output> {
    return this.batching ? this.statBatcher.submit(path) : this.statCall({ path }).then((r) => must(r.attr));
  }
  async readdir(path: string, withAttrs: boolean, pageEntries: number): Promise<DirEntry__Output[]> {
    const all: DirEntry__Output[] = [];
    let cursor = '';
    do {
      const page = await call(this.channel(), 'Readdir', { path, cursor, limit: pageEntries, withAttrs });
      all.push(...page.entries);
      cursor = page.nextCursor;
    } while (cursor !== '');
    return all;
  }
  /** One page of a directory: names after `cursor` (exclusive; '' from the start) in byte order. */
  async readdirPage(
    path: string,
    withAttrs: boolean,
    cursor: string,
    limit: number,
  ): Promise<{ entries: DirEntry__Output[]; nextCursor: string }> {
    const page = await call(this.channel(), 'Readdir', { path, cursor, limit, withAttrs });
    return { entries: page.entries, nextCursor: page.nextCursor };
  }
  rename(fromPath: string, toPath: string, noReplace = false): Promise<void> {
    return call(this.channel(), 'Rename', { fromPath, toPath, noReplace }).then(() => undefined);
  }
  unlink(path: string): Promise<void> {
    return this.batching
      ? this.unlinkBatcher.submit(path)
      : call(this.channel(), 'Unlink', { path }).then(() => undefined);
  }
  /**
   * Size and mtime, and for a file with a dom part the bytes written into it (`dom`), in one MDS
   * transaction. Concurrent commits share one CommitMany; one with dom bytes goes alone (a batch
   * of them could outgrow a message).
   */
  async commit(
    inode: number,
    size: number,
    mtimeMs: number,
    growOnly = false,
    dom?: DomPatch,
  ): Promise<Attr__Output> {
    const item: CommitItem = { inode, size, mtimeMs, growOnly };
    if (dom)
      return must(
        (await call(this.channel(), 'Commit', { ...item, domOffset: dom.offset, domData: dom.data })).attr,
      );
    return this.batching
      ? this.commitBatcher.submit(item)
      : must((await call(this.channel(), 'Commit', item)).attr);
  }
  async setLayout(path: string, layout: Layout): Promise<Attr__Output> {
    return must((await call(this.channel(), 'SetLayout', { path, layout })).attr);
  }
  async setAttr(request: SetAttrRequest): Promise<Attr__Output> {
    return must((await call(this.channel(), 'SetAttr', request)).attr);
  }
  async getXattr(path: string, name: string): Promise<Buffer> {
    return (await this.xattrOf(path, name)).value;
  }
  async xattrOf(path: string, name: string): Promise<{ value: Buffer; inode: number }> {
    const { value, inode } = await call(this.channel(), 'GetXattr', { path, name });
    return { value, inode: Number(inode) };
  }
  async setXattr(path: string, name: string, value: Uint8Array, mode: XattrSetMode): Promise<void> {
    await call(this.channel(), 'SetXattr', { path, name, value, mode });
  }
  async listXattrs(path: string): Promise<string[]> {
    return (await call(this.channel(), 'ListXattrs', { path })).names;
  }
  async removeXattr(path: string, name: string): Promise<void> {
    await call(this.channel(), 'RemoveXattr', { path, name });
  }
  async symlink(target: string, path: string, owner: { uid?: number; gid?: number }): Promise<Attr__Output> {
    return must((await call(this.channel(), 'Symlink', { target, path, ...owner })).attr);
  }
  async readlink(path: string): Promise<string> {
    return (await call(this.channel(), 'Readlink', { path })).target;
  }
  /** Tickets for files by inode, in order ('' for one this client may not read or that is gone). */
  async getTickets(inodes: number[]): Promise<string[]> {
    return (await call(this.channel(), 'GetTickets', { inodes, service: false })).tickets;
  }

  /** A service ticket for every object (admin identities only): fsck and tools that list OSTs. */
  async serviceTicket(): Promise<string> {
    const [ticket] = (await call(this.channel(), 'GetTickets', { inodes: [], service: true })).tickets;
    if (!ticket) throw new StripeError('REQ_INTERNAL', 'GetTickets answered no service ticket');
    return ticket;
  }

  /** Who this client signs as, as the MDS knows it; undefined when the MDS runs without auth. */
  async whoami(): Promise<Whoami | undefined> {
    try {
      const { identity, address } = await call(this.channel(), 'AuthWhoami', {});
      if (!identity) throw new StripeError('REQ_INTERNAL', 'AuthWhoami answered no identity');
      return {
        name: identity.name,
        caps: identity.caps,
        admin: identity.admin,
        allow: identity.allow,
        address,
      };
    } catch (err) {
      if (err instanceof StripeError && err.code === 'REQ_INVALID') return undefined;
      throw err;
    }
  }

  /** Writes refusals this process decided to the MDS's audit log (admin identities only). */
  async reportAudit(reports: AuditReport[], dropped: number): Promise<void> {
    await call(this.channel(), 'ReportAudit', { reports, dropped });
  }

  statfs(): Promise<StatfsResponse__Output> {
    return call(this.channel(), 'Statfs', {});
  }
  reportBadChunk(ostId: number, objectId: string, reason: ErrorCode, poolId = 0, pg = 0): Promise<void> {
    return call(this.channel(), 'ReportBadChunk', { ostId, objectId, reason, poolId, pg }).then(
      () => undefined,
    );
  }

  /**
   * The OSTs that hold a PG's data while it has not yet moved to its current
   * placement (recovery or rebalance in progress). Cached briefly per PG and
   * map epoch: a scan of a file asks for the same PGs again and again.
   */
  pgHolders(poolId: number, pg: number): Promise<PgHolders> {
    const key = `${poolId}:${pg}:${this.view?.epoch ?? 0}`;
    const now = performance.now();
    const cached = this.holdersCache.get(key);
    if (cached && now - cached.atMs < HOLDERS_CACHE_MS) return cached.answer;
    const answer = call(this.channel(), 'GetPgHolders', { poolId, pg }).then((r) => ({
      holders: r.holders,
      clean: r.clean,
      mapEpoch: Number(r.mapEpoch),
    }));
    if (this.holdersCache.size >= HOLDERS_CACHE_ENTRIES_MAX) this.holdersCache.clear();
    this.holdersCache.set(key, { atMs: now, answer });
    answer.catch(() => this.holdersCache.delete(key));
    return answer;
  }

  close(): void {
    this.closed = true;
    this.watch?.cancel();
    this.frames.close();
    for (const channel of this.channels) channel.close();
  }
}

/** An identity as the MDS holds it (AuthWhoami), with the caller's address as the MDS sees it. */
export interface Whoami {
  name: string;
  caps: string;
  admin: boolean;
  allow: string[];
  address: string;
}

/** A refusal decided outside the MDS, for its audit log (ReportAudit). */
export interface AuditReport {
  identity: string;
  address: string;
  op: string;
  paths: string[];
  result: string;
  door: string;
}

/** Where a PG's data is, as of the MDS's map epoch `mapEpoch`. */
export interface PgHolders {
  holders: number[];
  clean: boolean;
  mapEpoch: number;
}

function xattrBytesOf(xattrs: CreateXattr[] | undefined): number {
  let bytes = 0;
  for (const x of xattrs ?? []) bytes += Buffer.byteLength(x.name) + x.value.length;
  return bytes;
}

function createRequestOf(item: CreateItem): CreateRequest {
  const { data, ...rest } = item;
  return data === undefined ? rest : { ...rest, data, withData: true };
}

function createdOf(r: { attr: Attr__Output | null; dataStored: boolean }): Created {
  return { attr: must(r.attr), dataStored: r.dataStored };
}

function openedOf(r: OpenResponse__Output | null): Opened {
  if (!r) throw new Error('MDS open answer without a result');
  return { attr: must(r.attr), domData: r.domDataOmitted ? undefined : r.domData };
}

function openedWithXattr(r: OpenResponse__Output | null): Opened {
  return { ...openedOf(r), xattr: r?.xattr ? r.xattr.value : null };
}

function must(attr: Attr__Output | null): Attr__Output {
  if (!attr) throw new Error('MDS response without attributes');
  return attr;
}
