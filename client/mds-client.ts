// Typed wrapper over MdsService. Keeps the current cluster map: a WatchMap
// stream pushes new epochs; GetMap is the fallback when the stream is down
// and when a data request answered MAP_STALE.
import * as grpc from '@grpc/grpc-js';
import { CLIENT_OPTIONS, call } from '../common/grpc.js';
import type { MdsServiceClient } from '../proto/gen/stripefs/v1/MdsService.js';
import type { Attr__Output, ClusterMap__Output, DirEntry__Output, Layout } from '../proto/index.js';
import { contract } from '../proto/index.js';
import { type MapView, mapViewFromWire } from './map.js';

const WATCH_RESTART_MS = 500;

/** How long a PG's holders answer is reused, and how many answers are kept. */
const HOLDERS_CACHE_MS = 1_000;
const HOLDERS_CACHE_ENTRIES_MAX = 4_096;

export class MdsClient {
  readonly grpc: MdsServiceClient;
  private view: MapView | undefined;
  private watch: grpc.ClientReadableStream<{ map: ClusterMap__Output | null }> | undefined;
  private closed = false;
  private readonly holdersCache = new Map<
    string,
    { atMs: number; answer: Promise<{ holders: number[]; clean: boolean }> }
  >();
  private refreshing: Promise<MapView> | undefined;
  private readonly listeners = new Set<(view: MapView) => void>();

  constructor(readonly address: string) {
    const v1 = contract();
    this.grpc = new v1.MdsService(address, grpc.credentials.createInsecure(), CLIENT_OPTIONS);
  }

  /** Fetches the map once and starts watching for newer epochs. */
  async start(): Promise<void> {
    await this.refreshMap();
    this.startWatch();
  }

  get mapView(): MapView {
    if (!this.view) throw new Error('MdsClient used before start()');
    return this.view;
  }

  onMap(listener: (view: MapView) => void): void {
    this.listeners.add(listener);
  }

  /** GetMap now; concurrent callers share one request. */
  refreshMap(): Promise<MapView> {
    this.refreshing ??= call(this.grpc, 'GetMap', { epoch: 0 })
      .then((res) => {
        if (!res.map) throw new Error('GetMap returned no map');
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
    this.view = mapViewFromWire(wire);
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

  mkdir(path: string, parents: boolean, layout?: Layout): Promise<Attr__Output> {
    return call(this.grpc, 'Mkdir', { path, parents, ...(layout ? { layout } : {}) }).then((r) =>
      must(r.attr),
    );
  }
  rmdir(path: string): Promise<void> {
    return call(this.grpc, 'Rmdir', { path }).then(() => undefined);
  }
  async create(
    path: string,
    opts: { exclusive: boolean; truncate: boolean; layout?: Layout },
  ): Promise<Attr__Output> {
    return must((await call(this.grpc, 'Create', { path, ...opts })).attr);
  }
  async open(path: string): Promise<Attr__Output> {
    return must((await call(this.grpc, 'Open', { path })).attr);
  }
  async stat(path: string): Promise<Attr__Output> {
    return must((await call(this.grpc, 'Stat', { path })).attr);
  }
  async readdir(path: string, withAttrs: boolean, pageEntries: number): Promise<DirEntry__Output[]> {
    const all: DirEntry__Output[] = [];
    let cursor = '';
    do {
      const page = await call(this.grpc, 'Readdir', { path, cursor, limit: pageEntries, withAttrs });
      all.push(...page.entries);
      cursor = page.nextCursor;
    } while (cursor !== '');
    return all;
  }
  rename(fromPath: string, toPath: string): Promise<void> {
    return call(this.grpc, 'Rename', { fromPath, toPath }).then(() => undefined);
  }
  unlink(path: string): Promise<void> {
    return call(this.grpc, 'Unlink', { path }).then(() => undefined);
  }
  async commit(inode: number, size: number, mtimeMs: number): Promise<Attr__Output> {
    return must((await call(this.grpc, 'Commit', { inode, size, mtimeMs })).attr);
  }
  async setLayout(path: string, layout: Layout): Promise<Attr__Output> {
    return must((await call(this.grpc, 'SetLayout', { path, layout })).attr);
  }
  reportBadChunk(ostId: number, objectId: string, reason: string, poolId = 0, pg = 0): Promise<void> {
    return call(this.grpc, 'ReportBadChunk', { ostId, objectId, reason, poolId, pg }).then(() => undefined);
  }

  /**
   * The OSTs that hold a PG's data while it has not yet moved to its current
   * placement (recovery or rebalance in progress). Cached briefly per PG and
   * map epoch: a scan of a file asks for the same PGs again and again.
   */
  pgHolders(poolId: number, pg: number): Promise<{ holders: number[]; clean: boolean }> {
    const key = `${poolId}:${pg}:${this.view?.epoch ?? 0}`;
    const now = performance.now();
    const cached = this.holdersCache.get(key);
    if (cached && now - cached.atMs < HOLDERS_CACHE_MS) return cached.answer;
    const answer = call(this.grpc, 'GetPgHolders', { poolId, pg }).then((r) => ({
      holders: r.holders,
      clean: r.clean,
    }));
    if (this.holdersCache.size >= HOLDERS_CACHE_ENTRIES_MAX) this.holdersCache.clear();
    this.holdersCache.set(key, { atMs: now, answer });
    answer.catch(() => this.holdersCache.delete(key));
    return answer;
  }

  close(): void {
    this.closed = true;
    this.watch?.cancel();
    this.grpc.close();
  }
}

function must(attr: Attr__Output | null): Attr__Output {
  if (!attr) throw new Error('MDS response without attributes');
  return attr;
}
