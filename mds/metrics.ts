// The MDS's Prometheus metrics, one registry per server instance.
import {
  Counter,
  createRegistry,
  Gauge,
  Histogram,
  LATENCY_BUCKETS_SECONDS,
  type Registry,
} from '../common/index.js';

export interface MdsMetrics {
  registry: Registry;
  latency: Histogram<'op'>;
  errors: Counter<'op' | 'code'>;
  /** Calls that came over the framed path (mds/frame-server.ts), by method. */
  framedCalls: Counter<'op'>;
  mapEpoch: Gauge;
  destroyQueued: Gauge;
  groupWrites: Gauge;
  detectorStalled: Gauge;
}

/**
 * `groupWrites`: the group committer's count of synced writes, read at each scrape;
 * `dom`: bytes of data-on-MDS records read from the database to answer opens, and the files an
 * OpenMany answered without their bytes.
 */
export function createMdsMetrics(
  groupWrites: () => number = () => 0,
  dom: { readonly bytesRead: number; readonly answersOmitted: number } = { bytesRead: 0, answersOmitted: 0 },
): MdsMetrics {
  const registry = createRegistry('mds');
  new Gauge({
    name: 'stripefs_mds_dom_read_bytes',
    help: 'Bytes of data-on-MDS records read from the database to answer opens, since start',
    registers: [registry],
    collect() {
      this.set(dom.bytesRead);
    },
  });
  new Gauge({
    name: 'stripefs_mds_dom_answers_omitted',
    help: 'Files an OpenMany answered without their data-on-MDS bytes (its reply full), since start',
    registers: [registry],
    collect() {
      this.set(dom.answersOmitted);
    },
  });
  return {
    registry,
    latency: new Histogram({
      name: 'stripefs_mds_request_seconds',
      help: 'MDS request latency by operation',
      labelNames: ['op'],
      buckets: LATENCY_BUCKETS_SECONDS,
      registers: [registry],
    }),
    errors: new Counter({
      name: 'stripefs_mds_errors_total',
      help: 'MDS requests failed, by code',
      labelNames: ['op', 'code'],
      registers: [registry],
    }),
    framedCalls: new Counter({
      name: 'stripefs_mds_framed_calls_total',
      help: 'Calls that came over the framed path beside gRPC, by method (each also counts in stripefs_mds_request_seconds)',
      labelNames: ['op'],
      registers: [registry],
    }),
    mapEpoch: new Gauge({
      name: 'stripefs_mds_map_epoch',
      help: 'Current cluster map epoch',
      registers: [registry],
    }),
    destroyQueued: new Gauge({
      name: 'stripefs_mds_destroy_queue',
      help: 'Files whose objects await destruction',
      registers: [registry],
    }),
    groupWrites: new Gauge({
      name: 'stripefs_mds_group_writes',
      help: 'Synced group-commit writes since start',
      registers: [registry],
      collect() {
        this.set(groupWrites());
      },
    }),
    detectorStalled: new Gauge({
      name: 'stripefs_mds_detector_stalled_seconds',
      help: 'Time since start the failure detector did not run (MDS stalled); not held against any OSS',
      registers: [registry],
    }),
  };
}

/** gRPC channels the MDS holds to OSSs (common/channels.ts). */
export function registerChannelGauge(registry: Registry, channels: { readonly size: number }): void {
  new Gauge({
    name: 'stripefs_mds_oss_channels',
    help: 'gRPC channels the MDS holds to OSSs: one per OSS address it has called',
    registers: [registry],
    collect() {
      this.set(channels.size);
    },
  });
}
