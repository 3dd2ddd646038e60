// File commands through the client library: put, get, ls, stat, mkdir, mv,
// rm, setstripe, getstripe; put and get print the client's own numbers with --stats.
// The copies themselves are cli/transfer.ts's.
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { StripeClient } from '../../client/index.js';
import { checkLayout, domBytesOf, formatLayout, type Layout, parseLayout } from '../../layout/index.js';
import { type ConnectFlags, withClient } from '../connect.js';
import { formatBytes, parseSize, table } from '../format.js';
import { CliError, intOption, printJson } from '../output.js';
import { Progress } from '../progress.js';
import { copyAll, getRemoteFile, putLocalFile, TRANSFER_LIMITS } from '../transfer.js';

interface Flags extends ConnectFlags {
  json?: boolean;
}

interface CopyFlags extends Flags {
  stats?: boolean;
}

/** What put and get print when done: the count, and with --stats the client's own numbers. */
async function reportCopy(
  client: StripeClient,
  flags: CopyFlags,
  done: { files: number; bytes: number },
  text: string | undefined,
): Promise<void> {
  const stats = flags.stats ? client.stats() : undefined;
  if (flags.json) {
    printJson(stats ? { ...done, stats } : done);
    return;
  }
  if (text) process.stderr.write(text);
  if (stats) {
    const { clientStatsText } = await import('../client-stats.js');
    process.stderr.write(clientStatsText(stats));
  }
}

function counter(progress: Progress): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      progress.add(chunk.length);
      callback(null, chunk);
    },
  });
}

interface LayoutFlags {
  layout?: string;
  stripeCount?: string;
  stripeSize?: string;
  replicas?: string;
  ec?: string;
  failureDomain?: string;
}

/** A layout from --layout or lfs-style flags, or undefined when none is given. */
export function layoutFromFlags(flags: LayoutFlags): Layout | undefined {
  const lfsStyle = flags.stripeCount || flags.stripeSize || flags.replicas || flags.ec || flags.failureDomain;
  if (flags.layout !== undefined) {
    if (lfsStyle) throw new CliError('REQ_INVALID', 'give --layout or -c/-S/--replicas/--ec, not both');
    return parseLayout(flags.layout);
  }
  if (!lfsStyle) return undefined;
  if (flags.ec && flags.replicas) throw new CliError('REQ_INVALID', 'choose --ec or --replicas, not both');
  const stripeSize = flags.stripeSize === undefined ? undefined : parseSize(flags.stripeSize);
  if (stripeSize !== undefined && !Number.isFinite(stripeSize)) {
    throw new CliError('REQ_INVALID', `-S expects a size such as 1M or 65536, got ${flags.stripeSize}`);
  }
  const stripeCount = flags.stripeCount === undefined ? undefined : intOption('-c', flags.stripeCount);
  const base = { stripeSize, failureDomain: flags.failureDomain };
  if (flags.ec) {
    const match = /^(\d+)\+(\d+)$/.exec(flags.ec);
    if (!match) throw new CliError('REQ_INVALID', `--ec expects K+M such as 4+2, got ${flags.ec}`);
    return checkLayout({ pattern: 'ec', ...base, k: Number(match[1]), m: Number(match[2]) });
  }
  if (flags.replicas) {
    return checkLayout({
      pattern: 'replicated',
      ...base,
      stripeCount,
      replicas: intOption('--replicas', flags.replicas),
    });
  }
  return checkLayout({ pattern: 'raid0', ...base, stripeCount });
}

async function putFile(
  client: StripeClient,
  local: string,
  remote: string,
  layout: Layout | undefined,
  buffers: number = TRANSFER_LIMITS.putBuffers,
): Promise<number> {
  const size = local === '-' ? 0 : (await stat(local)).size;
  const progress = new Progress(`put ${remote}`, size);
  const existed = await client.stat(remote).then(
    () => true,
    () => false,
  );
  try {
    if (local === '-')
      await pipeline(
        process.stdin,
        counter(progress),
        client.createWriteStream(remote, layout ? { layout } : {}),
      );
    else await putLocalFile(client, local, remote, { layout, progress, buffers });
  } catch (err) {
    // A file this put created and could not fill is removed, not left behind empty (its size was
    // never committed); one that existed keeps what it had committed.
    if (!existed) await client.unlink(remote).catch(() => undefined);
    throw err;
  }
  return progress.finish().bytes;
}

