// The OSS's side of the MDS conversation: RegisterOss (retried with capped
// backoff, in the background so OSTs with persisted ids take writes at once;
// reads wait for its answer, which says which copies missed writes),
// Heartbeat with OstHealth, and the map by WatchMap with GetMap as fallback.

import type * as grpc from '@grpc/grpc-js';
import type { RefusalReport } from '../common/auth/audit-reporter.js';
import { resolveIdentity, signingOptions } from '../common/auth/signing.js';
import { CLIENT_OPTIONS, call, deadlineIn } from '../common/grpc.js';
import type { Logger } from '../common/logging.js';
import type { OssPlace } from '../common/oss-place.js';
import type { Random } from '../common/random.js';
import { channelCredentials, channelTlsOptions } from '../common/tls.js';
import type { MdsServiceClient } from '../proto/gen/stripefs/v1/MdsService.js';
import { contract, type OstHealth, type WatchMapResponse__Output } from '../proto/index.js';
import {
  MAP_POLL_MS,
  MDS_RPC_TIMEOUT_MS,
  REGISTER_BACKOFF_MS_BASE,
  REGISTER_BACKOFF_MS_MAX,
} from './limits.js';
import type { OssMetrics } from './metrics.js';
import type { OssCore } from './ops.js';
import type { TicketGuard } from './tickets.js';

/** An optional epoch field of an MDS answer (undefined: the MDS keeps no write fence). */
function optionalEpoch(value: number | string | undefined | null): number | undefined {
  return value === undefined || value === null ? undefined : Number(value);
}

export interface MdsLinkOptions extends OssPlace {
  mdsAddress: string;
  /** Configured ids, one per OST in order (oss.ostIds). */
  ostIds?: number[];
}

export class MdsLink {
  private readonly client: MdsServiceClient;
  private stopped = false;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private watch: grpc.ClientReadableStream<WatchMapResponse__Output> | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  registered = false;
  /** The heartbeat a read with a lapsed lease is waiting for. */
  private renewing: Promise<void> | undefined;
  /** A heartbeat that tells the MDS a newer map was applied is in flight; `ackAgain`: one more after it. */
  private acking = false;
  private ackAgain = false;
  /** When this OSS started: the MDS sees a restart (job counts begun again) by a new value. */
  private readonly startedMs = Date.now();

