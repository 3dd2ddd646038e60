// Cluster administration: df, health, scrub, ost out|in|reweight, fault set|clear.

import type { Command } from 'commander';
import { ostAddressesOf } from '../../client/map.js';
import { adminScheme } from '../../common/admin-http-client.js';
import { StripeError } from '../../common/errors.js';
import type { MapOst__Output } from '../../proto/index.js';
import {
  adminRequest,
  adminUrlOf,
  type ConnectFlags,
  clientNetworkOf,
  fetchMap,
  fetchMapAndStatfs,
} from '../connect.js';
import { formatBytes, table } from '../format.js';
import { CliError, printJson } from '../output.js';
import { registerHealthCommands, type WeightPhaseAnswer } from './health.js';
import { type ScrubFlags, scrub } from './scrub.js';

interface JsonFlags extends ConnectFlags {
  json?: boolean;
}

function stateOf(ost: MapOst__Output): string {
  return `${ost.state?.up ? 'up' : 'down'}/${ost.state?.in ? 'in' : 'out'}`;
}

export async function df(flags: JsonFlags): Promise<void> {
  const { map, statfs } = await fetchMapAndStatfs(flags);
  const mds = { domFiles: statfs.domFiles, domBytes: statfs.domBytes, entries: statfs.files };
  const rows = [...map.osts]
    .sort((a, b) => a.id - b.id)
    .map((ost) => ({
      id: ost.id,
      name: ost.name,
      host: ost.host,
      rack: ost.rack,
      state: stateOf(ost),
      usedBytes: ost.usedBytes,
      totalBytes: ost.totalBytes,
      weight: ost.weight,
    }));
  // The JSON form stays the OST rows it always was; the MDS's part is in the text and in `stat /`.
  if (flags.json) return printJson(rows);
  const percent = (used: number, total: number) => (total > 0 ? `${Math.round((100 * used) / total)}%` : '-');
  const body = rows.map((r) => [
    `ost${r.id}`,
    r.host,
    r.rack,
    r.state,
    formatBytes(r.usedBytes),
    formatBytes(Math.max(0, r.totalBytes - r.usedBytes)),
    formatBytes(r.totalBytes),
    percent(r.usedBytes, r.totalBytes),
    r.weight.toFixed(3),
  ]);
  const used = rows.reduce((s, r) => s + r.usedBytes, 0);
  const total = rows.reduce((s, r) => s + r.totalBytes, 0);
  body.push([
    'total',
    '',
    '',
    '',
    formatBytes(used),
    formatBytes(total - used),
    formatBytes(total),
    percent(used, total),
    '',
  ]);
  process.stdout.write(
    `${table(['OST', 'HOST', 'RACK', 'STATE', 'USED', 'AVAIL', 'SIZE', 'USE%', 'WEIGHT'], body)}\n`,
  );
  process.stdout.write(
    `MDS: ${mds.entries} entries; data on the MDS: ${formatBytes(mds.domBytes)} in ${mds.domFiles} files (one copy)\n`,
  );
  process.stdout.write(`map epoch ${map.epoch}\n`);
}

function ostId(raw: string): number {
  const match = /^(?:ost)?(\d+)$/.exec(raw);
  if (!match) throw new CliError('REQ_INVALID', `an OST is named by its id, like 3 or ost3; got ${raw}`);
  return Number(match[1]);
}

/**
 * `stripefs ost rm`: removes OSTs that are down and out for good (Ceph's `osd purge`), by id or
 * every OST of a host; the MDS refuses while one is up (MAP_OST_UP), in (MAP_OST_IN) or still
 * needed by a PG (MAP_OST_NOT_DRAINED).
 */
async function ostRemove(ids: string[], flags: JsonFlags & { host?: string }): Promise<void> {
  if (ids.length > 0 === Boolean(flags.host))
    throw new CliError(
      'REQ_INVALID',
      'name the OSTs to remove (stripefs ost rm 3 4) or one host (--host NAME), not both',
    );
  let ostIds = ids.map(ostId);
  if (flags.host) {
    const map = await fetchMap(flags);
    ostIds = map.osts.filter((o) => o.host === flags.host).map((o) => o.id);
    if (ostIds.length === 0)
      throw new StripeError(
        'MAP_UNKNOWN_OST',
        `no OST of host ${flags.host} in the map (epoch ${map.epoch}); see stripefs df`,
      );
  }
  const result = await adminRequest<{ mapEpoch: number; removed: number[] }>(
    `${adminUrlOf(flags)}/api/osts/remove`,
    'POST',
    { ostIds },
  );
  if (flags.json) return printJson(result);
  process.stdout.write(
    `removed ${result.removed.map((id) => `ost${id}`).join(', ')}: map epoch ${result.mapEpoch}\n`,
  );
}

