import { type Cluster, startCluster } from '../test/helpers/cluster.js';
// The benches' cluster: test/helpers/cluster.ts's (1 MDS + 6 OSSs, 2 OSTs
// each, hosts h0..h5 in racks r0..r2, 127.0.0.1, port 0, a fresh temporary
// folder, OSSs started side by side) with the shipped heartbeat. bench/run.ts
// starts one and hands it to the suites that only read and write (client,
// smallfiles); a suite run alone starts its own, and recovery always does (it
// kills hosts and runs with its own timers).

/** The heartbeat of every bench cluster unless a suite asks otherwise: the default, so the detector runs as shipped. */
export const BENCH_HEARTBEAT_INTERVAL_MS = 500;
/** An OST is down after this many heartbeat intervals without one (the shipped ratio: 1500 ms / 500 ms). */
export const HEARTBEATS_PER_TIMEOUT = 3;

export type BenchCluster = Cluster;

export function startBenchCluster(
  options: { heartbeatIntervalMs?: number; extraEnv?: Record<string, string> } = {},
): Promise<BenchCluster> {
  return startCluster({
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? BENCH_HEARTBEAT_INTERVAL_MS,
    heartbeatsPerTimeout: HEARTBEATS_PER_TIMEOUT,
    ...(options.extraEnv ? { extraEnv: options.extraEnv } : {}),
  });
}

/**
 * One cluster for several suites: the first get() starts it, later ones
 * return it, stop() stops it (a failed start is not thrown again by stop()).
 * `log` hears when it is up (with the seconds the start took) and stopped.
 */
export function sharedCluster(log: (event: 'up' | 'stopped', seconds: number) => void = () => {}): {
  get: () => Promise<BenchCluster>;
  stop: () => Promise<void>;
} {
  let starting: Promise<BenchCluster> | undefined;
  const since = (startedAt: number) => (performance.now() - startedAt) / 1000;
  return {
    get: () => {
      if (!starting) {
        const startedAt = performance.now();
        starting = startBenchCluster().then((cluster) => {
          log('up', since(startedAt));
          return cluster;
        });
      }
      return starting;
    },
    stop: async () => {
      // A start that failed was reported by the suite that asked; nothing to stop.
      const cluster = await starting?.catch(() => undefined);
      starting = undefined;
      if (!cluster) return;
      const stoppingAt = performance.now();
      await cluster.stop();
      log('stopped', since(stoppingAt));
    },
  };
}
