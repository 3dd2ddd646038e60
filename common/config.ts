// One configuration schema for every stripefs process. Values come from, in
// rising priority: the defaults below, a YAML or JSON file, STRIPEFS_*
// environment variables, and explicit overrides (command-line flags). Every
// value is validated at start; an error names the key, its environment
// variable and the expected form.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { StripeError } from './errors.js';

type Kind =
  | { type: 'string'; nonEmpty?: boolean }
  | { type: 'int'; min: number; max: number }
  | { type: 'bool' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'hostport' };

interface KeySpec {
  readonly kind: Kind;
  readonly default: string | number | boolean;
  readonly env?: string;
  readonly doc: string;
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
const PORT = { type: 'int', min: 0, max: 65535 } as const;
const MS = { type: 'int', min: 1, max: 86_400_000 } as const;

/** The schema: dotted key -> kind, default, documentation. */
export const CONFIG_SCHEMA = {
  'log.level': { kind: { type: 'enum', values: LOG_LEVELS }, default: 'info', doc: 'Log level' },
  'mds.address': {
    kind: { type: 'hostport' },
    default: '127.0.0.1:7070',
    env: 'STRIPEFS_MDS',
    doc: 'Where clients and OSSs reach the MDS (host:port)',
  },
  'mds.bindHost': {
    kind: { type: 'string', nonEmpty: true },
    default: '127.0.0.1',
    doc: 'MDS listen address',
  },
  'mds.grpcPort': { kind: PORT, default: 7070, doc: 'MDS gRPC port (0: any free port)' },
  'mds.adminPort': { kind: PORT, default: 7071, doc: 'MDS admin HTTP port (0: any free port)' },
  'mds.frames': {
    kind: { type: 'bool' },
    default: true,
    doc: 'Serve OpenMany and StatMany as frames on TCP beside gRPC (mds.framePort; clients learn the port from GetMap and fall back to gRPC when they cannot reach it)',
  },
  'mds.framePort': {
    kind: PORT,
    default: 0,
    doc: 'MDS framed-call port (0: any free port, told to clients by GetMap)',
  },
  'mds.dataDir': {
    kind: { type: 'string', nonEmpty: true },
    default: './data/mds',
    doc: 'MDS database folder',
  },
  'mds.heartbeatIntervalMs': { kind: MS, default: 500, doc: 'How often OSSs heartbeat' },
  'mds.heartbeatTimeoutMs': {
    kind: MS,
    default: 1500,
    doc: 'Missed-heartbeat time after which an OST is down',
  },
  'mds.outGraceMs': { kind: MS, default: 60_000, doc: 'Time down after which an OST is marked out' },
  'mds.pgCount': {
    kind: { type: 'int', min: 1, max: 65536 },
    default: 128,
    doc: 'Placement groups per pool',
  },
  'mds.defaultLayout': {
    kind: { type: 'string', nonEmpty: true },
    default: 'raid0:1',
    doc: "Root directory's default layout in the layout text form (README, Layouts): raid0[:COUNT][:SIZE], replicated[:N][:DOMAIN][:COUNT][:SIZE] or ec:K+M[:DOMAIN][:SIZE]",
  },
  'mds.recoveryMaxBytesPerSec': {
    kind: { type: 'int', min: 0, max: Number.MAX_SAFE_INTEGER },
    default: 128 * 1024 * 1024,
    doc: 'Cluster-wide recovery and rebalance rate in bytes/s (0: unthrottled); PUT /api/recovery changes it at run time',
  },
  'mds.recoveryMaxActivePgs': {
    kind: { type: 'int', min: 1, max: 4096 },
    default: 8,
    doc: "PGs recovering or backfilling at once, cluster-wide (as Ceph's osd_max_backfills); PUT /api/recovery changes it",
  },
  'mds.slowOstFactor': {
    kind: { type: 'int', min: 1, max: 1000 },
    default: 3,
    doc: 'An OST is flagged slow when its recent p50 latency is above this many times the cluster median',
  },
  'mds.slowOstLatencyMsMin': {
    kind: MS,
    default: 10,
    doc: 'An OST is flagged slow only when its recent p50 latency is also above this many ms',
  },
  'mds.missedWritesPerPgMax': {
    kind: { type: 'int', min: 1, max: 1_000_000 },
    default: 1_000,
    doc: "Copies of one OST in one PG that missed writes (skipped while it was down) the MDS records one by one; past it that OST's copy of the PG is backfilled whole, and the OST refuses reads of the PG until then",
  },
  'mds.scrubIntervalMs': {
    kind: { type: 'int', min: 0, max: 2_147_483_647 }, // a timer's longest interval (24.8 days)
    default: 604_800_000,
    doc: 'A PG is deep-scrubbed in the background once its last deep scrub (kept across restarts) is this old (0: off; `stripefs scrub` starts one now)',
  },
  'mds.scrubMaxBytesPerSec': {
    kind: { type: 'int', min: 0, max: Number.MAX_SAFE_INTEGER },
    default: 64 * 1024 * 1024,
    doc: 'Cluster-wide deep-scrub read rate in bytes/s, shared by the PGs scrubbing at once (0: unthrottled)',
  },
  'mds.scrubMaxActivePgs': {
    kind: { type: 'int', min: 1, max: 4096 },
    default: 2,
    doc: 'PGs deep-scrubbed at once, cluster-wide',
  },
  'mds.newOstWeightSteps': {
    kind: { type: 'int', min: 0, max: 1000 },
    default: 0,
    doc: 'Phase a newly added OST in: its weight rises to its capacity weight in this many steps, each once the cluster is clean (0 or 1: at once)',
  },
  'mds.jobsMax': {
    kind: { type: 'int', min: 1, max: 1_000_000 },
    default: 1024,
    doc: 'Jobs the MDS keeps statistics of (job ids, as Lustre jobstats); a new job beyond them drops the one idle longest (counted in stripefs_mds_jobs_dropped_total)',
  },
  'mds.clientsMax': {
    kind: { type: 'int', min: 1, max: 1_000_000 },
    default: 4096,
    doc: 'Client sessions the MDS keeps in its table of clients; a new one beyond them drops the one idle longest',
  },
  'mds.dashboardSampleMs': {
    kind: { type: 'int', min: 100, max: 3_600_000 },
    default: 1000,
    doc: 'How often the MDS samples the cluster for the dashboard and `stripefs top` (rates, PG states over time); also at once when the map changes',
  },
  'mds.dashboardHistorySamples': {
    kind: { type: 'int', min: 2, max: 100_000 },
    default: 600,
    doc: 'Samples the dashboard keeps for its charts (600 at 1 s: ten minutes)',
  },
  'oss.jobsMax': {
    kind: { type: 'int', min: 1, max: 1_000_000 },
    default: 1024,
    doc: 'Client session and job pairs an OSS counts data requests of; a new pair beyond them drops the one idle longest',
  },
  'oss.scrubBytesPerSec': {
    kind: { type: 'int', min: 1, max: Number.MAX_SAFE_INTEGER },
    default: 32 * 1024 * 1024,
    doc: 'Rate at which scrub re-reads an OST (bytes/s)',
  },
  'oss.scrubIntervalMs': {
    kind: MS,
    default: 86_400_000,
    doc: 'Time between background scrubs of each OST (POST /api/scrub on the OSS starts one now)',
  },
  'oss.id': { kind: { type: 'string' }, default: '', doc: 'Stable OSS id (required to start an OSS)' },
  'oss.host': { kind: { type: 'string' }, default: '', doc: 'Host name in the failure-domain hierarchy' },
  'oss.rack': {
    kind: { type: 'string' },
    default: 'rack0',
    doc: 'Rack name in the failure-domain hierarchy',
  },
  'oss.datacenter': { kind: { type: 'string' }, default: 'dc0', doc: 'Datacenter name' },
  'oss.bindHost': {
    kind: { type: 'string', nonEmpty: true },
    default: '127.0.0.1',
    doc: 'OSS listen address',
  },
  'oss.advertiseHost': {
    kind: { type: 'string' },
    default: '',
    doc: 'Host the MDS and the other OSSs reach this OSS at (its cluster address; default: the bind address)',
  },
  'oss.publicHost': {
    kind: { type: 'string' },
    default: '',
    doc: 'Host announced to clients outside the cluster network, with the same ports (docker compose: where the host publishes them); empty: clients use the advertised address',
  },
  'oss.ostIds': {
    kind: { type: 'string' },
    default: '',
    doc: "Comma-separated ids for this OSS's OSTs, one per OST (e.g. 0,1): the same ids whatever order the OSSs register in; empty: the MDS gives the next free id at first registration",
  },
  'client.network': {
    kind: { type: 'enum', values: ['public', 'cluster'] },
    default: 'public',
    doc: 'Which OSS addresses the CLI uses: public (those announced for clients outside the cluster network, else the only ones) or cluster (inside it, e.g. docker compose run cli)',
  },
  'client.diskCacheDir': {
    kind: { type: 'string' },
    default: '',
    doc: "The client's local-disk cache tier: a folder on this host keeping blocks read-only opens fetched, checksummed, across restarts (close-to-open like the memory cache); empty: none",
  },
  'client.diskCacheBytes': {
    kind: { type: 'int', min: 0, max: Number.MAX_SAFE_INTEGER },
    default: 10 * 1024 * 1024 * 1024,
    doc: 'Bytes the disk cache folder may hold (its files, headers included); the least recently used blocks go first',
  },
  'auth.keyring': {
    kind: { type: 'string' },
    default: '',
    env: 'STRIPEFS_KEYRING',
    doc: "The keyring file whose identity signs this process's calls (the CLI, the library and OSSs); empty: ./data/admin.keyring when it exists. The MDS makes it its first admin on a new database (creating it when missing)",
  },
  'tls.ca': {
    kind: { type: 'string' },
    default: '',
    doc: "PEM file of the CA that signed the cluster's certificate: this process speaks TLS to every MDS and OSS (gRPC and the bulk path) and checks them against it. Empty: ./data/tls/ca.pem when it exists (the CLI and the library; stripefs cluster up --tls writes it), else no TLS",
  },
  'tls.cert': {
    kind: { type: 'string' },
    default: '',
    doc: 'PEM certificate a server (MDS, OSS) presents on its gRPC, bulk and admin HTTP ports, made for tls.serverName (with tls.key and tls.ca); its gRPC and bulk ports then take TLS only, its admin port HTTPS (a plain request there is TLS_REQUIRED)',
  },
  'tls.key': { kind: { type: 'string' }, default: '', doc: 'PEM private key of tls.cert' },
  'tls.metricsPlain': {
    kind: { type: 'bool' },
    default: false,
    doc: 'With TLS, serve GET /metrics of the MDS and OSS admin ports over plain HTTP as well (same port), for a Prometheus without the CA; every other admin request still needs HTTPS',
  },
  'tls.serverName': {
    kind: { type: 'string', nonEmpty: true },
    default: 'stripefs',
    doc: "The name clients check every server's certificate under (one certificate for every host, whatever address it is reached at)",
  },
  'auth.ossKeyring': {
    kind: { type: 'string' },
    default: '',
    doc: 'The MDS makes the identity of this keyring (created when missing, named oss) a service identity when it has none of that name: OSSs sign with it (their auth.keyring) and may register, heartbeat and report refusals, not change the namespace or identities. Empty: OSSs need an admin or service keyring made otherwise',
  },
  'auth.metricsOpen': {
    kind: { type: 'bool' },
    default: false,
    doc: 'Serve GET /metrics on the MDS and OSS admin ports without a key (for a Prometheus without one); every other admin HTTP route, /healthz aside, needs an admin identity whatever this says',
  },
  'mds.auth': {
    kind: { type: 'bool' },
    default: true,
    doc: 'Require signed calls and check caps on every MDS call (false: anyone who reaches the port may do anything)',
  },
  'mds.auditFileBytesMax': {
    kind: { type: 'int', min: 4096, max: 1024 * 1024 * 1024 },
    default: 16 * 1024 * 1024,
    doc: 'Size at which the audit log (<mds.dataDir>/audit/audit.log) is rotated',
  },
  'mds.auditFiles': {
    kind: { type: 'int', min: 1, max: 100 },
    default: 4,
    doc: 'Rotated audit files kept beside the current one (audit.log.1 is the newest)',
  },
  'mds.auditDeniedPerSec': {
    kind: { type: 'int', min: 1, max: 100_000 },
    default: 10,
    doc: 'Refused calls audited per client address per second (bursts of 10 times that); the rest are counted in the next line',
  },
  'mds.ticketTtlMs': {
    kind: MS,
    default: 600_000,
    doc: 'How long a data-path ticket handed out at open, create or stat lets a client read or write that file at the OSSs',
  },
  'mds.ticketKeyRotateMs': {
    kind: MS,
    default: 3_600_000,
    doc: 'How often the MDS makes a new key for signing tickets (the old one verifies until its tickets expire)',
  },
  'mds.authWindowMs': {
    kind: MS,
    default: 300_000,
    doc: "How far a signed call's time may be from the MDS clock (both ways), and how long an idle client session is remembered",
  },
  'oss.grpcPort': { kind: PORT, default: 0, doc: 'OSS gRPC port (0: any free port)' },
  'oss.bulkPort': { kind: PORT, default: 0, doc: 'OSS bulk data port (0: any free port)' },
  'oss.adminPort': { kind: PORT, default: 0, doc: 'OSS admin HTTP port (0: any free port)' },
  'oss.dataDir': {
    kind: { type: 'string', nonEmpty: true },
    default: './data/oss',
    doc: 'OSS folder holding its OSTs',
  },
  'oss.osts': { kind: { type: 'int', min: 1, max: 64 }, default: 2, doc: 'OSTs this OSS hosts' },
  'oss.ostCapacityBytes': {
    kind: { type: 'int', min: 0, max: Number.MAX_SAFE_INTEGER },
    default: 0,
    doc: 'Capacity (quota) of each OST in bytes; 0: the free space of the disk',
  },
  'oss.fsync': { kind: { type: 'bool' }, default: true, doc: 'fsync on flush (false only for experiments)' },
  'oss.directIo': {
    kind: { type: 'bool' },
    default: true,
    doc: 'Write whole aligned 4 KiB blocks and read whole spans with O_DIRECT, bypassing the page cache, where the file system supports it (checked at start)',
  },
  'oss.smallObjectBytes': {
    kind: { type: 'int', min: 0, max: 1024 * 1024 },
    default: 128 * 1024,
    doc: 'Objects of at most this many bytes are kept as records in a log of large segment files per OST (one fdatasync and one index batch shared by the writes that arrive together, dead space compacted in the background) rather than a file each; one that grows past it moves to a file. 0: every object is a file (objects already in the log stay readable)',
  },
  'oss.bulkUserBuffer': {
    kind: { type: 'bool' },
    default: true,
    doc: "Read each bulk connection into one reused buffer by adopting the accepted socket's handle (Node internals, checked at start: the plain path, a fresh buffer per read, when they are not as expected)",
  },
  'oss.readSpanBytes': {
    kind: { type: 'int', min: 1024 * 1024, max: 16 * 1024 * 1024 },
    default: 2 * 1024 * 1024,
    doc: 'Bytes a read steps through an object at a time (one disk read, one socket writev each); a multiple of 1 MiB',
  },
  'oss.faultSeed': {
    kind: { type: 'int', min: 0, max: 4_294_967_295 },
    default: 1,
    doc: 'Seed of the per-OST fault-knob generators (OST i starts from seed + i; a knob may set its own)',
  },
  'oss.faults': {
    kind: { type: 'string' },
    default: '',
    doc: 'Fault knobs every OST starts with, as the JSON object PUT /api/osts/:id/faults takes (e.g. {"writeFailRate":0.1}); empty: none',
  },
  'mount.attrTimeoutMs': {
    kind: { type: 'int', min: 0, max: 3_600_000 },
    default: 1000,
    doc: "stripefs mount: how long the kernel (and the mount's own cache, filled by listings) keeps an entry's attributes; 0: ask every time. Other clients' changes show after at most this long",
  },
  'mount.entryTimeoutMs': {
    kind: { type: 'int', min: 0, max: 3_600_000 },
    default: 1000,
    doc: 'stripefs mount: how long the kernel keeps a name lookup (and a missing name); 0: ask every time',
  },
  'mount.opTimeoutMs': {
    kind: MS,
    default: 120_000,
    doc: 'stripefs mount: a file system call not answered in this long fails with ETIMEDOUT (the cluster is gone); a shell never hangs for ever',
  },
  'mount.maxWriteBytes': {
    kind: { type: 'int', min: 4096, max: 1024 * 1024 },
    default: 128 * 1024,
    doc: 'stripefs mount: largest write the kernel sends at once (big_writes; libfuse 2 kernels cap it at 128 KiB); the client aggregates writes into whole stripe units',
  },
  'mount.maxReadBytes': {
    kind: { type: 'int', min: 4096, max: 1024 * 1024 },
    default: 128 * 1024,
    doc: 'stripefs mount: largest read the kernel sends at once (max_read)',
  },
  'mount.runDir': {
    kind: { type: 'string' },
    default: '',
    doc: 'stripefs mount: folder of the files that let `stripefs umount` and `mount --stats` find a running mount (empty: /run/stripefs for root, else the temporary folder)',
  },
  'mount.allowOther': {
    kind: { type: 'bool' },
    default: true,
    doc: 'stripefs mount: let users other than the one who mounted use the mount (allow_other; permissions are checked by the kernel, default_permissions)',
  },
  's3.listen': {
    kind: { type: 'hostport' },
    default: '127.0.0.1:9000',
    doc: 'Where `stripefs s3` listens for S3 requests (host:port; port 0: any free port)',
  },
  's3.region': {
    kind: { type: 'string', nonEmpty: true },
    default: 'us-east-1',
    doc: 'Region the S3 gateway reports (GetBucketLocation); clients may sign for any region',
  },
  's3.domain': {
    kind: { type: 'string' },
    default: '',
    doc: 'Base domain for virtual-hosted-style S3 requests (BUCKET.DOMAIN); empty: path style only',
  },
  's3.accessKey': {
    kind: { type: 'string' },
    default: '',
    doc: 'S3 access key id (with s3.secretKey); with no key configured, `stripefs s3` makes a pair and prints it',
  },
  's3.secretKey': { kind: { type: 'string' }, default: '', doc: 'S3 secret access key of s3.accessKey' },
  's3.credentialsFile': {
    kind: { type: 'string' },
    default: '',
    doc: 'A file of more S3 key pairs, one `ACCESS_KEY SECRET_KEY [NAME]` a line',
  },
  's3.keyringDir': {
    kind: { type: 'string' },
    default: '',
    doc: 'A folder of keyring files (NAME.keyring, mode 0600): identity NAME signs S3 requests as access key NAME with the secret `stripefs auth s3-key` prints, and the gateway acts as NAME, with its caps; a file added, replaced or removed counts within a second',
  },
  's3.tlsCert': {
    kind: { type: 'string' },
    default: '',
    doc: 'PEM certificate file: the S3 gateway serves HTTPS (with s3.tlsKey); empty: plain HTTP',
  },
  's3.tlsKey': { kind: { type: 'string' }, default: '', doc: 'PEM private key file of s3.tlsCert' },
  's3.partBytesMin': {
    kind: { type: 'int', min: 1, max: 5 * 1024 * 1024 * 1024 },
    default: 5 * 1024 * 1024,
    doc: "Smallest part (but the last) of an S3 multipart upload, as S3's EntityTooSmall rule",
  },
} as const satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_SCHEMA;
type ValueOf<K extends Kind> = K extends { type: 'int' }
  ? number
  : K extends { type: 'bool' }
    ? boolean
    : K extends { type: 'enum'; values: readonly (infer V)[] }
      ? V
      : string;
export type Config = { -readonly [K in ConfigKey]: ValueOf<(typeof CONFIG_SCHEMA)[K]['kind']> };

/** STRIPEFS_ plus the key in upper snake case, unless the schema names one. */
export function envNameOf(key: ConfigKey): string {
  const spec: KeySpec = CONFIG_SCHEMA[key];
  if (spec.env) return spec.env;
  return `STRIPEFS_${key
    .replace(/\./g, '_')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()}`;
}

function describe(kind: Kind): string {
  switch (kind.type) {
    case 'int':
      return `an integer from ${kind.min} to ${kind.max}`;
    case 'bool':
      return 'true or false';
    case 'enum':
      return `one of ${kind.values.join(', ')}`;
    case 'hostport':
      return 'HOST:PORT, e.g. 127.0.0.1:7070';
    case 'string':
      return kind.nonEmpty ? 'a non-empty string' : 'a string';
  }
}

function fail(key: ConfigKey, raw: unknown, source: string): never {
  const kind: Kind = CONFIG_SCHEMA[key].kind;
  throw new StripeError(
    'CONFIG_INVALID',
    `config key ${key} (env ${envNameOf(key)}) from ${source}: expected ${describe(kind)}, got ${JSON.stringify(raw)}`,
    { key, env: envNameOf(key), source },
  );
}

/** Validates one raw value (string from the environment, or parsed from a file). */
export function parseValue(key: ConfigKey, raw: unknown, source: string): string | number | boolean {
  const kind: Kind = CONFIG_SCHEMA[key].kind;
  switch (kind.type) {
    case 'int': {
      const n =
        typeof raw === 'number'
          ? raw
          : typeof raw === 'string' && /^-?\d+$/.test(raw.trim())
            ? Number(raw)
            : NaN;
      if (!Number.isSafeInteger(n) || n < kind.min || n > kind.max) fail(key, raw, source);
      return n;
    }
    case 'bool':
      if (raw === true || raw === 'true' || raw === '1') return true;
      if (raw === false || raw === 'false' || raw === '0') return false;
      return fail(key, raw, source);
    case 'enum':
      if (typeof raw === 'string' && kind.values.includes(raw)) return raw;
      return fail(key, raw, source);
    case 'hostport': {
      const match =
        typeof raw === 'string' ? /^([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(raw) : null;
      if (!match || Number(match[2]) > 65535) fail(key, raw, source);
      return raw as string;
    }
    case 'string':
      if (typeof raw !== 'string' && typeof raw !== 'number') fail(key, raw, source);
      if (kind.nonEmpty && String(raw).length === 0) fail(key, raw, source);
      return String(raw);
  }
}

function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else {
    out.set(prefix, value);
  }
}

function isConfigKey(key: string): key is ConfigKey {
  return Object.hasOwn(CONFIG_SCHEMA, key);
}

export interface LoadConfigOptions {
  file?: string;
  env?: NodeJS.ProcessEnv;
  overrides?: Partial<Record<ConfigKey, unknown>>;
}

/** Reads, merges and validates the configuration. Throws CONFIG_INVALID naming the bad key. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const values = new Map<ConfigKey, string | number | boolean>();
  for (const key of Object.keys(CONFIG_SCHEMA) as ConfigKey[]) values.set(key, CONFIG_SCHEMA[key].default);
  const file = options.file ?? options.env?.STRIPEFS_CONFIG;
  if (file) {
    const text = readFileSync(file, 'utf8');
    const flat = new Map<string, unknown>();
    flatten(parseYaml(text), '', flat);
    for (const [key, raw] of flat) {
      if (!isConfigKey(key)) {
        throw new StripeError('CONFIG_INVALID', `config file ${file}: unknown key ${key}`, {
          key,
          source: file,
        });
      }
      values.set(key, parseValue(key, raw, file));
    }
  }
  const env = options.env ?? {};
  for (const key of Object.keys(CONFIG_SCHEMA) as ConfigKey[]) {
    const raw = env[envNameOf(key)];
    if (raw !== undefined && raw !== '') values.set(key, parseValue(key, raw, `env ${envNameOf(key)}`));
  }
  for (const [key, raw] of Object.entries(options.overrides ?? {})) {
    if (!isConfigKey(key)) throw new Error(`unknown config override ${key}`);
    if (raw !== undefined) values.set(key, parseValue(key, raw, 'command line'));
  }
  return Object.fromEntries(values) as Config;
}

/** Every environment variable the schema knows, for docs and the docker-compose check. */
export function knownEnvNames(): Set<string> {
  const names = new Set<string>(['STRIPEFS_CONFIG', 'STRIPEFS_SEED', 'STRIPEFS_PARENT_PID']);
  for (const key of Object.keys(CONFIG_SCHEMA) as ConfigKey[]) names.add(envNameOf(key));
  return names;
}
