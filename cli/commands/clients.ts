// stripefs client ls|evict: the client sessions the MDS knows (each signing
// StripeClient, CLI run or OSS) and eviction of one (admin identities only).
import type { Command } from 'commander';
import type { AuthClient__Output } from '../../proto/index.js';
import { type ConnectFlags, mdsAddressOf, mdsUnreachable } from '../connect.js';
import { table } from '../format.js';
import { printJson } from '../output.js';

interface ClientFlags extends ConnectFlags {
  json?: boolean;
}

async function withMds<T>(
  flags: ClientFlags,
  run: (
    mds: import('../../client/mds-client.js').MdsClient,
    call: typeof import('../../common/grpc.js').call,
  ) => Promise<T>,
): Promise<T> {
  const [{ MdsClient }, { call }] = await Promise.all([
    import('../../client/mds-client.js'),
    import('../../common/grpc.js'),
  ]);
  const mds = new MdsClient(mdsAddressOf(flags));
  try {
    return await run(mds, call).catch(async (err: unknown) => {
      throw await mdsUnreachable(err, flags);
    });
  } finally {
    mds.close();
  }
}

function rowOf(c: AuthClient__Output, nowMs: number): string[] {
  return [
    c.id,
    c.identity,
    c.address,
    `${Math.round((nowMs - c.lastMs) / 1000)}s ago`,
    String(c.calls),
    c.evicted ? 'evicted' : 'active',
  ];
}

async function list(flags: ClientFlags): Promise<void> {
  const { clients } = await withMds(flags, (mds, call) => call(mds.grpc, 'ListClients', {}));
  if (flags.json) return printJson(clients);
  const nowMs = Date.now();
  process.stdout.write(
    `${table(
      ['ID', 'IDENTITY', 'ADDRESS', 'LAST CALL', 'CALLS', 'STATE'],
      clients.map((c) => rowOf(c, nowMs)),
    )}\n`,
  );
}

async function evict(id: string, flags: ClientFlags): Promise<void> {
  const { client } = await withMds(flags, (mds, call) => call(mds.grpc, 'EvictClient', { id }));
  if (flags.json) return printJson(client);
  process.stdout.write(
    `evicted ${id} (${client?.identity} at ${client?.address}): its calls are refused from now on, and its data-path tickets at every OSS from its next heartbeat\n`,
  );
}

export function registerClientCommands(program: Command): void {
  const client = program.command('client').description('client sessions at the MDS (admin identities only)');
  const connect = (command: Command) =>
    command
      .option('--mds <host:port>', 'MDS address (default: $STRIPEFS_MDS or 127.0.0.1:7070)')
      .option('--json', 'print JSON');
  connect(
    client.command('ls').description('sessions: identity, address, last call, calls, evicted or not'),
  ).action(list);
  connect(
    client
      .command('evict <id>')
      .description("refuse every later call of one session (rotate the identity's key to keep it out)"),
  ).action(evict);
}
