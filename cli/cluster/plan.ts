// The local cluster as data: which processes, on which ports, with which
// configuration. Pure, so the launcher, docker-compose.yml's test and the
// docs all agree on one topology.
import { type ConfigKey, envNameOf } from '../../common/config.js';

export interface ClusterPlanOptions {
  racks: number;
  hostsPerRack: number;
  ostsPerHost: number;
  basePort: number;
  dataDir: string;
  bindHost: string;
  defaultLayout?: string;
  ostCapacityBytes?: number;
  heartbeatIntervalMs?: number;
}

export const DEFAULT_PLAN_OPTIONS: ClusterPlanOptions = {
  racks: 3,
  hostsPerRack: 2,
  ostsPerHost: 2,
  basePort: 7070,
  dataDir: './data',
  bindHost: '127.0.0.1',
};

export interface PlannedProcess {
  name: string;
  kind: 'mds' | 'oss';
  script: string;
  host?: string;
  rack?: string;
  grpcPort: number;
  adminPort: number;
  bulkPort?: number;
  dataDir: string;
  env: Record<string, string>;
}

export interface ClusterPlan {
  options: ClusterPlanOptions;
  controlPort: number;
  mds: PlannedProcess;
  oss: PlannedProcess[];
  ostCount: number;
}

/** Ports per OSS: gRPC, bulk, admin. */
const PORTS_PER_OSS = 3;
/** Largest cluster the launcher starts on one machine. */
export const LOCAL_OSS_COUNT_MAX = 64;

function env(values: Partial<Record<ConfigKey, string | number>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) out[envNameOf(key as ConfigKey)] = String(value);
  }
  return out;
}

/**
 * Port layout from the base port N: MDS gRPC N, MDS admin N+1, launcher
 * control N+2, then each OSS i gets N+3+3i (gRPC), +1 (bulk), +2 (admin).
 */
export function planCluster(options: ClusterPlanOptions): ClusterPlan {
  const { racks, hostsPerRack, ostsPerHost, basePort, dataDir, bindHost } = options;
  const ossCount = racks * hostsPerRack;
  for (const [name, value] of Object.entries({ racks, hostsPerRack, ostsPerHost })) {
    if (!Number.isInteger(value) || value < 1)
      throw new RangeError(`--${name} must be a positive integer, got ${value}`);
  }
  if (ossCount > LOCAL_OSS_COUNT_MAX)
    throw new RangeError(`at most ${LOCAL_OSS_COUNT_MAX} OSSs, asked for ${ossCount}`);
  const lastPort = basePort + 3 + PORTS_PER_OSS * ossCount - 1;
  if (!Number.isInteger(basePort) || basePort < 1024 || lastPort > 65535) {
    throw new RangeError(`--base-port must leave room for ports ${basePort}..${lastPort} within 1024..65535`);
  }
  const mdsAddress = `${bindHost}:${basePort}`;
  const mds: PlannedProcess = {
    name: 'mds',
    kind: 'mds',
    script: 'dist/mds/main.js',
    grpcPort: basePort,
    adminPort: basePort + 1,
    dataDir: `${dataDir}/mds`,
    env: env({
      'mds.bindHost': bindHost,
      'mds.grpcPort': basePort,
      'mds.adminPort': basePort + 1,
      'mds.dataDir': `${dataDir}/mds`,
      'mds.defaultLayout': options.defaultLayout,
      'mds.heartbeatIntervalMs': options.heartbeatIntervalMs,
    }),
  };
  const oss: PlannedProcess[] = [];
  for (let index = 0; index < ossCount; index++) {
    const host = `host${index}`;
    const rack = `rack${Math.floor(index / hostsPerRack)}`;
    const grpcPort = basePort + 3 + PORTS_PER_OSS * index;
    const ossDir = `${dataDir}/oss-${host}`;
    oss.push({
      name: `oss-${host}`,
      kind: 'oss',
      script: 'dist/oss/main.js',
      host,
      rack,
      grpcPort,
      bulkPort: grpcPort + 1,
      adminPort: grpcPort + 2,
      dataDir: ossDir,
      env: env({
        'mds.address': mdsAddress,
        'oss.id': `oss-${host}`,
        'oss.host': host,
        'oss.rack': rack,
        'oss.datacenter': 'dc0',
        'oss.bindHost': bindHost,
        'oss.grpcPort': grpcPort,
        'oss.bulkPort': grpcPort + 1,
        'oss.adminPort': grpcPort + 2,
        'oss.dataDir': ossDir,
        'oss.osts': ostsPerHost,
        'oss.ostCapacityBytes': options.ostCapacityBytes,
      }),
    });
  }
  return { options, controlPort: basePort + 2, mds, oss, ostCount: ossCount * ostsPerHost };
}

/** OSS processes selected by host name, rack name, or all. */
export function selectOss(
  plan: ClusterPlan,
  target: { host?: string; rack?: string; all?: boolean },
): PlannedProcess[] {
  if (target.all) return plan.oss;
  const chosen = plan.oss.filter(
    (p) => (target.host && p.host === target.host) || (target.rack && p.rack === target.rack),
  );
  return chosen;
}
