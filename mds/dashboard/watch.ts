// What the MDS watches for the dashboard, job statistics and `stripefs top`,
// wired in one place: heartbeats feed the OST traffic and the job reports,
// the gRPC service's calls feed the jobs and clients, and the admin server
// gets the job routes, their metrics and the dashboard, whose sampler runs
// while the admin server does.
import type { FastifyInstance } from 'fastify';
import type { Clock, Config, Logger, Registry } from '../../common/index.js';
import type { HeartbeatRequest__Output } from '../../proto/index.js';
import type { ClusterService } from '../cluster/service.js';
import { JobStats, observeCalls, registerJobAdmin, registerJobMetrics } from '../jobs/index.js';
import { registerOstStateMetrics } from './ost-metrics.js';
import { registerDashboard } from './routes.js';
import { DashboardSampler } from './sampler.js';
import { OstTraffic } from './traffic.js';

export class ClusterWatch {
  readonly jobs: JobStats;
  readonly traffic: OstTraffic;

  constructor(
    private readonly config: Config,
    private readonly clock: Clock,
  ) {
    this.jobs = new JobStats({ jobsMax: config['mds.jobsMax'], clientsMax: config['mds.clientsMax'] }, clock);
    this.traffic = new OstTraffic(() => clock.monotonicMs());
  }

  /** A heartbeat handler that also counts the heartbeat's traffic and job report. */
  alongside(onHeartbeat: (req: HeartbeatRequest__Output) => void): (req: HeartbeatRequest__Output) => void {
    return (req) => {
      onHeartbeat(req);
      this.traffic.record(req);
      this.jobs.mergeReport(req);
    };
  }

  /** The MDS service's handlers, each call counted for its job and client. */
  observe<H extends object>(handlers: H): H {
    return observeCalls(handlers, this.jobs);
  }

  /** Job routes and metrics, and the dashboard, whose sampler runs from listen to close. */
  serve(admin: FastifyInstance, registry: Registry, cluster: ClusterService, logger: Logger): void {
    registerJobAdmin(admin, this.jobs);
    registerJobMetrics(registry, this.jobs);
    registerOstStateMetrics(registry, cluster);
    const sampleMs = this.config['mds.dashboardSampleMs'];
    const sampler = new DashboardSampler(
      {
        app: admin,
        traffic: this.traffic,
        jobs: this.jobs,
        clock: this.clock,
        onMapChange: (listener) => cluster.subscribe(listener, () => undefined),
        log: (err) => logger.warn({ err: (err as Error).message }, 'dashboard sample failed'),
      },
      { sampleMs, historySamples: this.config['mds.dashboardHistorySamples'] },
    );
    registerDashboard(admin, sampler, sampleMs);
    admin.addHook('onReady', async () => sampler.start());
    admin.addHook('onClose', async () => sampler.stop());
  }
}
