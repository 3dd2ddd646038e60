// stripefs auth add|ls|get|caps|rotate|rm: identities and their caps at the
// MDS (admin identities only). Secrets are made here and written to keyring
// files (mode 0600); the MDS receives only the stored key that verifies them.
// auth whoami (any identity) and auth s3-key (no MDS: derived from a keyring).
import { existsSync, renameSync, rmSync } from 'node:fs';
import type { Command } from 'commander';
import type { AuthIdentity__Output } from '../../proto/index.js';
import { type ConnectFlags, mdsAddressOf, mdsUnreachable } from '../connect.js';
import { table } from '../format.js';
import { CliError, printJson } from '../output.js';

/** `--admin` here grants admin (ConnectFlags' admin is the admin API's URL, unused by these commands). */
interface AuthFlags {
  mds?: string;
  json?: boolean;
  caps?: string;
  admin?: boolean;
  service?: boolean;
  allow?: string[];
  output?: string;
}

/** Runs one admin call against the MDS with the CLI's identity. */
async function authCall<T>(
  flags: AuthFlags,
  run: (mds: import('../../client/mds-client.js').MdsClient) => Promise<T>,
): Promise<T> {
  const { MdsClient } = await import('../../client/mds-client.js');
  const connect: ConnectFlags = flags.mds ? { mds: flags.mds } : {};
  const mds = new MdsClient(mdsAddressOf(connect));
  try {
    return await run(mds).catch(async (err: unknown) => {
      throw await mdsUnreachable(err, connect);
    });
  } finally {
    mds.close();
  }
}

function show(identity: AuthIdentity__Output | null, flags: AuthFlags, keyring?: string): void {
  if (!identity) throw new CliError('REQ_INTERNAL', 'the MDS answered without the identity');
  if (flags.json) {
    printJson({ ...identity, ...(keyring ? { keyring } : {}) });
    return;
  }
  process.stdout.write(
    `${identity.name}\n  caps: ${identity.caps || '(none)'}\n  admin: ${identity.admin ? 'yes' : 'no'}${identity.service ? '\n  service: yes (an OSS)' : ''}\n  allow: ${identity.allow.join(' ') || 'any address'}\n${keyring ? `  keyring: ${keyring} (mode 0600)\n` : ''}`,
  );
}

function keyringPathOf(name: string, flags: AuthFlags): string {
  return flags.output ?? `${name}.keyring`;
}

async function add(name: string, flags: AuthFlags): Promise<void> {
  const [{ generateIdentity, writeKeyring }, { storedKeyOf }, { call }] = await Promise.all([
    import('../../common/auth/keyring.js'),
    import('../../common/auth/proof.js'),
    import('../../common/grpc.js'),
  ]);
  const identity = generateIdentity(name);
  const path = keyringPathOf(name, flags);
  if (existsSync(path)) throw new CliError('AUTH_EXISTS', `${path} exists: name another file with -o FILE`);
  writeKeyring(path, identity);
  try {
    const answer = await authCall(flags, (mds) =>
      call(mds.grpc, 'AuthAdd', {
        name,
        storedKey: storedKeyOf(identity.secret),
        caps: flags.caps ?? '',
        admin: flags.admin ?? false,
        allow: flags.allow ?? [],
        service: flags.service ?? false,
      }),
    );
    show(answer.identity, flags, path);
  } catch (err) {
    rmSync(path, { force: true });
    throw err;
  }
}

async function rotate(name: string, flags: AuthFlags): Promise<void> {
  const [{ generateIdentity, writeKeyring }, { storedKeyOf }, { call }] = await Promise.all([
    import('../../common/auth/keyring.js'),
    import('../../common/auth/proof.js'),
    import('../../common/grpc.js'),
  ]);
  const identity = generateIdentity(name);
  const path = keyringPathOf(name, flags);
  // The new key goes beside the old file and replaces it only once the MDS holds it.
  const next = `${path}.new`;
  writeKeyring(next, identity, true);
  try {
    const answer = await authCall(flags, (mds) =>
      call(mds.grpc, 'AuthRotate', { name, storedKey: storedKeyOf(identity.secret) }),
    );
    renameSync(next, path);
    show(answer.identity, flags, path);
  } catch (err) {
    rmSync(next, { force: true });
    throw err;
  }
}

async function list(flags: AuthFlags): Promise<void> {
  const { call } = await import('../../common/grpc.js');
  const { identities } = await authCall(flags, (mds) => call(mds.grpc, 'AuthList', {}));
  if (flags.json) return printJson(identities);
  const rows = identities.map((i) => [
    i.name,
    i.admin ? 'yes' : 'no',
    i.service ? 'yes' : 'no',
    i.caps || '-',
    i.allow.join(' ') || 'any',
  ]);
  process.stdout.write(`${table(['NAME', 'ADMIN', 'SERVICE', 'CAPS', 'ALLOW'], rows)}\n`);
}

