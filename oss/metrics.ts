// Prometheus metrics of one OSS and the recent-latency view its heartbeats
// carry. One registry per OSS so several can live in one test process.

import { checksumBackend } from '../common/checksum.js';
import {
  Counter,
  createRegistry,
  Gauge,
  Histogram,
  LATENCY_BUCKETS_SECONDS,
  type Registry,
} from '../common/metrics.js';

export type OpName = 'write' | 'read' | 'stat' | 'delete' | 'list' | 'flush';

/** Latencies kept per OST and op kind for the heartbeat's p50: the last 256, and none older than 30 s. */
const RECENT_LATENCIES_MAX = 256;
export const RECENT_LATENCY_WINDOW_MS = 30_000;

class RecentLatencies {
  private readonly samples: { ms: number; atMs: number }[] = [];
  add(ms: number, atMs = performance.now()): void {
    this.samples.push({ ms, atMs });
    if (this.samples.length > RECENT_LATENCIES_MAX) this.samples.shift();
  }
  private expire(nowMs: number): void {
    while (this.samples.length > 0 && nowMs - this.samples[0]!.atMs > RECENT_LATENCY_WINDOW_MS)
      this.samples.shift();
  }
  /** Requests in the recent window (capped at RECENT_LATENCIES_MAX). */
  count(nowMs = performance.now()): number {
    this.expire(nowMs);
    return this.samples.length;
  }
  /** Median of the recent window; 0 when the OST served nothing recently. */
  p50(nowMs = performance.now()): number {
    this.expire(nowMs);
    if (this.samples.length === 0) return 0;
    const sorted = this.samples.map((s) => s.ms).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  }
}

/** Answers about the request, not the OST's health: not counted in the heartbeat's error figure. */
const CLIENT_CONDITIONS = new Set([
  'OBJ_NOT_FOUND',
  'MAP_STALE',
  'OBJ_RANGE',
  'REQ_INVALID',
  'OBJ_INVALID_ID',
]);

export interface OstCounters {
  errors: number;
  checksumErrors: number;
  /** Since start, for the heartbeat (the MDS turns them into throughput and IOPS). */
  readBytes: number;
  writeBytes: number;
  readOps: number;
  writeOps: number;
  readLatency: RecentLatencies;
  writeLatency: RecentLatencies;
}

export interface OstUsageSource {
  label: string;
  usedBytes(): number;
  totalBytes(): number;
  objectCount(): number;
  /** Data bytes written to disk with O_DIRECT and through the page cache. */
  directWriteBytes(): number;
  pagedWriteBytes(): number;
  /** The segment log of small objects (oss/store/segment-log.ts): its bytes, live or dead, and the live ones. */
  logBytes(): number;
  logLiveBytes(): number;
  /** Rounds of the log replayed into the index when the OST opened (their index batch was lost). */
  logReplayedRounds(): number;
  /** fdatasyncs of object files since start, and the durability requests (sync writes, flushes) they served. */
  fileFsyncs(): number;
  fileSyncRequests(): number;
}

/** The gauges read from each OST's usage when scraped. */
function usageGauges(usage: () => OstUsageSource[], registers: Registry[]): void {
  const gauge = (name: string, help: string, pick: (u: OstUsageSource) => number): void => {
    new Gauge({
      name,
      help,
      labelNames: ['ost'],
      registers,
      collect() {
        for (const u of usage()) this.set({ ost: u.label }, pick(u));
      },
    });
  };
  gauge('stripefs_oss_used_bytes', 'Bytes stored per OST', (u) => u.usedBytes());
  gauge('stripefs_oss_total_bytes', 'Capacity per OST', (u) => u.totalBytes());
  gauge('stripefs_oss_objects', 'Objects per OST', (u) => u.objectCount());
  gauge(
    'stripefs_oss_direct_write_bytes',
    'Data bytes written with O_DIRECT (aligned whole blocks) since start',
    (u) => u.directWriteBytes(),
  );
  gauge('stripefs_oss_paged_write_bytes', 'Data bytes written through the page cache since start', (u) =>
    u.pagedWriteBytes(),
  );
  gauge('stripefs_oss_log_bytes', 'Bytes of the small-object log segments per OST, live or dead', (u) =>
    u.logBytes(),
  );
  gauge('stripefs_oss_log_live_bytes', 'Bytes of live records in the small-object log per OST', (u) =>
    u.logLiveBytes(),
  );
  gauge(
    'stripefs_oss_log_replayed_rounds',
    'Rounds of the small-object log replayed into the index at open (a power loss took their index batch)',
    (u) => u.logReplayedRounds(),
  );
  gauge(
    'stripefs_oss_file_fsyncs',
    'fdatasyncs of object files since start (concurrent requests of one file share one)',
    (u) => u.fileFsyncs(),
  );
  gauge(
    'stripefs_oss_file_sync_requests',
    'Durability requests of object files (sync writes, flushes) since start',
    (u) => u.fileSyncRequests(),
  );
}