async function put(local: string, remote: string, flags: CopyFlags & LayoutFlags): Promise<void> {
  const layout = layoutFromFlags(flags);
  await withClient(flags, async (client) => {
    const info = local === '-' ? undefined : await stat(local);
    if (!info?.isDirectory()) {
      const bytes = await putFile(client, local, remote, layout);
      await reportCopy(client, flags, { files: 1, bytes }, undefined);
      return;
    }
    // The folders first (parents before children), then the files, several at once.
    const files: [string, string][] = [];
    const walk = async (from: string, to: string): Promise<void> => {
      await client.mkdir(to, { recursive: true });
      for (const entry of await readdir(from, { withFileTypes: true })) {
        if (entry.isDirectory()) await walk(join(from, entry.name), posix.join(to, entry.name));
        else if (entry.isFile()) files.push([join(from, entry.name), posix.join(to, entry.name)]);
      }
    };
    await walk(local, remote);
    let bytes = 0;
    await copyAll(files, async ([from, to]) => {
      // Not `bytes += await ...`: that reads `bytes` before the await and loses the others' additions.
      const copied = await putFile(client, from, to, layout, TRANSFER_LIMITS.buffersPerFolderFile);
      bytes += copied;
    });
    await reportCopy(
      client,
      flags,
      { files: files.length, bytes },
      `put ${files.length} files, ${formatBytes(bytes)}\n`,
    );
  });
}

async function getFile(
  client: StripeClient,
  remote: string,
  local: string,
  size: number,
  buffers: number = TRANSFER_LIMITS.getBuffers,
): Promise<number> {
  const progress = new Progress(`get ${remote}`, size);
  if (local === '-') await pipeline(client.createReadStream(remote), counter(progress), process.stdout);
  else await getRemoteFile(client, remote, local, { progress, buffers });
  return progress.finish().bytes;
}

async function get(remote: string, local: string, flags: CopyFlags): Promise<void> {
  await withClient(flags, async (client) => {
    const info = await client.stat(remote);
    if (info.isFile()) {
      const bytes = await getFile(client, remote, local, info.size);
      await reportCopy(client, flags, { files: 1, bytes }, undefined);
      return;
    }
    if (local === '-')
      throw new CliError('REQ_INVALID', `${remote} is a directory; give a local folder, not -`);
    // The folders first (parents before children), then the files, several at once.
    const files: { from: string; to: string; size: number }[] = [];
    const walk = async (from: string, to: string): Promise<void> => {
      await mkdir(to, { recursive: true });
      for (const entry of await client.list(from)) {
        const next = posix.join(from, entry.name);
        if (entry.stat.isDirectory()) await walk(next, join(to, entry.name));
        else files.push({ from: next, to: join(to, entry.name), size: entry.stat.size });
      }
    };
    await walk(remote, local);
    let bytes = 0;
    await copyAll(files, async (f) => {
      // Not `bytes += await ...`: that reads `bytes` before the await and loses the others' additions.
      const copied = await getFile(client, f.from, f.to, f.size, TRANSFER_LIMITS.buffersPerFolderFile);
      bytes += copied;
    });
    await reportCopy(
      client,
      flags,
      { files: files.length, bytes },
      `got ${files.length} files, ${formatBytes(bytes)}\n`,
    );
  });
}

function layoutText(layout: Layout | undefined): string {
  return layout ? formatLayout(layout) : '-';
}

async function ls(path: string, flags: Flags & { long?: boolean }): Promise<void> {
  await withClient(flags, async (client) => {
    const entries = await client.list(path);
    if (flags.json) {
      return printJson(
        entries.map((e) => ({
          name: e.name,
          type: e.stat.type,
          size: e.stat.size,
          mtimeMs: e.stat.mtimeMs,
          inode: e.stat.inode,
          layout: e.stat.layout,
        })),
      );
    }
    if (!flags.long) {
      for (const e of entries) process.stdout.write(`${e.name}${e.stat.isDirectory() ? '/' : ''}\n`);
      return;
    }
    const rows = entries.map((e) => [
      e.stat.isDirectory() ? 'd' : '-',
      String(e.stat.size),
      new Date(e.stat.mtimeMs).toISOString().replace('T', ' ').slice(0, 19),
      layoutText(e.stat.layout),
      `${e.name}${e.stat.isDirectory() ? '/' : ''}`,
    ]);
    process.stdout.write(`${table(['T', 'SIZE', 'MODIFIED', 'LAYOUT', 'NAME'], rows)}\n`);
  });
}

async function statCommand(path: string, flags: Flags): Promise<void> {
  await withClient(flags, async (client) => {
    const s = await client.stat(path);
    const plain = {
      path,
      type: s.type,
      size: s.size,
      inode: s.inode,
      mtimeMs: s.mtimeMs,
      ctimeMs: s.ctimeMs,
      nlink: s.nlink,
      layout: s.layout,
    };
    if (flags.json) return printJson(plain);
    process.stdout.write(
      `  path: ${path}\n  type: ${s.type}\n  size: ${s.size} (${formatBytes(s.size)})\n inode: ${s.inode}\n mtime: ${new Date(s.mtimeMs).toISOString()}\nlayout: ${layoutText(s.layout)}\n`,
    );
  });
}

