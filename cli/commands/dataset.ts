// stripefs pack SRC_DIR DEST: a local folder of samples packed into shard
// files plus an index on the cluster (docs/dataset-format.md); stripefs
// dataset stat|verify DEST: what a packed dataset holds, and every sample
// checked against its crc32c (exit 1 naming the bad ones).
import type { Command } from 'commander';
import type { PackReport } from '../../client/index.js';
import { type ConnectFlags, withClient } from '../connect.js';
import { formatBytes, parseSize } from '../format.js';
import { intOption, printJson } from '../output.js';
import { Progress } from '../progress.js';

interface Flags extends ConnectFlags {
  json?: boolean;
}

interface PackFlags extends Flags {
  shardSize?: string;
  layout?: string;
  parallel?: string;
}

/** Progress lines a pipe or log gets during a pack (one per tenth of the samples). */
const PROGRESS_LINES = 10;

/** A bar on a terminal; otherwise a line at every tenth of the samples. */
function packProgress(
  totalSamples: number,
  totalBytes: number,
): { add(bytes: number): void; finish(): void } {
  const bar = new Progress('pack', totalBytes);
  const lineEvery = Math.max(1, Math.ceil(totalSamples / PROGRESS_LINES));
  let samples = 0;
  let bytes = 0;
  return {
    add(n: number) {
      bar.add(n);
      samples++;
      bytes += n;
      if (!process.stderr.isTTY && (samples % lineEvery === 0 || samples === totalSamples))
        process.stderr.write(`pack: ${samples}/${totalSamples} samples, ${formatBytes(bytes)}\n`);
    },
    finish: () => bar.finish(),
  };
}

async function pack(src: string, dest: string, flags: PackFlags): Promise<void> {
  const { localSamples, parseLayout } = await import('../../client/index.js');
  const samples = await localSamples(src);
  const totalBytes = samples.reduce((n, s) => n + s.sizeBytes, 0);
  const options = {
    ...(flags.shardSize === undefined ? {} : { shardBytes: parseSize(flags.shardSize) }),
    ...(flags.layout === undefined ? {} : { layout: parseLayout(flags.layout) }),
    ...(flags.parallel === undefined
      ? {}
      : { shardsWritingMax: Math.max(1, intOption('--parallel', flags.parallel)) }),
  };
  const report: PackReport = await withClient(flags, async (client) => {
    const progress = packProgress(samples.length, totalBytes);
    const done = await client.packDataset(dest, samples, { ...options, onProgress: (n) => progress.add(n) });
    progress.finish();
    return done;
  });
  if (flags.json) printJson(report);
  else
    process.stdout.write(
      `packed ${report.samples} samples (${formatBytes(report.bytes)}) into ${report.shards} shards and an index of ${formatBytes(report.indexBytes)} at ${report.path}\n`,
    );
}

async function stat(dest: string, flags: Flags): Promise<void> {
  await withClient(flags, async (client) => {
    const dataset = await client.openDataset(dest);
    try {
      const { index } = dataset;
      const summary = {
        path: dest,
        formatVersion: index.formatVersion,
        samples: dataset.length,
        shards: dataset.shardCount,
        bytes: index.totalSampleBytes,
        firstKey: dataset.key(0),
        lastKey: dataset.key(dataset.length - 1),
      };
      if (flags.json) printJson(summary);
      else
        process.stdout.write(
          `${dest}: format ${summary.formatVersion}, ${summary.samples} samples (${formatBytes(summary.bytes)}) in ${summary.shards} shards, keys ${summary.firstKey} .. ${summary.lastKey}\n`,
        );
    } finally {
      await dataset.close();
    }
  });
}

async function verify(dest: string, flags: Flags): Promise<void> {
  await withClient(flags, async (client) => {
    const dataset = await client.openDataset(dest);
    try {
      const progress = new Progress(`verify ${dest}`, dataset.index.totalSampleBytes);
      const report = await dataset.verify((n) => progress.add(n));
      progress.finish();
      if (flags.json) printJson({ path: dest, ...report });
      else {
        const lines = [
          `${dest}: ${report.samples} samples, ${formatBytes(report.bytes)} read: ${report.ok ? 'ok' : `${report.badCount} BAD`}`,
        ];
        for (const bad of report.bad)
          lines.push(`  sample ${bad.index} ${bad.key} (shard ${bad.shard}): ${bad.reason}`);
        if (report.badCount > report.bad.length)
          lines.push(`  ... and ${report.badCount - report.bad.length} more`);
        process.stdout.write(`${lines.join('\n')}\n`);
      }
      process.exitCode = report.ok ? 0 : 1;
    } finally {
      await dataset.close();
    }
  });
}

export function registerDatasetCommands(program: Command): void {
  const connect = (command: Command) =>
    command
      .option('--mds <host:port>', 'MDS address (default: $STRIPEFS_MDS or 127.0.0.1:7070)')
      .option('--json', 'print JSON');
  connect(
    program
      .command('pack <src-dir> <dest>')
      .description(
        'pack every file under a local folder into shards plus an index at DEST (which must not exist)',
      )
      .option('--shard-size <bytes>', 'close a shard once it holds this much (default 256M)')
      .option(
        '--layout <text>',
        'layout of the shards, e.g. replicated:2:host or ec:4+2 (default: inherited)',
      )
      .option('--parallel <n>', 'shards written at once (default 4)'),
  ).action(pack);
  const dataset = program.command('dataset').description('packed datasets: stat, verify');
  connect(
    dataset
      .command('stat <dest>')
      .description('format version, samples, shards and bytes of a packed dataset'),
  ).action(stat);
  connect(
    dataset
      .command('verify <dest>')
      .description('read every sample of a packed dataset and check its crc32c; exit 1 naming the bad ones'),
  ).action(verify);
}
