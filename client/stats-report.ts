// stats(): one snapshot of what the client has done.
import type { ClientContext } from './context.js';
import type { DiskCache, DiskCacheCounters } from './disk-cache.js';
import type { DiskOpenIndex } from './open-index.js';
import type { OpKind, OpStats } from './stats.js';

export interface ClientStats {
  bytesRead: number;
  bytesWritten: number;
  elapsedMs: number;
  readBytesPerSec: number;
  writeBytesPerSec: number;
  latency: Partial<Record<OpKind, OpStats>>;
  cache: {
    hits: number;
    misses: number;
    hitRate: number;
    sizeBytes: number;
    evictions: number;
    /** Blocks dropped when a file was opened after another commit of it (close-to-open). */
    staleDrops: number;
    /** 1 MiB (cache block) buffers allocated so far; reads reuse the blocks the cache let go. */
    blocksAllocated: number;
  };
  readahead: { hitBytes: number; wasteBytes: number };
  /** Write buffers (whole units, ec stripes and parity) made so far, and bytes of them idle for reuse. */
  writeBuffers: { allocated: number; idleBytes: number };
  bytesReadPerOst: Record<number, number>;
  bytesWrittenPerOst: Record<number, number>;
  retries: number;
  degradedReads: number;
  badChunksReported: number;
  /**
   * Bulk reads that failed their checksum at the client and were read again
   * with the OSS's check (a rotten disk block then fails there; a wire error may heal).
   */
  checksumRechecks: number;
  /** Requests in flight to an OST given up when a new map marked it down (failed over at once). */
  ostDownAborts: number;
  /** Operations that waited for the MDS to decide on an OST they could not reach (client/retry.ts). */
  mapWaits: number;
  /** Partial-block reads fetched as asked, not as whole cache blocks (random access or readahead off). */
  exactReads: number;
  /** Bytes of large reads (limits.directReadBytesMin) fetched straight into the caller's buffer, not cached. */
  directReadBytes: number;
  /** Object reads and writes sent over the bulk data path and over gRPC. */
  requests: { bulk: number; grpc: number };
  /**
   * Data on the MDS: bytes read from and written to files' parts kept on the MDS, and files
   * created, written and committed in one MDS round trip (writeFile of a file that fits).
   */
  dom: { bytesRead: number; bytesWritten: number; createsWithData: number };
  /**
   * Batched opens and stats (OpenMany, StatMany) answered over the MDS's framed path, and those
   * sent over gRPC instead (the path off, not named by GetMap, or out of reach).
   */
  mdsFrames: {
    calls: number;
    fallbacks: number;
    /**
     * Bytes of framed answers copied out of the connection's read buffer, and read straight into
     * the answer's own buffer (the rest of a large answer: no copy).
     */
    answerBytesCopied: number;
    answerBytesInPlace: number;
  };
  /** The opt-in open and attribute cache (limits.openCacheTtlMs): answers reused, asked again, held. */
  openCache: { hits: number; misses: number; expired: number; entries: number; bytes: number };
  /**
   * Statahead (with the open cache on): OpenMany batches sent ahead of a directory scan, entries
   * they carried, entries a stat or open then found (hits) and entries never used (waste).
   */
  statahead: { batches: number; entries: number; hits: number; waste: number };
  /**
   * The local-disk cache tier (client.diskCacheDir; undefined without one): blocks served from it
   * and their bytes, blocks written to it, evicted past its bound, failing their check (re-read),
   * or not kept while it was busy; what it holds now. In the open cache's TTL mode, `opens`: opens
   * answered from the answers an earlier client kept on this disk (client/open-index.ts), kept
   * answers found older than the TTL, and how many are kept now.
   */
  diskCache?: DiskCacheCounters & {
    sizeBytes: number;
    files: number;
    bytesMax: number;
    opens?: { hits: number; expired: number; entries: number };
  };
  /**
   * What this client sees of the OSTs it reads from: each one's moving average
   * of the wait for a read's answer to begin (ms); the ones read after the
   * others because they answer over 4x slower than the median OST (`slow`) or
   * recently failed (`suspect`); and how many slow verdicts there were.
   */
  osts: {
    answerMs: Record<number, number>;
    slow: number[];
    suspect: number[];
    slowVerdicts: number;
    /** Reads given up after requestTimeoutMs (each one a wait of a whole timeout). */
    timeouts: number;
    /** OSTs this client's current map marks down. */
    down: number[];
  };
}

