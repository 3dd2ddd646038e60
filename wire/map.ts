// The cluster map <-> the proto ClusterMap: the placement map, the pools with
// their min_size, and per OST where its OSS answers (and its usage). The MDS
// encodes; the client, the OSS and the CLI decode into one MapView.
import type { ClusterMap, OstItem, Pool } from '../placement/index.js';
import type {
  MapOst,
  ClusterMap as WireMap,
  ClusterMap__Output as WireMapOut,
  MapOst__Output as WireOstOut,
} from '../proto/index.js';
import { ruleFromWire, ruleToWire } from './rule.js';

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
export function ostAddressesOf(ost: WireOstOut, network: ClientNetwork = 'public'): OstAddresses {
  if (network === 'public' && ost.publicGrpcAddress)
    return {
      grpcAddress: ost.publicGrpcAddress,
      bulkAddress: ost.publicBulkAddress,
      adminAddress: ost.publicAdminAddress,
    };
  return { grpcAddress: ost.grpcAddress, bulkAddress: ost.bulkAddress, adminAddress: ost.adminAddress };
}

/** Where an OST's OSS answers, as a client or an OSS needs it. */
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

export interface PoolWithMinSize extends Pool {
  minSize: number;
}

/** What the MDS knows of an OST beyond the placement map; absent fields are sent empty. */
export interface OstDetails {
  ossId?: string | undefined;
  host?: string | undefined;
  rack?: string | undefined;
  datacenter?: string | undefined;
  grpcAddress?: string | undefined;
  bulkAddress?: string | undefined;
  adminAddress?: string | undefined;
  publicGrpcAddress?: string | undefined;
  publicBulkAddress?: string | undefined;
  publicAdminAddress?: string | undefined;
  usedBytes?: number | undefined;
  totalBytes?: number | undefined;
}

function ostToWire(ost: OstItem, d: OstDetails): MapOst {
  return {
    id: ost.id,
    name: ost.name,
    weight: ost.weight,
    state: { up: ost.state.up, in: ost.state.in },
    host: d.host ?? ost.host ?? '',
    rack: d.rack ?? '',
    datacenter: d.datacenter ?? '',
    ossId: d.ossId ?? '',
    grpcAddress: d.grpcAddress ?? '',
    bulkAddress: d.bulkAddress ?? '',
    adminAddress: d.adminAddress ?? '',
    publicGrpcAddress: d.publicGrpcAddress ?? '',
    publicBulkAddress: d.publicBulkAddress ?? '',
    publicAdminAddress: d.publicAdminAddress ?? '',
    usedBytes: d.usedBytes ?? 0,
    totalBytes: d.totalBytes ?? 0,
  };
}

export function mapToWire(
  map: ClusterMap,
  pools: readonly PoolWithMinSize[],
  detailsOf: (ost: OstItem) => OstDetails = () => ({}),
): WireMap {
  return {
    epoch: map.epoch,
    types: map.types,
    osts: map.osts.map((ost) => ostToWire(ost, detailsOf(ost))),
    buckets: map.buckets.map((b) => ({ id: b.id, name: b.name, type: b.type, children: b.children })),
    rootName: map.rootName,
    pools: pools.map((p) => ({
      id: p.id,
      name: p.name,
      pgCount: p.pgCount,
      minSize: p.minSize,
      rule: ruleToWire(p.rule),
    })),
  };
}

/** Endpoints on `network` (see ClientNetwork). Throws REQ_INVALID when a pool's rule is missing or malformed. */
export function mapViewFromWire(wire: WireMapOut, network: ClientNetwork = 'public'): MapView {
  const map: ClusterMap = {
    epoch: Number(wire.epoch),
    types: [...wire.types],
    osts: wire.osts.map((o) => ({
      id: o.id,
      name: o.name,
      weight: o.weight,
      state: { up: o.state?.up ?? false, in: o.state?.in ?? false },
      ...(o.host ? { host: o.host } : {}),
    })),
    buckets: wire.buckets.map((b) => ({ id: b.id, name: b.name, type: b.type, children: [...b.children] })),
    rootName: wire.rootName,
  };
  const pools = new Map<number, Pool>();
  const poolMinSizes = new Map<number, number>();
  for (const p of wire.pools) {
    const rule = ruleFromWire(p.rule, `pool ${p.name}'s rule`);
    pools.set(p.id, { id: p.id, name: p.name, pgCount: p.pgCount, rule });
    poolMinSizes.set(p.id, p.minSize);
  }
  const osts = new Map<number, OstEndpoint>();
  for (const o of wire.osts) {
    const state = { up: o.state?.up ?? false, in: o.state?.in ?? false };
    const { grpcAddress, bulkAddress } = ostAddressesOf(o, network);
    osts.set(o.id, { id: o.id, ...state, grpcAddress, bulkAddress, host: o.host });
  }
  return { epoch: map.epoch, map, pools, poolMinSizes, osts };
}
