// The local launcher behind `stripefs cluster up` (and `npm start`): starts
// the planned MDS and OSS processes as its own children, waits until every
// OST is up, supervises them (a crash is reported, not hidden), serves a small
// control API for `cluster kill|revive|pause|resume`, and stops everything on SIGINT/SIGTERM.
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ensureKeyring, OSS_SERVICE_NAME } from '../../common/auth/keyring.js';
import { resolveIdentity, signingOptions } from '../../common/auth/signing.js';
import { loadConfig } from '../../common/config.js';
import { StripeError } from '../../common/errors.js';
import { CLIENT_OPTIONS, call, deadlineIn } from '../../common/grpc.js';
import { channelCredentials, channelTlsOptions, type TlsSource, tlsSettingsOf } from '../../common/tls.js';
import { contract } from '../../proto/index.js';
import { packagePath } from '../package-root.js';
import { type StartedProcess, startProcess } from '../process.js';
import { buildControlApp } from './control.js';
import { addToPlan, type ClusterPlan, keyringOf, ossKeyringOf, type PlannedProcess } from './plan.js';
import { readSettings, updateSettings } from './settings.js';

export interface RunningCluster {
  /** The processes it runs: the plan it started with and the hosts added since. */
  readonly plan: ClusterPlan;
  /** Starts new OSSs (`stripefs cluster add`) and waits until their OSTs are up and in. */
  add(hosts: { host: string; rack: string }[]): Promise<{ added: string[]; osts: number }>;
  /** Stops every child (OSSs first, then the MDS) and the control server. */
  stop(): Promise<void>;
  kill(targets: PlannedProcess[]): Promise<string[]>;
  revive(targets: PlannedProcess[]): Promise<string[]>;
  /** SIGSTOP: a hung host (alive, connections open, no answers, no heartbeats). */
  pause(targets: PlannedProcess[]): string[];
  /** SIGCONT the paused ones. */
  resume(targets: PlannedProcess[]): string[];
  status(): {
    name: string;
    host?: string;
    rack?: string;
    pid: number | null;
    running: boolean;
    paused: boolean;
  }[];
  /** Resolves when the launcher has stopped. */
  readonly stopped: Promise<void>;
}

export interface LaunchOptions {
  /** Where progress and crash reports go (the terminal). */
  report: (line: string) => void;
  readyTimeoutMs?: number;
}

const STATE_FILE = 'cluster.json';
const READY_POLL_MS = 200;

export async function countUpOsts(
  mdsAddress: string,
  keyring?: string,
  tls?: TlsSource,
): Promise<{ up: number; total: number; epoch: number }> {
  const v1 = contract();
  const client = new v1.MdsService(mdsAddress, channelCredentials(tls), {
    ...channelTlsOptions(tls),
    ...CLIENT_OPTIONS,
    ...signingOptions(resolveIdentity(keyring)),
  });
  try {
    const response = await call(client, 'GetMap', { epoch: 0 }, deadlineIn(2_000));
    const osts = response.map?.osts ?? [];
    const up = osts.filter((ost) => ost.state?.up && ost.state?.in).length;
    return { up, total: osts.length, epoch: response.map?.epoch ?? 0 };
  } finally {
    client.close();
  }
}

/** Polls the MDS until `ostCount` OSTs are up and in, reporting each change of the count. */
async function waitForOsts(
  mdsAddress: string,
  plan: ClusterPlan,
  ostCount: number,
  options: LaunchOptions,
  logDir: string,
): Promise<void> {
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let lastUp = -1;
  for (;;) {
    // A refused key will not heal by waiting; anything else may be an MDS still starting.
    const counts = await countUpOsts(mdsAddress, keyringOf(plan.options), tlsOf(plan)).catch(
      (err: unknown) => {
        if (err instanceof StripeError && (err.code.startsWith('AUTH_') || err.code.startsWith('TLS_')))
          throw err;
        return { up: 0, total: 0, epoch: 0 };
      },
    );
    if (counts.up !== lastUp)
      options.report(`  ${counts.up}/${ostCount} OSTs up (map epoch ${counts.epoch})`);
    lastUp = counts.up;
    if (counts.up >= ostCount) return;
    if (Date.now() > deadline)
      throw new Error(`only ${counts.up} of ${ostCount} OSTs came up; see ${logDir}`);
    await sleep(READY_POLL_MS);
  }
}

/**
 * The data folder's logs folder, and the OSSs' service keyring, made before the MDS starts (it
 * adds that identity) and the OSSs read it.
 */
function prepareDataDir(plan: ClusterPlan): void {
  mkdirSync(join(plan.options.dataDir, 'logs'), { recursive: true });
  ensureKeyring(ossKeyringOf(plan.options), OSS_SERVICE_NAME);
}

/** What the control API serves HTTPS with: the cluster's certificate, or none (a plain cluster). */
function controlHttpsOf(plan: ClusterPlan): { cert: Buffer; key: Buffer } | undefined {
  const tls = plan.options.tls;
  return tls && { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) };
}

/** The TLS the launcher checks its MDS with: the plan's CA, or none (plain TCP). */
function tlsOf(plan: ClusterPlan): TlsSource {
  const tls = plan.options.tls;
  if (!tls) return null;
  const serverName = loadConfig({ env: process.env })['tls.serverName'];
  return tlsSettingsOf({ 'tls.ca': tls.caFile, 'tls.cert': '', 'tls.key': '', 'tls.serverName': serverName });
}

