<<<<<<< HEAD
// Cluster state -> the wire ClusterMap: the shared codec (wire/map.ts) fed
// with each OST's OSS record (addresses, location) and usage.
import type { ClusterMap as WireMap } from '../../proto/index.js';
import { mapToWire } from '../../wire/index.js';
=======
// Cluster state -> the wire ClusterMap, with per-OST location, addresses and
// usage. (A codec shared with the OSS and the client is planned; this one also needs
// the MDS's OSS records, so it stays here.)
import type { MapOst, ClusterMap as WireMap } from '../../proto/index.js';
>>>>>>> 7370ee0 (test: one set of test helpers, waits on events instead of sleeps, and a suite that refuses a missing or stale build)
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