async function ostAction(
  action: 'out' | 'in' | 'reweight',
  id: string,
  weight: string | undefined,
  flags: JsonFlags & { step?: string },
) {
  const body = action === 'reweight' ? { weight: Number(weight) } : undefined;
  if (action === 'reweight' && (!Number.isFinite(body?.weight) || (body?.weight ?? -1) < 0)) {
    throw new CliError('REQ_INVALID', `reweight expects a weight >= 0, got ${weight}`);
  }
  if (action === 'reweight' && flags.step !== undefined) {
    const step = Number(flags.step);
    if (!Number.isFinite(step) || step <= 0)
      throw new CliError('REQ_INVALID', `--step expects a weight > 0, got ${flags.step}`);
    const phase = await adminRequest<WeightPhaseAnswer>(`${adminUrlOf(flags)}/api/phases`, 'POST', {
      ostId: ostId(id),
      weight: body?.weight,
      step,
    });
    if (flags.json) return printJson(phase);
    process.stdout.write(
      `ost${ostId(id)} reweight ${phase.fromWeight} -> ${phase.targetWeight} in steps of ${step}, each once the cluster is clean (see stripefs health)\n`,
    );
    return;
  }
  const result = await adminRequest<{ mapEpoch: number }>(
    `${adminUrlOf(flags)}/api/osts/${ostId(id)}/${action}`,
    'POST',
    body,
  );
  if (flags.json) return printJson(result);
  process.stdout.write(
    `ost${ostId(id)} ${action}${body ? ` ${body.weight}` : ''}: map epoch ${result.mapEpoch}\n`,
  );
}

async function ossAdminOf(flags: ConnectFlags, id: number): Promise<string> {
  const map = await fetchMap(flags);
  const ost = map.osts.find((o) => o.id === id);
  if (!ost)
    throw new StripeError('MAP_UNKNOWN_OST', `no ost${id} in the map (epoch ${map.epoch}); see stripefs df`);
  const { adminAddress } = ostAddressesOf(ost, clientNetworkOf());
  if (!adminAddress)
    throw new StripeError('REQ_UNAVAILABLE', `ost${id}'s OSS has not announced an admin address`);
  return `${adminScheme()}://${adminAddress}`;
}

interface FaultFlags extends JsonFlags {
  latencyMs?: string;
  jitterMs?: string;
  bandwidth?: string;
  readFailRate?: string;
  writeFailRate?: string;
  corruptReadRate?: string;
  crashBeforeCommitRate?: string;
  fsyncFailRate?: string;
  fsyncDelayMs?: string;
  hang?: boolean;
  loseIndexTail?: boolean;
  seed?: string;
}

export function faultBody(flags: FaultFlags): Record<string, number | boolean> {
  const body: Record<string, number | boolean> = {};
  const numeric: [keyof FaultFlags, string][] = [
    ['latencyMs', 'latencyMs'],
    ['jitterMs', 'jitterMs'],
    ['bandwidth', 'bandwidthBytesPerSec'],
    ['readFailRate', 'readFailRate'],
    ['writeFailRate', 'writeFailRate'],
    ['corruptReadRate', 'corruptReadRate'],
    ['crashBeforeCommitRate', 'crashBeforeCommitRate'],
    ['fsyncFailRate', 'fsyncFailRate'],
    ['fsyncDelayMs', 'fsyncDelayMs'],
    ['seed', 'seed'],
  ];
  for (const [flag, field] of numeric) {
    const raw = flags[flag];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0)
      throw new CliError('REQ_INVALID', `--${flag} expects a number >= 0, got ${raw}`);
    body[field] = value;
  }
  if (flags.hang) body.hang = true;
  if (flags.loseIndexTail) body.loseIndexTail = true;
  if (Object.keys(body).length === 0)
    throw new CliError('REQ_INVALID', 'name at least one knob, e.g. --latency-ms 50');
  return body;
}

