// Each OST's state as the map says, for Prometheus and Grafana (the
// dashboard reads the map itself): stripefs_ost_up and stripefs_ost_in, 1 or
// 0, labelled with the OST and its host, so a panel can colour the
// failure-domain tree and an alert can name the host.
import { Gauge, type Registry } from '../../common/index.js';
import type { ClusterService } from '../cluster/service.js';

export function registerOstStateMetrics(registry: Registry, cluster: ClusterService): void {
  for (const [name, help, pick] of [
    ['stripefs_ost_up', '1 while the map has the OST up (it heartbeats)', (s: { up: boolean }) => s.up],
    ['stripefs_ost_in', '1 while the map has the OST in (it holds data)', (s: { in: boolean }) => s.in],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ['ost', 'host'],
      registers: [registry],
      collect() {
        this.reset();
        for (const ost of cluster.state.map.osts)
          this.set({ ost: ost.name, host: ost.host ?? '' }, pick(ost.state) ? 1 : 0);
      },
    });
  }
}
