// Cluster state -> the wire ClusterMap, with per-OST location, addresses and
// usage. (A shared codec is planned as placement/wire.ts; this one also needs
// the MDS's OSS records, so it stays here.)
import type { MapOst, ClusterMap as WireMap } from '../../proto/index.js';
import type { ClusterState } from './state.js';

export interface OstUsage {
  usedBytes: number;
  totalBytes: number;
}

export function stateToWire(state: ClusterState, usage: ReadonlyMap<number, OstUsage> = new Map()): WireMap {
  const ossOfOst = new Map<number, ClusterState['oss'][number]>();
  for (const oss of state.oss) for (const ost of oss.osts) ossOfOst.set(ost.id, oss);
  const osts: MapOst[] = state.map.osts.map((ost) => {
    const oss = ossOfOst.get(ost.id);
    const used = usage.get(ost.id);
    return {
      id: ost.id,
      name: ost.name,
      weight: ost.weight,
      state: { up: ost.state.up, in: ost.state.in },
      host: oss?.host ?? ost.host ?? '',
      rack: oss?.rack ?? '',
      datacenter: oss?.datacenter ?? '',
      ossId: oss?.ossId ?? '',
      grpcAddress: oss?.grpcAddress ?? '',
      bulkAddress: oss?.bulkAddress ?? '',
      adminAddress: oss?.adminAddress ?? '',
      publicGrpcAddress: oss?.publicGrpcAddress ?? '',
      publicBulkAddress: oss?.publicBulkAddress ?? '',
      publicAdminAddress: oss?.publicAdminAddress ?? '',
      usedBytes: used?.usedBytes ?? 0,
      totalBytes: used?.totalBytes ?? 0,
    };
  });
  return {
    epoch: state.map.epoch,
    types: state.map.types,
    osts,
    buckets: state.map.buckets.map((b) => ({ id: b.id, name: b.name, type: b.type, children: b.children })),
    rootName: state.map.rootName,
    pools: state.pools.map((p) => ({
      id: p.id,
      name: p.name,
      pgCount: p.pgCount,
      minSize: p.minSize,
      rule:
        p.rule.kind === 'replicated'
          ? {
              kind: 'RULE_KIND_REPLICATED',
              size: p.rule.size,
              failureDomain: p.rule.failureDomain,
              root: p.rule.root ?? '',
            }
          : {
              kind: 'RULE_KIND_ERASURE',
              k: p.rule.k,
              m: p.rule.m,
              failureDomain: p.rule.failureDomain,
              root: p.rule.root ?? '',
            },
    })),
  };
}