function cacheStats(ctx: ClientContext): ClientStats['cache'] {
  const { cache } = ctx;
  const lookups = cache.counters.hits + cache.counters.misses;
  return {
    hits: cache.counters.hits,
    misses: cache.counters.misses,
    hitRate: lookups === 0 ? 0 : cache.counters.hits / lookups,
    sizeBytes: cache.sizeBytes,
    evictions: cache.counters.evictions,
    staleDrops: cache.counters.staleDrops,
    blocksAllocated: ctx.blocks.allocated,
  };
}

function diskCacheStats(cache: DiskCache, index: DiskOpenIndex | undefined): ClientStats['diskCache'] {
  return {
    ...cache.counters,
    sizeBytes: cache.sizeBytes,
    files: cache.fileCount,
    bytesMax: cache.bytesMax,
    ...(index ? { opens: { hits: index.hits, expired: index.expired, entries: index.size } } : {}),
  };
}

export function statsOf(ctx: ClientContext): ClientStats {
  const { counters, cache } = ctx;
  const elapsedMs = performance.now() - counters.startedMs;
  return {
    bytesRead: counters.bytesRead,
    bytesWritten: counters.bytesWritten,
    elapsedMs,
    readBytesPerSec: elapsedMs > 0 ? (counters.bytesRead * 1000) / elapsedMs : 0,
    writeBytesPerSec: elapsedMs > 0 ? (counters.bytesWritten * 1000) / elapsedMs : 0,
    latency: counters.latencies.snapshot(),
    cache: cacheStats(ctx),
    readahead: { hitBytes: cache.counters.readaheadHitBytes, wasteBytes: cache.counters.readaheadWasteBytes },
    writeBuffers: { allocated: ctx.writeBuffers.allocated, idleBytes: ctx.writeBuffers.idleBytesNow },
    bytesReadPerOst: Object.fromEntries(counters.bytesReadPerOst),
    bytesWrittenPerOst: Object.fromEntries(counters.bytesWrittenPerOst),
    retries: counters.retries,
    degradedReads: counters.degradedReads,
    badChunksReported: counters.badChunksReported,
    checksumRechecks: counters.checksumRechecks,
    ostDownAborts: counters.ostDownAborts,
    mapWaits: counters.mapWaits,
    exactReads: counters.exactReads,
    directReadBytes: counters.directReadBytes,
    requests: { ...counters.requests },
    statahead: {
      batches: ctx.statahead.batches,
      entries: ctx.statahead.entries,
      hits: ctx.statahead.hits,
      waste: ctx.statahead.waste,
    },
    openCache: {
      hits: ctx.openCache.hits,
      misses: ctx.openCache.misses,
      expired: ctx.openCache.expired,
      entries: ctx.openCache.size,
      bytes: ctx.openCache.bytes,
    },
    ...(ctx.diskCache ? { diskCache: diskCacheStats(ctx.diskCache, ctx.openCache.disk) } : {}),
    dom: {
      bytesRead: counters.domBytesRead,
      bytesWritten: counters.domBytesWritten,
      createsWithData: counters.createsWithData,
    },
    mdsFrames: {
      calls: ctx.mds.frames.calls,
      fallbacks: ctx.mds.frames.fallbacks,
      answerBytesCopied: ctx.mds.frames.answerBytes.copied,
      answerBytesInPlace: ctx.mds.frames.answerBytes.inPlace,
    },
    osts: {
      ...ctx.health.snapshot(),
      slowVerdicts: ctx.health.slowVerdicts,
      timeouts: ctx.health.timeouts,
      down: [...ctx.mds.mapView.osts.values()]
        .filter((o) => !o.up)
        .map((o) => o.id)
        .sort((a, b) => a - b),
    },
  };
}
