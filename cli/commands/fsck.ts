// stripefs fsck [--repair] [--json] [--no-verify]: checks the namespace
// against the objects on the OSTs (cli/fsck/). Exit 0 when clean, 1 when
// problems remain (after repair, with --repair).
import type { Command } from 'commander';
import { type ConnectFlags, clientNetworkOf, mdsAddressOf, mdsUnreachable } from '../connect.js';
import type { FsckResult } from '../fsck/index.js';
import type { Verdict } from '../fsck/judge.js';
import { printJson } from '../output.js';

interface FsckFlags extends ConnectFlags {
  json?: boolean;
  repair?: boolean;
  verify: boolean;
}

function summary(v: Verdict) {
  return {
    mapEpoch: v.mapEpoch,
    files: v.files,
    copiesExpected: v.copiesExpected,
    copiesOk: v.copiesOk,
    problems: v.problems,
    lost: v.lost,
    orphans: v.orphans,
    unfinished: v.unfinished,
    moving: v.moving,
    unreachableOsts: v.unreachableOsts,
  };
}

function printText(result: FsckResult, repaired: boolean): void {
  const lines: string[] = [];
  const v = result.after;
  if (repaired) {
    const ok = result.repairs.filter((r) => r.ok).length;
    lines.push(`repairs: ${ok} done, ${result.repairs.length - ok} failed`);
    for (const r of result.repairs)
      lines.push(`  ${r.action} ${r.objectId} on ost${r.ostId}: ${r.ok ? 'ok' : `FAILED ${r.error}`}`);
  }
  lines.push(`map epoch ${v.mapEpoch}: ${v.files} files, ${v.copiesOk} of ${v.copiesExpected} copies ok`);
  for (const u of v.unreachableOsts) lines.push(`  unreachable ost${u.ostId}: ${u.reason}`);
  for (const p of v.problems)
    lines.push(
      `  ${p.kind} ${p.objectId} on ost${p.ostId} (${p.path}): ${p.recoverable ? 'recoverable' : 'NOT recoverable'}`,
    );
  for (const l of v.lost) lines.push(`  lost ${l.group} (${l.path}): ${l.detail}`);
  for (const o of v.orphans)
    lines.push(`  orphan ${o.objectId} on ost${o.ostId} (${o.size} bytes, ${o.reason})`);
  for (const u of v.unfinished)
    lines.push(
      `  unfinished ${u.objectId} on ost${u.ostId} (${u.path}): ${u.storedBytes} bytes stored, ${u.committedBytes} committed`,
    );
  if (v.moving > 0) lines.push(`  ${v.moving} copies still moving (recovery or rebalance in progress)`);
  lines.push(result.clean ? 'clean' : 'problems remain');
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function registerFsckCommands(program: Command): void {
  program
    .command('fsck')
    .description('check the namespace against the objects: missing, corrupt and orphan objects')
    .option('--mds <address>', 'MDS address host:port')
    .option('--repair', 'rewrite missing and corrupt copies from good ones, delete orphans')
    .option('--no-verify', 'do not read every copy (skips the checksum check)')
    .option('--json', 'print JSON')
    .action(async (flags: FsckFlags) => {
      const { runFsck } = await import('../fsck/index.js');
      const result = await runFsck({
        mdsAddress: mdsAddressOf(flags),
        network: clientNetworkOf(),
        repair: flags.repair ?? false,
        verify: flags.verify,
      }).catch(async (err: unknown) => {
        throw await mdsUnreachable(err, flags);
      });
      if (flags.json)
        printJson({
          clean: result.clean,
          ...(flags.repair ? { before: summary(result.before), repairs: result.repairs } : {}),
          ...summary(result.after),
        });
      else printText(result, flags.repair ?? false);
      process.exitCode = result.clean ? 0 : 1;
    });
}