async function get(name: string, flags: AuthFlags): Promise<void> {
  const { call } = await import('../../common/grpc.js');
  show((await authCall(flags, (mds) => call(mds.grpc, 'AuthGet', { name }))).identity, flags);
}

async function caps(name: string, capsText: string, flags: AuthFlags): Promise<void> {
  const { call } = await import('../../common/grpc.js');
  const answer = await authCall(flags, (mds) =>
    call(mds.grpc, 'AuthSetCaps', {
      name,
      caps: capsText,
      admin: flags.admin ?? false,
      allow: flags.allow ?? [],
      service: flags.service ?? false,
    }),
  );
  show(answer.identity, flags);
}

async function remove(name: string, flags: AuthFlags): Promise<void> {
  const { call } = await import('../../common/grpc.js');
  await authCall(flags, (mds) => call(mds.grpc, 'AuthRemove', { name }));
  if (flags.json) return printJson({ removed: name });
  process.stdout.write(`removed ${name}: its keyring no longer signs\n`);
}

async function whoami(flags: AuthFlags): Promise<void> {
  const who = await authCall(flags, (mds) => mds.whoami());
  if (!who) throw new CliError('REQ_INVALID', 'this MDS runs without auth: it keeps no identities');
  if (flags.json) {
    printJson(who);
    return;
  }
  process.stdout.write(
    `${who.name}\n  caps: ${who.caps || '(none)'}\n  admin: ${who.admin ? 'yes' : 'no'}\n  allow: ${who.allow.join(' ') || 'any address'}\n  seen from: ${who.address}\n`,
  );
}

/** The S3 access key pair of a keyring (the CLI's own by default): what `stripefs s3` checks signatures with. */
async function s3Key(file: string | undefined, flags: AuthFlags): Promise<void> {
  const [{ readKeyring, s3SecretOf }, { resolveIdentity }] = await Promise.all([
    import('../../common/auth/keyring.js'),
    import('../../common/auth/signing.js'),
  ]);
  const identity = file ? readKeyring(file) : resolveIdentity(undefined);
  if (!identity)
    throw new CliError(
      'AUTH_KEYRING_INVALID',
      'no keyring: name one (stripefs auth s3-key FILE), or use --keyring, $STRIPEFS_KEYRING or ./data/admin.keyring',
    );
  const pair = { accessKeyId: identity.name, secretAccessKey: s3SecretOf(identity.secret) };
  if (flags.json) printJson(pair);
  else
    process.stdout.write(
      `AWS_ACCESS_KEY_ID=${pair.accessKeyId}\nAWS_SECRET_ACCESS_KEY=${pair.secretAccessKey}\n`,
    );
}

const collect = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
];

export function registerAuthCommands(program: Command): void {
  const auth = program
    .command('auth')
    .description(
      'identities, their keys and caps (run with an admin keyring: --keyring, $STRIPEFS_KEYRING or ./data/admin.keyring)',
    );
  const connect = (command: Command) =>
    command
      .option('--mds <host:port>', 'MDS address (default: $STRIPEFS_MDS or 127.0.0.1:7070)')
      .option('--json', 'print JSON');
  const grants = (command: Command) =>
    command
      .option('--admin', 'may run admin commands (auth, ost, cluster map changes)')
      .option('--service', "an OSS's identity: may register OSTs, heartbeat and report refusals")
      .option('--allow <cidr>', 'connect only from these address ranges (repeat or comma-separate)', collect);
  grants(
    connect(
      auth
        .command('add <name>')
        .description('make an identity and write its keyring file (mode 0600)')
        .option('--caps <caps>', "paths it may read or write: 'rw /datasets/a, r /models [from CIDR]'", '')
        .option('-o, --output <file>', 'the keyring file to write (default NAME.keyring)'),
    ),
  ).action(add);
  connect(auth.command('ls').description('list identities')).action(list);
  connect(auth.command('get <name>').description("an identity's caps and allow-list")).action(get);
  grants(
    connect(
      auth
        .command('caps <name> <caps>')
        .description("replace an identity's caps (and admin flag, allow-list)"),
    ),
  ).action(caps);
  connect(
    auth
      .command('rotate <name>')
      .description('give an identity a new key: the old keyring stops signing at once')
      .option('-o, --output <file>', 'the keyring file to replace (default NAME.keyring)'),
  ).action(rotate);
  connect(auth.command('rm <name>').description('remove an identity')).action(remove);
  connect(
    auth.command('whoami').description('the identity this CLI signs as: caps, allow-list, address seen'),
  ).action(whoami);
  auth
    .command('s3-key [keyring]')
    .description(
      "the S3 access key pair of a keyring (default: the CLI's): a `stripefs s3` that holds the keyring (s3.keyringDir) acts as that identity",
    )
    .option('--json', 'print JSON')
    .action(s3Key);
}
