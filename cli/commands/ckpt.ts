// stripefs ckpt ls|verify|rm|gc DIR: the checkpoints of a directory saved
// with the checkpoint API (checkpoint/): what is published, whether it reads
// back whole, removing one, and collecting what dead saves left behind.
import type { Command } from 'commander';
import type { Checkpoints, GcReport, Manifest } from '../../checkpoint/index.js';
import type { StripeClient } from '../../client/index.js';
import { type ConnectFlags, withClient } from '../connect.js';
import { formatBytes, table } from '../format.js';
import { CliError, intOption, printJson } from '../output.js';
import { Progress } from '../progress.js';

interface Flags extends ConnectFlags {
  json?: boolean;
}

/** Manifests read at once by `ckpt ls`. */
const MANIFESTS_IN_FLIGHT_MAX = 16;

async function withCheckpoints<T>(
  dir: string,
  flags: Flags,
  work: (ck: Checkpoints, client: StripeClient) => Promise<T>,
): Promise<T> {
  const { checkpoints } = await import('../../checkpoint/index.js');
  return withClient(flags, (client) => work(checkpoints(client, dir), client));
}

/** 90s, 10m, 2h, 1d, or milliseconds. */
export function parseDurationMs(text: string): number {
  const match = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) throw new CliError('REQ_INVALID', `expected a duration such as 30s, 10m, 2h or 0, got ${text}`);
  const unitMs = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 'ms'] as number;
  return Number(match[1]) * unitMs;
}

async function ls(dir: string, flags: Flags): Promise<void> {
  await withCheckpoints(dir, flags, async (ck, client) => {
    const { mapBounded } = await import('../../checkpoint/namespace.js');
    const listed = await ck.list();
    const rows = await mapBounded(listed, MANIFESTS_IN_FLIGHT_MAX, async (c) => {
      // A checkpoint whose manifest cannot be read is still listed, its sizes left blank.
      const manifest: Manifest | undefined = await ck.manifest(c.step).catch(() => undefined);
      return {
        ...c,
        parts: manifest?.parts.length,
        bytes: manifest?.bytes,
        ranks: manifest?.ranks,
        meta: manifest?.meta,
      };
    });
    const hidden = async (name: string) =>
      client.readdir(`${dir.replace(/\/+$/, '')}/${name}`).catch(() => [] as string[]);
    const { STAGING_DIR, TRASH_DIR } = await import('../../checkpoint/index.js');
    const staging = await hidden(STAGING_DIR);
    const trash = await hidden(TRASH_DIR);
    if (flags.json) {
      printJson({ dir, checkpoints: rows, latest: listed.at(-1)?.step ?? null, staging, trash });
      return;
    }
    const latest = listed.at(-1)?.step;
    const lines = [
      table(
        ['STEP', 'PARTS', 'SIZE', 'RANKS', 'CREATED'],
        rows.map((r) => [
          `${r.step}${r.step === latest ? ' (latest)' : ''}`,
          r.parts === undefined ? 'manifest unreadable' : String(r.parts),
          r.bytes === undefined ? '' : formatBytes(r.bytes),
          r.ranks === undefined ? '' : String(r.ranks),
          new Date(r.createdMs).toISOString(),
        ]),
      ),
    ];
    if (rows.length === 0) lines.push(`no published checkpoints in ${dir}`);
    if (staging.length + trash.length > 0)
      lines.push(
        `${staging.length} staging and ${trash.length} trash entries: saves in progress or remains (stripefs ckpt gc ${dir})`,
      );
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}

async function verify(dir: string, stepText: string | undefined, flags: Flags): Promise<void> {
  await withCheckpoints(dir, flags, async (ck) => {
    const step = stepText === undefined ? (await ck.latest())?.step : intOption('STEP', stepText);
    if (step === undefined) throw new CliError('CKPT_NOT_FOUND', `no published checkpoints in ${dir}`);
    const manifest = await ck.manifest(step);
    const progress = new Progress(`verify step ${step}`, manifest.bytes);
    const report = await ck.verify(step, { onPart: (o) => progress.add(o.bytesRead) });
    progress.finish();
    if (flags.json) printJson(report);
    else {
      const lines = [
        `step ${step}: ${report.parts} parts, ${formatBytes(report.bytes)}: ${report.ok ? 'ok' : 'BAD'}`,
      ];
      for (const bad of report.bad) lines.push(`  ${bad.name}: ${bad.reason}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    }
    process.exitCode = report.ok ? 0 : 1;
  });
}

async function rm(dir: string, steps: string[], flags: Flags): Promise<void> {
  const numbers = steps.map((s) => intOption('STEP', s));
  await withCheckpoints(dir, flags, async (ck) => {
    const removed: { step: number; freedBytes: number }[] = [];
    for (const step of numbers) removed.push({ step, freedBytes: await ck.remove(step) });
    if (flags.json) printJson({ removed });
    else
      for (const r of removed)
        process.stdout.write(`removed step ${r.step} (${formatBytes(r.freedBytes)})\n`);
  });
}

interface GcFlags extends Flags {
  olderThan?: string;
  keepLast?: string;
  keepEvery?: string;
}

async function gc(dir: string, flags: GcFlags): Promise<void> {
  const olderThanMs = flags.olderThan === undefined ? undefined : parseDurationMs(flags.olderThan);
  const retention = {
    ...(flags.keepLast === undefined ? {} : { keepLast: intOption('--keep-last', flags.keepLast) }),
    ...(flags.keepEvery === undefined ? {} : { keepEvery: intOption('--keep-every', flags.keepEvery) }),
  };
  await withCheckpoints(dir, flags, async (ck) => {
    const report: GcReport & { retentionRemoved: number[] } = await ck.gc({
      ...(olderThanMs === undefined ? {} : { olderThanMs }),
      retention,
    });
    if (flags.json) {
      printJson(report);
      return;
    }
    const lines = [
      `staging: ${report.stagingRemoved.length} removed, ${report.stagingKept.length} kept (touched within ${flags.olderThan ?? '1h'}: a save may still be writing)`,
      `trash: ${report.trashRemoved.length} removed`,
      `retention: ${report.retentionRemoved.length ? `steps ${report.retentionRemoved.join(', ')} removed` : 'nothing removed'}`,
      `freed ${formatBytes(report.freedBytes)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}

export function registerCheckpointCommands(program: Command): void {
  const ckpt = program
    .command('ckpt')
    .description('checkpoints saved with the checkpoint API: ls, verify, rm, gc');
  const connect = (command: Command) =>
    command
      .option('--mds <host:port>', 'MDS address (default: $STRIPEFS_MDS or 127.0.0.1:7070)')
      .option('--json', 'print JSON');
  connect(
    ckpt.command('ls <dir>').description('published checkpoints: step, parts, size, ranks, time'),
  ).action(ls);
  connect(
    ckpt
      .command('verify <dir> [step]')
      .description(
        'read every part of a checkpoint (default: the latest) and check sizes and crc32c; exit 1 if bad',
      ),
  ).action(verify);
  connect(
    ckpt
      .command('rm <dir> <steps...>')
      .description('remove checkpoints (each hidden in one rename, then deleted)'),
  ).action(rm);
  connect(
    ckpt
      .command('gc <dir>')
      .description('collect staging remains of dead saves, the trash, and apply a retention policy')
      .option('--older-than <duration>', 'collect staging untouched this long (default 1h; 0 for all)')
      .option('--keep-last <n>', 'keep the newest N checkpoints')
      .option('--keep-every <k>', 'and every step that is a multiple of K'),
  ).action(gc);
}
