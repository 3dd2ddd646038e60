// stripefs audit tail|grep: the MDS's audit log (admin identities only), the
// newest records last, as a table or JSON lines.
import type { Command } from 'commander';
import type { AuditRecord } from '../../mds/audit/log.js';
import { type ConnectFlags, mdsAddressOf, mdsUnreachable } from '../connect.js';
import { table } from '../format.js';
import { intOption } from '../output.js';

interface AuditFlags extends ConnectFlags {
  json?: boolean;
  lines?: string;
  identity?: string;
  op?: string;
  result?: string;
}

async function readAudit(contains: string, flags: AuditFlags): Promise<void> {
  const [{ MdsClient }, { call }] = await Promise.all([
    import('../../client/mds-client.js'),
    import('../../common/grpc.js'),
  ]);
  const mds = new MdsClient(mdsAddressOf(flags));
  try {
    const { lines } = await call(mds.grpc, 'ReadAudit', {
      limit: intOption('-n', flags.lines ?? '20'),
      contains,
      identity: flags.identity ?? '',
      op: flags.op ?? '',
      result: flags.result ?? '',
    }).catch(async (err: unknown) => {
      throw await mdsUnreachable(err, flags);
    });
    if (flags.json) {
      for (const line of lines) process.stdout.write(`${line}\n`);
      return;
    }
    const rows = lines.map((line) => {
      const r = JSON.parse(line) as AuditRecord;
      const suppressed = r.suppressed ? ` (+${r.suppressed} suppressed)` : '';
      const op = r.door ? `${r.op} (${r.door}, reported by ${r.by || '-'})` : r.op;
      return [r.time, r.identity || '-', r.address, op, r.paths.join(' '), `${r.result}${suppressed}`];
    });
    process.stdout.write(`${table(['TIME', 'IDENTITY', 'ADDRESS', 'OP', 'PATHS', 'RESULT'], rows)}\n`);
  } finally {
    mds.close();
  }
}

export function registerAuditCommands(program: Command): void {
  const audit = program
    .command('audit')
    .description(
      "the MDS's audit log: namespace changes, opens, listings, administration and every refused call",
    );
  const options = (command: Command) =>
    command
      .option('--mds <host:port>', 'MDS address (default: $STRIPEFS_MDS or 127.0.0.1:7070)')
      .option('-n, --lines <n>', 'records at most (newest)', '20')
      .option('--identity <name>', 'only this identity')
      .option('--op <op>', 'only this operation (Mkdir, Unlink, ...)')
      .option('--result <code>', 'only this result (OK or a code such as AUTH_DENIED)')
      .option('--json', 'print the JSON lines');
  options(audit.command('tail').description('the newest records')).action((flags: AuditFlags) =>
    readAudit('', flags),
  );
  options(audit.command('grep <text>').description('the newest records whose JSON line holds TEXT')).action(
    (text: string, flags: AuditFlags) => readAudit(text, flags),
  );
}
