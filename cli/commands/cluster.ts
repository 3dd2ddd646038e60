// `stripefs cluster up|add|kill|revive|pause|resume|status`.
import { existsSync, mkdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { loadConfig } from '../../common/config.js';
import { ensureTlsFiles, type TlsFiles, tlsFilesIn } from '../../common/tls-files.js';
import { formatLayout } from '../../layout/index.js';
import { addToPlan, DEFAULT_PLAN_OPTIONS, planCluster } from '../cluster/plan.js';
import { readSettings, updateSettings } from '../cluster/settings.js';
import { intOption } from '../output.js';
import { control, type TargetFlags } from './cluster-control.js';
import { layoutFromFlags } from './files.js';

interface UpFlags {
  data: string;
  racks: string;
  hostsPerRack: string;
  ostsPerHost: string;
  basePort: string;
  ec?: string;
  replicas?: string;
  failureDomain?: string;
  ostCapacity?: string;
  tls?: boolean;
}

/**
 * The cluster's TLS files: made in <data>/tls with --tls (when missing), and used whenever that
 * folder holds them (a cluster made with --tls keeps TLS; remove the folder to go back to plain
 * TCP). None otherwise.
 */
function tlsFilesFor(flags: UpFlags): TlsFiles | undefined {
  const dir = join(flags.data, 'tls');
  if (flags.tls) return ensureTlsFiles(dir, loadConfig({ env: process.env })['tls.serverName']);
  const files = tlsFilesIn(dir);
  return existsSync(files.caFile) ? files : undefined;
}

/** The root's default layout (mds.defaultLayout) from --ec or --replicas, in the text form. */
export function defaultLayoutFrom(flags: {
  ec?: string;
  replicas?: string;
  failureDomain?: string;
}): string | undefined {
  if (!flags.ec && !flags.replicas) return undefined;
  const layout = layoutFromFlags({
    ec: flags.ec,
    replicas: flags.replicas,
    failureDomain: flags.failureDomain,
  });
  return layout && formatLayout(layout);
}

/**
 * Every local OST shares one disk, so by default each gets an equal share of
 * its free space as a quota: `df` then adds up to the truth, and a full disk
 * shows as full OSTs (ENOSPC) rather than as failed writes.
 */
function defaultOstCapacityBytes(dataDir: string, ostCount: number): number {
  // Chosen once, when the data folder is new, and kept: on a restart the disk
  // already holds the cluster's own data, which must not shrink the quota.
  const saved = readSettings(dataDir).ostCapacityBytes;
  if (typeof saved === 'number') return saved;
  mkdirSync(dataDir, { recursive: true });
  const fs = statfsSync(dataDir);
  const ostCapacityBytes = Math.floor((fs.bavail * fs.bsize) / ostCount);
  updateSettings(dataDir, { ostCapacityBytes });
  return ostCapacityBytes;
}

async function up(flags: UpFlags): Promise<void> {
  const ostCount =
    intOption('--racks', flags.racks) *
    intOption('--hosts-per-rack', flags.hostsPerRack) *
    intOption('--osts-per-host', flags.ostsPerHost);
  const planned = planCluster({
    ...DEFAULT_PLAN_OPTIONS,
    dataDir: flags.data,
    racks: intOption('--racks', flags.racks),
    hostsPerRack: intOption('--hosts-per-rack', flags.hostsPerRack),
    ostsPerHost: intOption('--osts-per-host', flags.ostsPerHost),
    basePort: intOption('--base-port', flags.basePort),
    defaultLayout: defaultLayoutFrom(flags),
    // STRIPEFS_KEYRING, when set, is the admin keyring; else the MDS makes <data>/admin.keyring.
    ...(process.env.STRIPEFS_KEYRING ? { keyring: process.env.STRIPEFS_KEYRING } : {}),
    tls: tlsFilesFor(flags),
    ostCapacityBytes:
      flags.ostCapacity === undefined
        ? defaultOstCapacityBytes(flags.data, Math.max(1, ostCount))
        : intOption('--ost-capacity', flags.ostCapacity),
  });
  // Hosts added to this cluster by `stripefs cluster add` start with the others.
  const plan = addToPlan(planned, readSettings(flags.data).addedHosts ?? []);
  const report = (line: string) => process.stderr.write(`${line}\n`);
  const { launchCluster } = await import('../cluster/launcher.js');
  const cluster = await launchCluster(plan, { report });
  const mds = `127.0.0.1:${plan.mds.grpcPort}`;
  process.stdout.write(
    [
      '',
      `stripefs is up: 1 MDS, ${plan.oss.length} OSSs, ${plan.ostCount} OSTs in ${plan.options.racks} racks`,
      `  MDS        ${mds}   (export STRIPEFS_MDS=${mds} for other shells)`,
      `  admin      ${plan.options.tls ? 'https' : 'http'}://127.0.0.1:${plan.mds.adminPort}/api/cluster`,
      `  data       ${plan.options.dataDir}   logs in ${join(plan.options.dataDir, 'logs')}`,
      ...(plan.options.tls
        ? [
            `  tls        on: gRPC and bulk ports take TLS only, admin ports HTTPS; clients need the CA ${plan.options.tls.caFile} (export STRIPEFS_TLS_CA=${plan.options.tls.caFile} elsewhere)`,
          ]
        : []),
      '  try        npx stripefs df   |   npx stripefs put ./README.md /readme   |   npx stripefs health',
      '  Ctrl-C stops every process.',
      '',
    ].join('\n'),
  );
  const onSignal = () => {
    report('stopping the cluster...');
    void cluster.stop();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  await cluster.stopped;
  report('stopped');
}

export function registerClusterCommands(program: Command): void {
  const cluster = program
    .command('cluster')
    .description('run a local cluster: up, add, kill, revive, pause, resume, status');
  cluster
    .command('up')
    .description('start 1 MDS and the OSSs on 127.0.0.1 and stay in the foreground (Ctrl-C stops all)')
    .option('--data <dir>', 'data folder', DEFAULT_PLAN_OPTIONS.dataDir)
    .option('--racks <n>', 'racks', String(DEFAULT_PLAN_OPTIONS.racks))
    .option(
      '--hosts-per-rack <n>',
      'hosts (OSS processes) per rack',
      String(DEFAULT_PLAN_OPTIONS.hostsPerRack),
    )
    .option('--osts-per-host <n>', 'OSTs per OSS', String(DEFAULT_PLAN_OPTIONS.ostsPerHost))
    .option(
      '--base-port <n>',
      'MDS gRPC port; every other port follows it',
      String(DEFAULT_PLAN_OPTIONS.basePort),
    )
    .option('--ec <k+m>', 'default root layout: erasure-coded K+M')
    .option('--replicas <n>', 'default root layout: N replicas')
    .option('--failure-domain <type>', 'failure domain of the default layout (host, rack)')
    .option(
      '--ost-capacity <bytes>',
      'quota of each OST in bytes (default: an equal share of the free disk space)',
    )
    .option(
      '--tls',
      'TLS on every gRPC and bulk port, HTTPS on the admin ports and the launcher API: makes a CA and a certificate in <data>/tls (with openssl) the first time; the CLI run from the folder holding ./data uses ./data/tls/ca.pem',
    )
    .action(up);
  const launcherOptions = (command: Command) =>
    command
      .option('--data <dir>', 'data folder of the running cluster', DEFAULT_PLAN_OPTIONS.dataDir)
      .option('--base-port <n>', 'base port of the running cluster')
      .option(
        '--mds <host:port>',
        'MDS of the running cluster (default: $STRIPEFS_MDS); its launcher is at port + 2',
      )
      .option('--json', 'print JSON');
  const target = (name: string, description: string, path: string) =>
    launcherOptions(cluster.command(name).description(description))
      .option('--host <name>', 'one host (OSS)')
      .option('--rack <name>', 'every OSS of a rack')
      .action((flags: TargetFlags, command: Command) => control(path, flags, command));
  launcherOptions(
    cluster
      .command('add')
      .description(
        'start new OSSs into the running local cluster: a rack of hosts or one host; placement moves PGs onto them under the recovery throttle',
      ),
  )
    .option('--rack [name]', 'add hosts in this rack (default: a new rack)')
    .option('--host [name]', 'add one host (default name: the next free hostN)')
    .option('--hosts <n>', "hosts to add with --rack (default: the cluster's hosts per rack)")
    .action((flags: TargetFlags, command: Command) => control('/add', flags, command));
  target('kill', 'SIGKILL the OSS processes of a host or a rack of the running local cluster', '/kill');
  target('revive', 'start killed OSS processes again on their data', '/revive').option('--all', 'every OSS');
  target(
    'pause',
    'SIGSTOP the OSS processes of a host or a rack (a hung host: connections stay open, nothing answers, no heartbeats)',
    '/pause',
  );
  target('resume', 'SIGCONT paused OSS processes', '/resume').option('--all', 'every OSS');
  target('status', 'list the processes of the running local cluster', '/status');
}
