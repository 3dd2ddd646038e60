// What every open file of one client shares: the object IO layer, the block
// cache, the limits, the counters, and block fetches in flight (so two readers
// of one block cause one request).
import type { BlockPool } from './block-pool.js';
import type { BlockCache } from './cache.js';
import type { ClientCounters } from './counters.js';
import type { DiskCache } from './disk-cache.js';
import type { ClientLimits } from './limits.js';
import type { MdsClient } from './mds-client.js';
import type { ObjectIo } from './object-io.js';
import type { OpenCache } from './open-cache.js';
import type { OstHealth } from './ost-health.js';
import type { Statahead } from './statahead.js';
import type { WriteBuffers } from './write-buffers.js';

export interface ClientContext {
  mds: MdsClient;
  io: ObjectIo;
  cache: BlockCache;
  /** The cache's memory: blocks reused once the cache lets them go. */
  blocks: BlockPool;
  /** Buffers writers fill before they send, shared by every open file (client/write-buffers.ts). */
  writeBuffers: WriteBuffers;
  /** OSTs this client saw fail or answer slowly (the order copies are tried in). */
  health: OstHealth;
  limits: ClientLimits;
  counters: ClientCounters;
  blocksInFlight: Map<string, Promise<Buffer>>;
  /** ec blocks in flight whose fetch is rebuilding them (a rebuild never waits for another). */
  blocksRebuilding: Set<string>;
  /** Readahead bytes requested and not yet in the cache (the other part of the global budget). */
  prefetchInFlight: { bytes: number };
  /** Opt-in open and attribute answers reused within a TTL (off by default: close-to-open). */
  openCache: OpenCache;
  /** Fetches ahead the entries a directory scan will stat or open next (with the open cache on). */
  statahead: Statahead;
  /** The local-disk cache tier (client.diskCacheDir), when configured. */
  diskCache: DiskCache | undefined;
}
