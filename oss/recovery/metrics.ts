// Prometheus gauges of recovery, repair and scrub on one OSS (read at scrape time).
import { Gauge, type Registry } from '../../common/metrics.js';
import type { Recoverer } from './recover-pg.js';
import type { Scrubber } from './scrub.js';

export function registerRecoveryMetrics(registry: Registry, recoverer: Recoverer, scrubber: Scrubber): void {
  const gauge = (name: string, help: string, value: () => number): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value());
      },
    });
  };
  gauge(
    'stripefs_oss_recovery_bytes',
    'Bytes copied or rebuilt by recovery since start',
    () => recoverer.counters.bytesCopied,
  );
  gauge(
    'stripefs_oss_recovery_objects',
    'Objects copied or rebuilt by recovery since start',
    () => recoverer.counters.objectsCopied,
  );
  gauge(
    'stripefs_oss_repaired_objects',
    'Objects repaired (rewritten from a good copy) since start',
    () => recoverer.objectsRepaired,
  );
  gauge('stripefs_oss_scrub_objects', 'Objects scrubbed since start', () => scrubber.totals.objectsScanned);
  gauge(
    'stripefs_oss_scrub_errors',
    'Bad objects found by scrub since start',
    () => scrubber.totals.errorsFound,
  );
}
