import { PlacementError } from './errors.js';
import { checkStructure } from './map-validate.js';
import type { BucketItem, ClusterMap, OstItem } from './types.js';

export const DEFAULT_TYPES = ['ost', 'host', 'rack', 'datacenter', 'root'];
export const DEFAULT_ROOT_NAME = 'default';

export interface TopologySpec {
  datacenters?: number;
  racks: number; // per datacenter when datacenters is given
  hostsPerRack: number;
  ostsPerHost: number;
  ostWeight?: number;
}

function checkCount(value: number | undefined, field: string, min: number): void {
  if (value !== undefined && (!Number.isInteger(value) || value < min || value > 4096)) {
    throw new PlacementError(
      'PLACEMENT_INVALID_MAP',
      `topology ${field}: expected an integer in [${min}, 4096]`,
    );
  }
}

/**
 * A regular tree: root > [dc] > rack > host > ost. Host names are unique across racks
 * (rack0 holds host0, host1; rack1 holds host2, host3 ...); OST ids run 0..N-1.
 */
export function buildTopology(spec: TopologySpec): ClusterMap {
  checkCount(spec.datacenters, 'datacenters', 0);
  checkCount(spec.racks, 'racks', 1);
  checkCount(spec.hostsPerRack, 'hostsPerRack', 1);
  checkCount(spec.ostsPerHost, 'ostsPerHost', 1);
  const weight = spec.ostWeight ?? 1;
  const osts: OstItem[] = [];
  const buckets: BucketItem[] = [];
  let nextBucketId = -1;
  const addBucket = (name: string, type: string): BucketItem => {
    const b: BucketItem = { id: nextBucketId--, name, type, children: [] };
    buckets.push(b);
    return b;
  };
  const root = addBucket(DEFAULT_ROOT_NAME, 'root');
  const dcCount = spec.datacenters ?? 0;
  const parents = dcCount === 0 ? [root] : [];
  for (let d = 0; d < dcCount; d++) {
    const dc = addBucket(`dc${d}`, 'datacenter');
    root.children.push(dc.id);
    parents.push(dc);
  }
  let rackNo = 0;
  let hostNo = 0;
  for (const parent of parents) {
    for (let r = 0; r < spec.racks; r++) {
      const rack = addBucket(`rack${rackNo++}`, 'rack');
      parent.children.push(rack.id);
      for (let h = 0; h < spec.hostsPerRack; h++) {
        const host = addBucket(`host${hostNo++}`, 'host');
        rack.children.push(host.id);
        for (let o = 0; o < spec.ostsPerHost; o++) {
          const id = osts.length;
          osts.push({ id, name: `ost${id}`, weight, state: { up: true, in: true }, host: host.name });
          host.children.push(id);
        }
      }
    }
  }
  const map: ClusterMap = { epoch: 1, types: [...DEFAULT_TYPES], osts, buckets, rootName: root.name };
  checkStructure(map);
  return map;
}

const TOPOLOGY_KEYS: Record<string, keyof TopologySpec> = {
  dc: 'datacenters',
  datacenter: 'datacenters',
  rack: 'racks',
  host: 'hostsPerRack',
  ost: 'ostsPerHost',
  weight: 'ostWeight',
};

/** 'dc=1,rack=3,host=4,ost=2': host = hosts per rack, ost = OSTs per host, optional weight=W. */
export function parseTopologySpec(text: string): TopologySpec {
  const spec: Partial<TopologySpec> = {};
  for (const part of text.split(',')) {
    const [key, value, extra] = part.trim().split('=');
    const field = key === undefined ? undefined : TOPOLOGY_KEYS[key];
    const num = Number(value);
    if (!field || value === undefined || extra !== undefined || value === '' || !Number.isFinite(num)) {
      throw new PlacementError(
        'PLACEMENT_INVALID_MAP',
        `topology '${text}': expected dc=N,rack=N,host=N,ost=N[,weight=W], bad part '${part}'`,
      );
    }
    spec[field] = num;
  }
  if (spec.racks === undefined || spec.hostsPerRack === undefined || spec.ostsPerHost === undefined) {
    throw new PlacementError('PLACEMENT_INVALID_MAP', `topology '${text}': rack, host and ost are required`);
  }
  return spec as TopologySpec;
}