/** The keyring whose identity may use the control API; none (anyone local) with auth off. */
function controlKeyringOf(plan: ClusterPlan): string | undefined {
  return loadConfig({ env: process.env })['mds.auth'] ? keyringOf(plan.options) : undefined;
}

export async function launchCluster(
  initialPlan: ClusterPlan,
  options: LaunchOptions,
): Promise<RunningCluster> {
  let plan = initialPlan;
  const dataDir = plan.options.dataDir;
  prepareDataDir(plan);
  const children = new Map<string, StartedProcess>();
  const expectedExit = new Set<string>();
  const paused = new Set<string>();
  const isRunning = (name: string): boolean => {
    const child = children.get(name)?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  };
  const signal = (targets: PlannedProcess[], sig: 'SIGSTOP' | 'SIGCONT'): string[] => {
    const done: string[] = [];
    for (const proc of targets) {
      if (!isRunning(proc.name) || paused.has(proc.name) === (sig === 'SIGSTOP')) continue;
      children.get(proc.name)?.child.kill(sig);
      if (sig === 'SIGSTOP') paused.add(proc.name);
      else paused.delete(proc.name);
      done.push(proc.name);
    }
    return done;
  };
  let stopping = false;

  const start = async (proc: PlannedProcess): Promise<void> => {
    const logTo = createWriteStream(join(dataDir, 'logs', `${proc.name}.log`), { flags: 'a' });
    const started = await startProcess({ script: packagePath(proc.script), env: proc.env, logTo });
    children.set(proc.name, started);
    expectedExit.delete(proc.name);
    void started.exited.then(({ code, signal }) => {
      logTo.end();
      if (stopping || expectedExit.has(proc.name)) return;
      options.report(
        `stripefs: ${proc.name} exited unexpectedly (${signal ?? `code ${code}`}); log: ${join(dataDir, 'logs', `${proc.name}.log`)}\n${started.stderrTail().split('\n').slice(-5).join('\n')}\nrevive it with: stripefs cluster revive ${proc.host ? `--host ${proc.host}` : '--all'}`,
      );
    });
  };

  options.report(`starting MDS on 127.0.0.1:${plan.mds.grpcPort} (data in ${dataDir})`);
  await start(plan.mds);
  options.report(`starting ${plan.oss.length} OSSs with ${plan.ostCount} OSTs`);
  await Promise.all(plan.oss.map((proc) => start(proc)));

  const mdsAddress = `127.0.0.1:${plan.mds.grpcPort}`;
  await waitForOsts(mdsAddress, plan, plan.ostCount, options, join(dataDir, 'logs'));

  const stopChildren = async (names: string[]): Promise<void> => {
    await Promise.all(
      names.map(async (name) => {
        expectedExit.add(name);
        await children.get(name)?.stop();
      }),
    );
  };

  let resolveStopped: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    resolveStopped = resolve;
  });

  const cluster: RunningCluster = {
    get plan() {
      return plan;
    },
    stopped,
    async add(hosts) {
      const next = addToPlan(plan, hosts);
      const added = next.oss.slice(plan.oss.length);
      plan = next;
      updateSettings(dataDir, { addedHosts: [...(readSettings(dataDir).addedHosts ?? []), ...hosts] });
      options.report(`adding ${added.map((p) => `${p.name} (${p.rack})`).join(', ')}`);
      await Promise.all(added.map((proc) => start(proc)));
      await waitForOsts(mdsAddress, plan, plan.ostCount, options, join(dataDir, 'logs'));
      return { added: added.map((p) => p.name), osts: plan.ostCount };
    },
    async stop() {
      if (stopping) return stopped;
      stopping = true;
      await control.close();
      // A paused process would never see the SIGTERM.
      signal([plan.mds, ...plan.oss], 'SIGCONT');
      await stopChildren(plan.oss.map((p) => p.name));
      await stopChildren([plan.mds.name]);
      rmSync(join(dataDir, STATE_FILE), { force: true });
      resolveStopped();
    },
    async kill(targets) {
      const killed: string[] = [];
      for (const proc of targets) {
        const child = children.get(proc.name);
        if (!child || child.child.exitCode !== null || child.child.signalCode !== null) continue;
        expectedExit.add(proc.name);
        await child.kill('SIGKILL');
        paused.delete(proc.name);
        killed.push(proc.name);
      }
      return killed;
    },
    async revive(targets) {
      const revived: string[] = [];
      for (const proc of targets) {
        const child = children.get(proc.name);
        if (child && child.child.exitCode === null && child.child.signalCode === null) continue;
        await start(proc);
        revived.push(proc.name);
      }
      return revived;
    },
    pause: (targets) => signal(targets, 'SIGSTOP'),
    resume: (targets) => signal(targets, 'SIGCONT'),
    status() {
      return [plan.mds, ...plan.oss].map((proc) => {
        const child = children.get(proc.name)?.child;
        const running = isRunning(proc.name);
        return {
          name: proc.name,
          host: proc.host,
          rack: proc.rack,
          pid: child?.pid ?? null,
          running,
          paused: running && paused.has(proc.name),
        };
      });
    },
  };

  const control = buildControlApp(cluster, controlKeyringOf(plan), controlHttpsOf(plan));
  await control.listen({ host: '127.0.0.1', port: plan.controlPort });
  writeFileSync(
    join(dataDir, STATE_FILE),
    `${JSON.stringify({ launcherPid: process.pid, controlPort: plan.controlPort, mds: mdsAddress, adminPort: plan.mds.adminPort }, null, 2)}\n`,
  );
  return cluster;
}
