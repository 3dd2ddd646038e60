<<<<<<< HEAD
// The cluster map as the client uses it: the placement map and pools plus each
// OST's addresses on the client's network, decoded by the shared codec (wire/map.ts).
export {
  CLIENT_NETWORKS,
  type ClientNetwork,
  type MapView,
  mapViewFromWire,
  type OstAddresses,
  type OstEndpoint,
  ostAddressesOf,
} from '../wire/index.js';
=======
// The cluster map as the client uses it: the placement engine's ClusterMap
// and pools, plus each OST's addresses. Converted from the wire form here
// until a shared wire codec exists (then this becomes a thin wrapper).
import type { ClusterMap, Pool, RuleSpec } from '../placement/index.js';
import type {
  ClusterMap__Output as WireMap,
  MapOst__Output as WireOst,
  Rule__Output as WireRule,
} from '../proto/index.js';

/**
 * Which addresses a client uses: `public` the ones an OSS announces for clients outside the
 * cluster network (its `oss.publicHost`; docker compose: the ports published on the host),
 * falling back to the cluster addresses when it announces none; `cluster` the addresses the MDS
 * and the OSSs use among themselves (a client inside the compose network).
 */
export type ClientNetwork = 'public' | 'cluster';
export const CLIENT_NETWORKS: readonly ClientNetwork[] = ['public', 'cluster'];

export interface OstAddresses {
  grpcAddress: string;
  bulkAddress: string;
  adminAddress: string;
}

/** The addresses of an OST's OSS for a client on `network`. */
export function ostAddressesOf(ost: WireOst, network: ClientNetwork = 'public'): OstAddresses {
  if (network === 'public' && ost.publicGrpcAddress)
    return {
      grpcAddress: ost.publicGrpcAddress,
      bulkAddress: ost.publicBulkAddress,
      adminAddress: ost.publicAdminAddress,
    };
  return { grpcAddress: ost.grpcAddress, bulkAddress: ost.bulkAddress, adminAddress: ost.adminAddress };
}

export interface OstEndpoint {
  id: number;
  up: boolean;
  in: boolean;
  grpcAddress: string;
  bulkAddress: string;
  host: string;
}

export interface MapView {
  epoch: number;
  map: ClusterMap;
  pools: Map<number, Pool>;
  /** Per pool: the fewest copies (replicated) that still accept writes (the MDS's min_size). */
  poolMinSizes: Map<number, number>;
  osts: Map<number, OstEndpoint>;
}

function ruleFromWire(rule: WireRule | null, poolName: string): RuleSpec {
  if (!rule) throw new Error(`pool ${poolName} has no rule`);
  const root = rule.root ? { root: rule.root } : {};
  if (rule.kind === 'RULE_KIND_REPLICATED')
    return { kind: 'replicated', size: rule.size, failureDomain: rule.failureDomain, ...root };
  if (rule.kind === 'RULE_KIND_ERASURE')
    return { kind: 'erasure', k: rule.k, m: rule.m, failureDomain: rule.failureDomain, ...root };
  throw new Error(`pool ${poolName} has rule kind ${rule.kind}`);
}

export function mapViewFromWire(wire: WireMap, network: ClientNetwork = 'public'): MapView {
  const map: ClusterMap = {
    epoch: wire.epoch,
    types: wire.types,
    osts: wire.osts.map((o) => ({
      id: o.id,
      name: o.name,
      weight: o.weight,
      state: { up: o.state?.up ?? false, in: o.state?.in ?? false },
      ...(o.host ? { host: o.host } : {}),
    })),
    buckets: wire.buckets.map((b) => ({ id: b.id, name: b.name, type: b.type, children: b.children })),
    rootName: wire.rootName,
  };
  const pools = new Map<number, Pool>();
  const poolMinSizes = new Map<number, number>();
  for (const p of wire.pools) {
    pools.set(p.id, { id: p.id, name: p.name, pgCount: p.pgCount, rule: ruleFromWire(p.rule, p.name) });
    poolMinSizes.set(p.id, p.minSize);
  }
  const osts = new Map<number, OstEndpoint>();
  for (const o of wire.osts) {
    const { grpcAddress, bulkAddress } = ostAddressesOf(o, network);
    osts.set(o.id, {
      id: o.id,
      up: o.state?.up ?? false,
      in: o.state?.in ?? false,
      grpcAddress,
      bulkAddress,
      host: o.host,
    });
  }
  return { epoch: wire.epoch, map, pools, poolMinSizes, osts };
}
>>>>>>> 7370ee0 (test: one set of test helpers, waits on events instead of sleeps, and a suite that refuses a missing or stale build)
