// The client side of the local launcher's control API: `stripefs cluster
// kill|revive|pause|resume|status|add`. The launcher is found by --base-port, else the
// <data>/cluster.json of an explicit --data, else the MDS address (--mds or STRIPEFS_MDS: the
// control port is the MDS port + 2), else <cwd>/data/cluster.json, else the default port.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { adminScheme, httpRequest } from '../../common/admin-http-client.js';
import { isErrorCode, StripeError } from '../../common/errors.js';
import { DEFAULT_PLAN_OPTIONS } from '../cluster/plan.js';
import { mdsAddressOf } from '../connect.js';
import { CliError, intOption, printJson } from '../output.js';

export interface TargetFlags {
  data: string;
  basePort?: string;
  mds?: string;
  host?: string | true;
  rack?: string | true;
  hosts?: string;
  all?: boolean;
  json?: boolean;
}

interface Launcher {
  url: string;
  /** How it was found, for the message when nothing answers there. */
  from: string;
}

function fromStateFile(dataDir: string): number | undefined {
  try {
    const state = JSON.parse(readFileSync(join(dataDir, 'cluster.json'), 'utf8')) as { controlPort?: number };
    return typeof state.controlPort === 'number' ? state.controlPort : undefined;
  } catch {
    return undefined;
  }
}

/** How long the launcher may take to answer (an add starts processes and waits for them). */
const CONTROL_TIMEOUT_MS = 120_000;

export function launcherOf(flags: TargetFlags, command: Command): Launcher {
  const scheme = adminScheme();
  const local = (port: number, from: string) => ({ url: `${scheme}://127.0.0.1:${port}`, from });
  if (flags.basePort)
    return local(intOption('--base-port', flags.basePort) + 2, `--base-port ${flags.basePort}`);
  const stateFile = join(flags.data, 'cluster.json');
  if (command.getOptionValueSource('data') === 'cli') {
    const port = fromStateFile(flags.data);
    if (port === undefined)
      throw new CliError(
        'REQ_UNAVAILABLE',
        `no running local cluster is recorded in ${stateFile}: start one with stripefs cluster up --data ${flags.data}`,
      );
    return local(port, stateFile);
  }
  const named = flags.mds ?? process.env.STRIPEFS_MDS;
  if (named) {
    const address = mdsAddressOf({ mds: named });
    const colon = address.lastIndexOf(':');
    const host = address.slice(0, colon);
    const from = flags.mds ? `--mds ${named}` : `STRIPEFS_MDS=${named}`;
    return {
      url: `${scheme}://${host}:${Number(address.slice(colon + 1)) + 2}`,
      from: `${from}, whose port + 2 it is`,
    };
  }
  const port = fromStateFile(flags.data);
  if (port !== undefined) return local(port, stateFile);
  return local(DEFAULT_PLAN_OPTIONS.basePort + 2, 'the default base port');
}

/**
 * The keyring that signs requests to the launcher: the CLI's own when one is configured, else
 * the admin keyring of the --data folder named (the launcher's), else the default.
 */
function controlKeyring(flags: TargetFlags, command: Command): string | undefined {
  if (process.env.STRIPEFS_KEYRING) return undefined;
  const inData = join(flags.data, 'admin.keyring');
  return command.getOptionValueSource('data') === 'cli' && existsSync(inData) ? inData : undefined;
}

/** What an action sends: the hosts or racks it acts on, or what `add` starts. */
function bodyOf(path: string, flags: TargetFlags): Record<string, unknown> | undefined {
  if (path === '/status') return undefined;
  if (path === '/add') {
    if (!flags.rack && !flags.host)
      throw new CliError('REQ_INVALID', 'name what to add: --rack [NAME] or --host [NAME]');
    return {
      rack: flags.rack,
      host: flags.host,
      hosts: flags.hosts === undefined ? undefined : intOption('--hosts', flags.hosts),
    };
  }
  if (!flags.host && !flags.rack && !flags.all)
    throw new CliError('REQ_INVALID', 'name what to act on: --host NAME, --rack NAME or --all');
  return { host: flags.host, rack: flags.rack, all: flags.all };
}

export async function control(path: string, flags: TargetFlags, command: Command): Promise<void> {
  const body = bodyOf(path, flags);
  const launcher = launcherOf(flags, command);
  const method = body === undefined ? 'GET' : 'POST';
  const { adminHttpHeaders } = await import('../../common/auth/http-auth.js');
  const url = `${launcher.url}${path}`;
  const response = await httpRequest(url, {
    method,
    headers: {
      ...adminHttpHeaders(method, url, controlKeyring(flags, command)),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    timeoutMs: CONTROL_TIMEOUT_MS,
  }).catch((err: unknown) => {
    // A TLS mismatch says what to set; anything else is no launcher there.
    if (err instanceof StripeError && err.code.startsWith('TLS_')) throw err;
    throw new CliError(
      'REQ_UNAVAILABLE',
      `no local cluster launcher answers at ${launcher.url} (found from ${launcher.from}): start one with stripefs cluster up, or name it with --data DIR or --base-port N; a docker compose cluster is operated with docker compose itself (docker compose kill|start|pause oss-host0, see the README)`,
    );
  });
  const result = JSON.parse(response.text) as Record<string, unknown>;
  const ok = response.status >= 200 && response.status <= 299;
  if (!ok) {
    const code = typeof result.code === 'string' && isErrorCode(result.code) ? result.code : 'REQ_INVALID';
    throw new CliError(code, String(result.message ?? `HTTP ${response.status}`));
  }
  if (flags.json) return printJson(result);
  printResult(result);
}

function printResult(result: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(result)) {
    if (Array.isArray(value) && key !== 'processes')
      process.stdout.write(`${key}: ${value.join(', ') || '(none)'}\n`);
  }
  if (!Array.isArray(result.processes)) return;
  for (const p of result.processes as {
    name: string;
    rack?: string;
    pid: number | null;
    running: boolean;
    paused?: boolean;
  }[]) {
    const state = p.paused ? `paused pid ${p.pid}` : p.running ? `running pid ${p.pid}` : 'stopped';
    process.stdout.write(`${p.name.padEnd(12)} ${(p.rack ?? '').padEnd(8)} ${state}\n`);
  }
}