export class OssMetrics {
  readonly registry: Registry;
  private readonly bytes: Counter<'ost' | 'direction'>;
  private readonly ops: Counter<'ost' | 'op' | 'result'>;
  private readonly latency: Histogram<'ost' | 'op'>;
  private readonly checksumErrors: Counter<'ost'>;
  private readonly socketPath: Gauge<'path'>;
  /** Bulk connections read the plain way on the user-buffer path (their handle was not as checked at start). */
  readonly bulkSocketFallbacks: Counter;
  private readonly counters = new Map<string, OstCounters>();

  constructor(usage: () => OstUsageSource[], withProcessMetrics = true) {
    this.registry = createRegistry('oss', withProcessMetrics);
    const registers = [this.registry];
    this.bytes = new Counter({
      name: 'stripefs_oss_bytes_total',
      help: 'Bytes moved per OST',
      labelNames: ['ost', 'direction'],
      registers,
    });
    this.ops = new Counter({
      name: 'stripefs_oss_ops_total',
      help: 'Requests per OST, op and result code',
      labelNames: ['ost', 'op', 'result'],
      registers,
    });
    this.latency = new Histogram({
      name: 'stripefs_oss_op_seconds',
      help: 'Request latency per OST and op',
      labelNames: ['ost', 'op'],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers,
    });
    this.checksumErrors = new Counter({
      name: 'stripefs_oss_checksum_errors_total',
      help: 'Blocks that failed their checksum on read',
      labelNames: ['ost'],
      registers,
    });
    usageGauges(usage, registers);
    new Gauge({
      name: 'stripefs_oss_crc32c_backend',
      help: 'The crc32c implementation this OSS runs (value 1 on its label)',
      labelNames: ['backend'],
      registers,
    }).set({ backend: checksumBackend().name }, 1);
    this.socketPath = new Gauge({
      name: 'stripefs_oss_bulk_socket_path',
      help: 'How the bulk server reads its sockets (value 1 on its label): user-buffer (one reused buffer per connection) or plain (a fresh buffer per read: Node internals not as expected, or turned off)',
      labelNames: ['path'],
      registers,
    });
    this.bulkSocketFallbacks = new Counter({
      name: 'stripefs_oss_bulk_socket_fallbacks_total',
      help: 'Bulk connections read the plain way although the user-buffer path is live',
      registers,
    });
  }

  /**
   * The write fence's counts (oss/write-fence.ts): writes held for a map the MDS did not yet let
   * writes use, and those refused after waiting, since start.
   */
  watchWriteFence(fence: { readonly held: number; readonly refused: number }): void {
    const registers = [this.registry];
    new Gauge({
      name: 'stripefs_oss_write_fence_held',
      help: 'Writes held since start until the MDS let their map epoch be written',
      registers,
      collect() {
        this.set(fence.held);
      },
    });
    new Gauge({
      name: 'stripefs_oss_write_fence_refused',
      help: 'Writes refused since start after waiting for their map epoch to be let through',
      registers,
      collect() {
        this.set(fence.refused);
      },
    });
  }

  /** Which path the bulk server runs (oss/bulk-socket.ts). */
  setBulkSocketPath(path: 'user-buffer' | 'plain'): void {
    this.socketPath.set({ path: 'user-buffer' }, path === 'user-buffer' ? 1 : 0);
    this.socketPath.set({ path: 'plain' }, path === 'plain' ? 1 : 0);
  }

  of(ost: string): OstCounters {
    let c = this.counters.get(ost);
    if (!c) {
      c = {
        errors: 0,
        checksumErrors: 0,
        readBytes: 0,
        writeBytes: 0,
        readOps: 0,
        writeOps: 0,
        readLatency: new RecentLatencies(),
        writeLatency: new RecentLatencies(),
      };
      this.counters.set(ost, c);
    }
    return c;
  }

  /** `serviceMs`: the part of `ms` not spent waiting on the client (what the heartbeat's p50 is of). */
  record(ost: string, op: OpName, result: string, ms: number, serviceMs = ms): void {
    this.ops.inc({ ost, op, result });
    this.latency.observe({ ost, op }, ms / 1000);
    const c = this.of(ost);
    if (result !== 'ok' && !CLIENT_CONDITIONS.has(result)) c.errors++;
    if (op === 'read') c.readLatency.add(serviceMs);
    if (op === 'write') c.writeLatency.add(serviceMs);
    if (result === 'ok' && op === 'read') c.readOps++;
    if (result === 'ok' && op === 'write') c.writeOps++;
  }

  moved(ost: string, direction: 'read' | 'write', bytes: number): void {
    this.bytes.inc({ ost, direction }, bytes);
    const c = this.of(ost);
    if (direction === 'read') c.readBytes += bytes;
    else c.writeBytes += bytes;
  }

  checksumError(ost: string): void {
    this.checksumErrors.inc({ ost });
    this.of(ost).checksumErrors++;
  }
}