async function remove(path: string, flags: Flags & { recursive?: boolean }): Promise<void> {
  await withClient(flags, async (client) => {
    const removeTree = async (target: string): Promise<void> => {
      const s = await client.stat(target);
      if (!s.isDirectory()) return client.unlink(target);
      if (!flags.recursive) throw new CliError('REQ_INVALID', `${target} is a directory; use rm -r`);
      for (const entry of await client.list(target)) await removeTree(posix.join(target, entry.name));
      await client.rmdir(target);
    };
    await removeTree(path);
  });
}

async function setstripe(path: string, flags: Flags & LayoutFlags): Promise<void> {
  const layout = layoutFromFlags(flags);
  if (!layout)
    throw new CliError('REQ_INVALID', 'give a layout: -c COUNT, -S SIZE, --replicas N or --ec K+M');
  await withClient(flags, async (client) => {
    // Absent (or unreadable) means there is no file layout to compare with below.
    const existing = await client.stat(path).catch(() => undefined);
    if (existing?.isDirectory()) await client.setLayout(path, layout);
    else if (existing)
      throw new CliError('REQ_INVALID', `${path} exists; a file's layout is fixed when it is created`);
    else await client.writeFile(path, new Uint8Array(0), { layout });
    if (flags.json) printJson({ path, layout });
    else process.stdout.write(`${path}: ${layoutText(layout)}\n`);
  });
}

async function getstripe(path: string, flags: Flags): Promise<void> {
  await withClient(flags, async (client) => {
    const report = await client.getLayout(path);
    if (flags.json) return printJson({ path, ...report });
    process.stdout.write(
      `${path}\n  layout: ${layoutText(report.layout)}${report.poolId === undefined ? '' : `  pool ${report.poolId}`}\n  map epoch: ${report.mapEpoch}\n`,
    );
    if (report.mdsBytes !== undefined)
      process.stdout.write(
        `  on the MDS: ${report.mdsBytes} bytes (the first ${formatBytes(domBytesOf(report.layout as Layout))})\n`,
      );
    if (report.objects.length > 0) {
      const rows = report.objects.map((o) => [
        o.objectId,
        String(o.pg),
        o.osts.map((id) => (id < 0 ? '-' : `ost${id}`)).join(' '),
      ]);
      process.stdout.write(
        `${table(
          ['  OBJECT', 'PG', 'OSTS'],
          rows.map((r) => [`  ${r[0]}`, r[1] ?? '', r[2] ?? '']),
        )}\n`,
      );
    }
  });
}

export function registerFileCommands(program: Command): void {
  const connect = (command: Command) =>
    command
      .option('--mds <host:port>', 'MDS address (default: $STRIPEFS_MDS or 127.0.0.1:7070)')
      .option('--json', 'print JSON');
  const layoutOptions = (command: Command) =>
    command
      .option('--layout <text>', 'the layout as text: raid0:4:1M, replicated:3:rack, ec:4+2:host:4M')
      .option('-c, --stripe-count <n>', 'objects to stripe over')
      .option('-S, --stripe-size <size>', 'stripe unit, e.g. 1M')
      .option('--replicas <n>', 'replicated layout with N copies')
      .option('--ec <k+m>', 'erasure-coded layout')
      .option('--failure-domain <type>', 'failure domain: host, rack, ...');
  layoutOptions(
    connect(
      program
        .command('put <local> <remote>')
        .description('copy a local file or folder (or - for stdin) into stripefs')
        .option('--stats', "then print the client's numbers: throughput, latency, cache, bytes per OST"),
    ),
  ).action(put);
  connect(
    program
      .command('get <remote> <local>')
      .description('copy a file or folder out of stripefs (- for stdout)')
      .option('--stats', "then print the client's numbers: throughput, latency, cache, bytes per OST"),
  ).action(get);
  connect(
    program
      .command('ls [path]')
      .description('list a directory')
      .option('-l, --long', 'size, time and layout'),
  ).action((path: string | undefined, flags: Flags & { long?: boolean }) => ls(path ?? '/', flags));
  connect(program.command('stat <path>').description('attributes of a file or directory')).action(
    statCommand,
  );
  connect(
    program
      .command('mkdir <path>')
      .description('make a directory')
      .option('-p, --parents', 'make parents as needed'),
  ).action((path: string, flags: Flags & { parents?: boolean }) =>
    withClient(flags, (c) => c.mkdir(path, { recursive: flags.parents ?? false })),
  );
  connect(program.command('mv <from> <to>').description('rename, replacing a file at the target')).action(
    (from: string, to: string, flags: Flags) => withClient(flags, (c) => c.rename(from, to)),
  );
  connect(
    program
      .command('rm <path>')
      .description('remove a file (or a directory with -r)')
      .option('-r, --recursive', 'remove directories and their contents'),
  ).action(remove);
  layoutOptions(
    connect(
      program
        .command('setstripe <path>')
        .description("set a directory's default layout, or create an empty file with a layout"),
    ),
  ).action(setstripe);
  connect(
    program
      .command('getstripe <path>')
      .description('the layout and, for a file, every object with its PG and OSTs'),
  ).action(getstripe);
}
