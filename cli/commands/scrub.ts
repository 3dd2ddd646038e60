// stripefs scrub [--pg POOL/PG]: a deep scrub of every PG (or one) through
// the MDS, which compares the copies of every object (ec: recomputes parity)
// and repairs the wrong ones. Waits for the end by default, printing progress
// on stderr; exit 1 when an error was left unfixed.
import { setTimeout as sleep } from 'node:timers/promises';
import type { DomVerifyReport } from '../../mds/dom-verify.js';
import type { ScrubTask } from '../../mds/recovery/scrub-service.js';
import { adminRequest, adminUrlOf, type ConnectFlags } from '../connect.js';
import { formatBytes } from '../format.js';
import { CliError, printJson } from '../output.js';

export interface ScrubFlags extends ConnectFlags {
  json?: boolean;
  pg?: string;
  repair?: boolean;
  wait?: boolean;
}

/** A scrub task as the MDS admin API answers it (JSON of the MDS's own record). */
export type ScrubTaskAnswer = ScrubTask;

/** Progress lines written to a log or a pipe at most this often. */
const SCRUB_LOG_MS = 5_000;
const SCRUB_POLL_MS = 500;

/** "3/17" or "rep-3-host/17": pool by id or name, then the PG number. */
export function parsePgArg(raw: string): { pool: number | string; pg: number } {
  const match = /^([A-Za-z0-9_.:+-]+)[/.](\d{1,9})$/.exec(raw);
  if (!match) throw new CliError('REQ_INVALID', `--pg expects POOL/PG (pool id or name), got ${raw}`);
  const pool = /^\d+$/.test(match[1]!) ? Number(match[1]) : match[1]!;
  return { pool, pg: Number(match[2]) };
}

/** One progress line (also what `stripefs health` prints for a running scrub). */
export function scrubLine(t: Omit<ScrubTaskAnswer, 'findings' | 'skipped'>): string {
  const finished = t.pgsDone + t.pgsSkipped + t.pgsFailed;
  return (
    `scrub #${t.id} (${t.scope}): ${finished}/${t.pgsTotal} PGs, ${t.objectsScanned} objects, ` +
    `${formatBytes(t.bytesScanned)}, errors ${t.errorsFound} found / ${t.errorsFixed} fixed` +
    (t.pgsSkipped + t.pgsFailed > 0 ? `, ${t.pgsSkipped} PGs skipped, ${t.pgsFailed} failed` : '')
  );
}

export async function scrub(flags: ScrubFlags): Promise<void> {
  const body = { ...(flags.pg ? parsePgArg(flags.pg) : {}), repair: flags.repair !== false };
  const base = adminUrlOf(flags);
  let task = await adminRequest<ScrubTaskAnswer>(`${base}/api/scrub`, 'POST', body);
  // On a terminal one line redrawn in place; in a log or a pipe a line when the count moved, at
  // most every SCRUB_LOG_MS.
  const tty = Boolean(process.stderr.isTTY);
  let logged = { atMs: -Infinity, line: '' };
  while (flags.wait !== false && task.state === 'running') {
    const line = scrubLine(task);
    if (!flags.json && tty) process.stderr.write(`\r${line}`);
    else if (!flags.json && line !== logged.line && performance.now() - logged.atMs >= SCRUB_LOG_MS) {
      process.stderr.write(`${line}\n`);
      logged = { atMs: performance.now(), line };
    }
    await sleep(SCRUB_POLL_MS);
    task = await adminRequest<ScrubTaskAnswer>(`${base}/api/scrub/${task.id}`);
  }
  if (task.state === 'done' && task.errorsFixed < task.errorsFound) process.exitCode = 1;
  // A whole-cluster scrub also checks the bytes kept on the MDS (data on the MDS): one copy, never repaired.
  const dom = flags.pg ? undefined : await adminRequest<DomVerifyReport>(`${base}/api/dom/verify`);
  if (dom && dom.corruptCount + dom.orphanCount > 0) process.exitCode = 1;
  if (flags.json) return printJson(dom ? { ...task, dom } : task);
  if (flags.wait !== false && tty) process.stderr.write('\n');
  process.stdout.write(`${scrubLine(task)}${task.state === 'running' ? ' (running)' : ''}\n`);
  for (const f of task.findings)
    process.stdout.write(
      `  ${f.fixed ? 'fixed' : 'NOT FIXED'}  pg ${f.pool}/${f.pg} ${f.objectId} on ost${f.ostId}: ${f.problem} (${f.detail})\n`,
    );
  for (const s of task.skipped) process.stdout.write(`  skipped pg ${s.pool}/${s.pg}: ${s.reason}\n`);
  if (!dom) return;
  process.stdout.write(
    `data on the MDS: ${dom.files} files, ${formatBytes(dom.bytes)} checked; ${dom.corruptCount} corrupt, ${dom.orphanCount} without a file\n`,
  );
  for (const c of dom.corrupt) process.stdout.write(`  NOT FIXED  inode ${c.inode}: ${c.detail}\n`);
  for (const ino of dom.orphans) process.stdout.write(`  NOT FIXED  inode ${ino}: no file owns its bytes\n`);
}
