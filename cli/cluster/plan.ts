// The local cluster as data: which processes, on which ports, with which
// configuration. Pure, so the launcher, docker-compose.yml's test and the
// docs all agree on one topology.
import { type ConfigKey, envNameOf } from '../../common/config.js';
import type { TlsFiles } from '../../common/tls-files.js';

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
  /** The admin keyring the MDS makes its first admin (default <dataDir>/admin.keyring; the MDS makes it). */
  keyring?: string;
  /** TLS on every gRPC and bulk port: the CA, certificate and key each MDS and OSS is given (common/tls-files.ts). */
  tls?: TlsFiles;
}

/** The tls.* settings of a process of the plan (none without TLS). */
function tlsEnv(options: ClusterPlanOptions): Partial<Record<ConfigKey, string>> {
  const tls = options.tls;
  return tls ? { 'tls.ca': tls.caFile, 'tls.cert': tls.certFile, 'tls.key': tls.keyFile } : {};
}

/** The admin keyring of a plan (the CLI and the launcher sign with it). */
export function keyringOf(options: ClusterPlanOptions): string {
  return options.keyring ?? `${options.dataDir}/admin.keyring`;
}

/**
 * The keyring the OSSs sign with: a service identity's (registration, heartbeats, refusal
 * reports; no namespace or identity administration), which the launcher makes before the MDS
 * starts and the MDS adds (auth.ossKeyring).
 */
export function ossKeyringOf(options: ClusterPlanOptions): string {
  return `${options.dataDir}/oss.keyring`;
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
      'auth.keyring': keyringOf(options),
      'auth.ossKeyring': ossKeyringOf(options),
      ...tlsEnv(options),
    }),
  };
  const plan: ClusterPlan = { options, controlPort: basePort + 2, mds, oss: [], ostCount: 0 };
  const hosts = Array.from({ length: ossCount }, (_, index) => ({
    host: `host${index}`,
    rack: `rack${Math.floor(index / hostsPerRack)}`,
  }));
  return addToPlan(plan, hosts);
}

/**
 * OSS `index` of the plan: ports N+3+3i.., OST ids i*ostsPerHost.. (configured, so ost0 is on
 * host0 whatever order the OSSs register in; docker-compose.yml gives the same ids).
 */
function plannedOss(options: ClusterPlanOptions, index: number, host: string, rack: string): PlannedProcess {
  const grpcPort = options.basePort + 3 + PORTS_PER_OSS * index;
  const ossDir = `${options.dataDir}/oss-${host}`;
  const firstOstId = index * options.ostsPerHost;
  return {
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
      'mds.address': `${options.bindHost}:${options.basePort}`,
      'oss.id': `oss-${host}`,
      'oss.host': host,
      'oss.rack': rack,
      'oss.datacenter': 'dc0',
      'oss.bindHost': options.bindHost,
      'oss.grpcPort': grpcPort,
      'oss.bulkPort': grpcPort + 1,
      'oss.adminPort': grpcPort + 2,
      'oss.dataDir': ossDir,
      'oss.osts': options.ostsPerHost,
      'oss.ostIds': Array.from({ length: options.ostsPerHost }, (_, i) => firstOstId + i).join(','),
      'oss.ostCapacityBytes': options.ostCapacityBytes,
      'auth.keyring': ossKeyringOf(options),
      ...tlsEnv(options),
    }),
  };
}

const NAME = /^[A-Za-z0-9_.-]{1,48}$/;

/** The plan with more OSSs after its last one (`stripefs cluster add`, and the default hosts). */
export function addToPlan(plan: ClusterPlan, hosts: { host: string; rack: string }[]): ClusterPlan {
  const ossCount = plan.oss.length + hosts.length;
  if (ossCount > LOCAL_OSS_COUNT_MAX)
    throw new RangeError(`at most ${LOCAL_OSS_COUNT_MAX} OSSs, asked for ${ossCount}`);
  const { basePort } = plan.options;
  const lastPort = basePort + 3 + PORTS_PER_OSS * ossCount - 1;
  if (!Number.isInteger(basePort) || basePort < 1024 || lastPort > 65535) {
    throw new RangeError(`--base-port must leave room for ports ${basePort}..${lastPort} within 1024..65535`);
  }
  const oss = [...plan.oss];
  for (const { host, rack } of hosts) {
    if (!NAME.test(host) || !NAME.test(rack))
      throw new RangeError(`host and rack names are 1-48 of [A-Za-z0-9_.-], got ${host} in ${rack}`);
    if (oss.some((p) => p.host === host)) throw new RangeError(`host ${host} is already in the cluster`);
    oss.push(plannedOss(plan.options, oss.length, host, rack));
  }
  return { ...plan, oss, ostCount: oss.length * plan.options.ostsPerHost };
}

/** What `stripefs cluster add` asks for: hosts in a rack (new or existing), or one host. */
export interface AddRequest {
  /** A rack name, or true for a new rack named after the last one. */
  rack?: string | true;
  /** A host name, or true for the next free hostN. */
  host?: string | true;
  /** Hosts to add with --rack (default: the plan's hosts per rack). */
  hosts?: number;
}

function nextFree(prefix: string, used: Set<string>): string {
  for (let n = 0; ; n++) if (!used.has(`${prefix}${n}`)) return `${prefix}${n}`;
}

/** The hosts `stripefs cluster add` starts: with --rack N new hosts there, with --host one. */
export function hostsToAdd(plan: ClusterPlan, request: AddRequest): { host: string; rack: string }[] {
  if (!request.rack && !request.host)
    throw new RangeError('name what to add: --rack [NAME] or --host [NAME]');
  const racks = new Set(plan.oss.map((p) => p.rack ?? ''));
  const rack = typeof request.rack === 'string' ? request.rack : nextFree('rack', racks);
  const usedHosts = new Set(plan.oss.map((p) => p.host ?? ''));
  if (request.host) {
    if (request.hosts !== undefined && request.hosts !== 1)
      throw new RangeError('--hosts goes with --rack, not --host');
    return [{ host: typeof request.host === 'string' ? request.host : nextFree('host', usedHosts), rack }];
  }
  const count = request.hosts ?? plan.options.hostsPerRack;
  if (!Number.isInteger(count) || count < 1)
    throw new RangeError(`--hosts must be a positive integer, got ${count}`);
  const hosts: { host: string; rack: string }[] = [];
  for (let i = 0; i < count; i++) {
    const host = nextFree('host', usedHosts);
    usedHosts.add(host);
    hosts.push({ host, rack });
  }
  return hosts;
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
