// Cluster state -> the wire ClusterMap: the shared codec (wire/map.ts) fed
// with each OST's OSS record (addresses, location) and usage.
import type { ClusterMap as WireMap } from '../../proto/index.js';
import { mapToWire } from '../../wire/index.js';
import type { ClusterState } from './state.js';

export interface OstUsage {
  usedBytes: number;
  totalBytes: number;
}

export function stateToWire(state: ClusterState, usage: ReadonlyMap<number, OstUsage> = new Map()): WireMap {
  const ossOfOst = new Map<number, ClusterState['oss'][number]>();
  for (const oss of state.oss) for (const ost of oss.osts) ossOfOst.set(ost.id, oss);
  return mapToWire(state.map, state.pools, (ost) => ({ ...ossOfOst.get(ost.id), ...usage.get(ost.id) }));
}
