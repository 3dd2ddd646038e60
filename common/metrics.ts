// Prometheus metrics: each server owns one registry (no global state, so
// several servers can run in one test process).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export { Counter, Gauge, Histogram, Registry };

/** Latency buckets in seconds, from 50 us to 10 s. */
export const LATENCY_BUCKETS_SECONDS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10,
];

export function createRegistry(server: 'mds' | 'oss' | 'client', withProcessMetrics = true): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ server });
  if (withProcessMetrics) collectDefaultMetrics({ register: registry, prefix: 'stripefs_' });
  return registry;
}