/** The options of `fault set`, one per knob (oss/faults.ts). */
const FAULT_OPTIONS: [string, string][] = [
  ['--latency-ms <ms>', 'added latency per request'],
  ['--jitter-ms <ms>', 'random extra latency up to this'],
  ['--bandwidth <bytes/s>', 'bandwidth cap'],
  ['--read-fail-rate <0..1>', 'fraction of reads that fail'],
  ['--write-fail-rate <0..1>', 'fraction of writes that fail'],
  ['--corrupt-read-rate <0..1>', 'fraction of reads returned corrupt'],
  [
    '--crash-before-commit-rate <0..1>',
    'fraction of writes that SIGKILL the OSS once their data is written, before their index commit',
  ],
  ['--fsync-fail-rate <0..1>', 'fraction of flushes whose fsync fails'],
  ['--fsync-delay-ms <ms>', 'a slow disk: added time of every fdatasync of an object file'],
  ['--hang', 'accept requests but never answer'],
  [
    '--lose-index-tail',
    "drop the index batches of the segment log's rounds from now on, as a power loss drops their unsynced tail",
  ],
  ['--seed <n>', 'seed of the knob generator'],
];

export function registerAdminCommands(program: Command): void {
  const withConnect = (command: Command) =>
    command
      .option('--mds <host:port>', 'MDS address (default: $STRIPEFS_MDS or 127.0.0.1:7070)')
      .option('--admin <url>', 'MDS admin URL (default: http(s)://MDS-host:MDS-port+1)')
      .option('--json', 'print JSON');
  withConnect(program.command('df').description('per-OST usage and state, like lfs df')).action(df);
  registerHealthCommands(program, withConnect);
  withConnect(
    program.command('scrub').description('deep scrub: compare the copies of every PG (or one) and repair'),
  )
    .option('--pg <pool/pg>', 'scrub one PG (pool id or name, then PG number)')
    .option('--no-repair', 'report only')
    .option('--no-wait', 'return once the scrub is queued')
    .action((flags: ScrubFlags) => scrub(flags));
  const ost = program
    .command('ost')
    .alias('osd')
    .description('mark OSTs out or in, change their weight, remove dead ones');
  withConnect(
    ost
      .command('rm [osts...]')
      .alias('purge')
      .description(
        'remove OSTs that are down and out, once every PG is clean without them (refused otherwise, with the reason)',
      ),
  )
    .option('--host <name>', 'every OST of this host')
    .action((ids: string[], f: JsonFlags & { host?: string }) => ostRemove(ids, f));
  withConnect(ost.command('out <ost>').description('take an OST out of placement')).action(
    (id: string, f: JsonFlags) => ostAction('out', id, undefined, f),
  );
  withConnect(ost.command('in <ost>').description('put an OST back into placement')).action(
    (id: string, f: JsonFlags) => ostAction('in', id, undefined, f),
  );
  withConnect(ost.command('reweight <ost> <weight>').description('set an OST placement weight'))
    .option(
      '--step <weight>',
      'move towards the weight in steps of this size, each once the cluster is clean',
    )
    .action((id: string, weight: string, f: JsonFlags & { step?: string }) =>
      ostAction('reweight', id, weight, f),
    );
  const fault = program
    .command('fault')
    .description('simulation knobs of one OST: latency, bandwidth, failures, hang');
  const set = withConnect(fault.command('set <ost>').description('set fault knobs on an OST'));
  for (const [flag, help] of FAULT_OPTIONS) set.option(flag, help);
  set.action(async (id: string, flags: FaultFlags) => {
    const ostNumber = ostId(id);
    const url = `${await ossAdminOf(flags, ostNumber)}/api/osts/${ostNumber}/faults`;
    const result = await adminRequest<unknown>(url, 'PUT', faultBody(flags));
    if (flags.json) return printJson(result);
    process.stdout.write(`ost${ostNumber} faults set: ${JSON.stringify(faultBody(flags))}\n`);
  });
  withConnect(fault.command('clear <ost>').description('clear every fault knob of an OST')).action(
    async (id: string, flags: JsonFlags) => {
      const ostNumber = ostId(id);
      const result = await adminRequest<unknown>(
        `${await ossAdminOf(flags, ostNumber)}/api/osts/${ostNumber}/faults`,
        'DELETE',
      );
      if (flags.json) return printJson(result);
      process.stdout.write(`ost${ostNumber} faults cleared\n`);
    },
  );
}