  constructor(
    private readonly opts: MdsLinkOptions,
    private readonly core: OssCore,
    private readonly metrics: OssMetrics,
    private readonly logger: Logger,
    private readonly random: Random,
    /** Takes the ticket keys and revocations of every answer. */
    private readonly tickets?: TicketGuard,
  ) {
    const v1 = contract();
    this.client = new v1.MdsService(opts.mdsAddress, channelCredentials(), {
      ...CLIENT_OPTIONS,
      ...channelTlsOptions(),
      ...signingOptions(resolveIdentity(undefined)),
    });
    core.mapView.onNewerEpoch = () => void this.fetchMap();
    core.fetchMap = () => this.fetchMap();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  private deadline(): grpc.CallOptions {
    return deadlineIn(MDS_RPC_TIMEOUT_MS);
  }

  /** Registers (forever, with backoff) and then keeps heartbeating and watching. Never throws. */
  async start(): Promise<void> {
    let backoffMs = REGISTER_BACKOFF_MS_BASE;
    while (!this.stopped) {
      try {
        await this.register();
        return;
      } catch (err) {
        this.logger.warn({ err: (err as Error).message, backoffMs }, 'RegisterOss failed; retrying');
        await this.sleep(backoffMs * (0.5 + this.random.next()));
        backoffMs = Math.min(REGISTER_BACKOFF_MS_MAX, backoffMs * 2);
      }
    }
  }

  private async register(): Promise<void> {
    const o = this.opts;
    const sentAtMs = this.core.monotonicMs();
    const res = await call(
      this.client,
      'RegisterOss',
      {
        ossId: o.ossId,
        host: o.host,
        rack: o.rack,
        datacenter: o.datacenter,
        grpcAddress: o.grpcAddress,
        bulkAddress: o.bulkAddress,
        adminAddress: o.adminAddress,
        publicGrpcAddress: o.publicGrpcAddress ?? '',
        publicBulkAddress: o.publicBulkAddress ?? '',
        publicAdminAddress: o.publicAdminAddress ?? '',
        osts: this.core.handles.map((h, index) => {
          const { capacityBytes, usedBytes } = h.ost.usage();
          return {
            name: h.ost.name,
            totalBytes: capacityBytes,
            usedBytes,
            ...(o.ostIds ? { id: o.ostIds[index] } : {}),
          };
        }),
      },
      this.deadline(),
    );
    for (const registered of res.osts) {
      const h = this.core.handleByName(registered.name);
      if (h) await h.ost.assignId(registered.id);
    }
    // Before anything is read: which copies missed writes while this OSS was away (ops.ts).
    this.core.applyStaleCopies(res.staleCopies, {
      sentAtMs,
      readLeaseMs: res.readLeaseMs,
      mapEpoch: Number(res.mapEpoch),
    });
    this.tickets?.update(res);
    this.registered = true;
    this.logger.info({ osts: res.osts, mapEpoch: res.mapEpoch }, 'registered with the MDS');
    await this.fetchMap();
    this.watchMap();
    const intervalMs = res.heartbeatIntervalMs > 0 ? res.heartbeatIntervalMs : 500;
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), intervalMs);
    // A read that finds the lease lapsed asks now rather than at the next interval; one call at a time.
    this.core.renewLease = () => {
      this.renewing ??= this.heartbeat().finally(() => {
        this.renewing = undefined;
      });
      return this.renewing;
    };
  }

  health(): OstHealth[] {
    return this.core.handles.flatMap((h) => {
      if (h.ost.id === undefined) return [];
      const c = this.metrics.of(h.ost.name);
      const usage = h.ost.usage();
      return [
        {
          ostId: h.ost.id,
          usedBytes: usage.usedBytes,
          totalBytes: usage.capacityBytes,
          objectCount: usage.objectCount,
          readLatencyMsP50: c.readLatency.p50(),
          writeLatencyMsP50: c.writeLatency.p50(),
          readSamples: c.readLatency.count(),
          writeSamples: c.writeLatency.count(),
          errors: c.errors,
          checksumErrors: c.checksumErrors,
          readBytes: c.readBytes,
          writeBytes: c.writeBytes,
          readOps: c.readOps,
          writeOps: c.writeOps,
        },
      ];
    });
  }

  private async heartbeat(): Promise<void> {
    if (this.stopped) return;
    try {
      for (const h of this.core.handles) await h.ost.refreshCapacity();
      const jobs = this.core.jobs.report();
      const sentAtMs = this.core.monotonicMs();
      const res = await call(
        this.client,
        'Heartbeat',
        {
          ossId: this.opts.ossId,
          osts: this.health(),
          mapEpoch: this.core.mapView.epoch,
          jobs: jobs?.entries ?? [],
          jobsReport: jobs?.number ?? 0,
          jobsDropped: this.core.jobs.dropped,
          startedMs: this.startedMs,
        },
        this.deadline(),
      );
      this.core.jobs.acknowledge(jobs);
      this.core.applyStaleCopies(res.staleCopies, {
        sentAtMs,
        readLeaseMs: res.readLeaseMs,
        mapEpoch: Number(res.mapEpoch),
      });
      this.tickets?.update(res);
      this.core.writeFence.learn(optionalEpoch(res.writableEpoch));
      if (res.mapEpoch > this.core.mapView.epoch) await this.fetchMap();
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'heartbeat failed');
    }
  }

  /** Reports a bad object found by scrub; true when the MDS scheduled a repair. */
  async reportBadChunk(bad: {
    ostId: number;
    objectId: string;
    poolId: number;
    pg: number;
    reason: string;
  }): Promise<boolean> {
    const res = await call(this.client, 'ReportBadChunk', bad, this.deadline());
    return res.repairScheduled;
  }

  /** Refusals this OSS decided (tickets, its admin HTTP API), for the MDS's audit log. */
  async reportAudit(reports: RefusalReport[], dropped: number): Promise<void> {
    await call(this.client, 'ReportAudit', { reports, dropped }, this.deadline());
  }

  async fetchMap(): Promise<void> {
    if (this.stopped) return;
    try {
      const res = await call(this.client, 'GetMap', { epoch: 0 }, this.deadline());
      this.applyMap(res);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'GetMap failed');
    }
  }

  /**
   * Applies a map and the writable epoch from the MDS; a newer map is acknowledged at once by a
   * heartbeat (it carries the applied epoch), which lifts this OSS's part of the map's write fence.
   */
  private applyMap(msg: { map?: WatchMapResponse__Output['map']; writableEpoch?: number | string }): void {
    if (msg.map && this.core.mapView.apply(msg.map)) this.ackMap();
    this.core.writeFence.learn(optionalEpoch(msg.writableEpoch));
  }

  /** Sends a heartbeat now, or once more after the one in flight (which may carry an older epoch). */
  private ackMap(): void {
    if (!this.registered || this.stopped) return;
    if (this.acking) {
      this.ackAgain = true;
      return;
    }
    this.acking = true;
    void this.heartbeat().finally(() => {
      this.acking = false;
      if (!this.ackAgain) return;
      this.ackAgain = false;
      this.ackMap();
    });
  }

  /** WatchMap stream; when it ends or fails, poll once and watch again after a pause. */
  private watchMap(): void {
    if (this.stopped) return;
    const stream = this.client.WatchMap({ knownEpoch: this.core.mapView.epoch });
    this.watch = stream;
    stream.on('data', (msg: WatchMapResponse__Output) => this.applyMap(msg));
    let restarted = false;
    const restart = (): void => {
      if (restarted || this.stopped) return;
      restarted = true;
      void this.sleep(MAP_POLL_MS).then(async () => {
        await this.fetchMap();
        this.watchMap();
      });
    };
    stream.on('error', restart);
    stream.on('end', restart);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.heartbeatTimer);
    for (const t of this.timers) clearTimeout(t);
    this.watch?.cancel();
    this.client.close();
  }
}
