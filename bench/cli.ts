// The CLI's put and get against the client library doing the same work in
// the same run: one local file of 1 GiB (--quick: 128 MiB) copied into
// stripefs and back for raid0, replicated:3 and ec:4+2, and a folder of 64
// files of 4 MiB (--quick: 32 of 1 MiB) copied both ways. The CLI runs as its
// own process (`node dist/cli/main.js put|get`, started and connected as a
// user's would be); the library reads the local file whole and writes it with
// writeFile (put), reads the remote file with readFile and writes it with
// node:fs (get), 8 files at once for folders. Each pair is timed REPEATS
// times, alternating, and the figure is the median; the note gives the runs.
//   node dist/bench/cli.js [--quick]
import { execFile } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Layout, StripeClient } from '../client/index.js';
import { Semaphore } from '../common/semaphore.js';
import { formatLayout } from '../layout/index.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { type BenchResult, GB, median, result, type SuiteOptions } from './types.js';

const run = promisify(execFile);
const MiB = 1024 * 1024;
const REPEATS = 3;
const FOLDER_FILES_IN_FLIGHT = 8;
export const LAYOUTS: Record<string, Layout> = {
  raid0: { pattern: 'raid0', stripeSize: MiB, stripeCount: 6 },
  rep3: { pattern: 'replicated', stripeSize: MiB, stripeCount: 6, replicas: 3, failureDomain: 'host' },
  ec42: { pattern: 'ec', stripeSize: MiB, k: 4, m: 2, failureDomain: 'host' },
};

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

interface Pair {
  cli: number;
  library: number;
  note: string;
}

/** Runs the CLI and the library alternately `repeats` times (seconds); the medians, as GB/s of `bytes`. */
async function pairs(
  repeats: number,
  bytes: number,
  cli: () => Promise<unknown>,
  library: () => Promise<unknown>,
): Promise<Pair> {
  const c: number[] = [];
  const l: number[] = [];
  for (let i = 0; i < repeats; i++) {
    l.push(await timed(library));
    c.push(await timed(cli));
  }
  const spread = (v: number[]) => v.map((s) => s.toFixed(2)).join(', ');
  return {
    cli: bytes / GB / median(c),
    library: bytes / GB / median(l),
    note: `runs (s): CLI ${spread(c)}; library ${spread(l)}`,
  };
}

/** Copies a local folder's files into `remote` (created), FOLDER_FILES_IN_FLIGHT at once, as a library user would. */
async function libraryPutFolder(client: StripeClient, local: string, remote: string): Promise<void> {
  await client.mkdir(remote, { recursive: true });
  const gate = new Semaphore(FOLDER_FILES_IN_FLIGHT);
  await Promise.all(
    readdirSync(local).map((name) =>
      gate.run(async () => client.writeFile(`${remote}/${name}`, await readFile(join(local, name)))),
    ),
  );
}

async function libraryGetFolder(client: StripeClient, remote: string, local: string): Promise<void> {
  mkdirSync(local, { recursive: true });
  const gate = new Semaphore(FOLDER_FILES_IN_FLIGHT);
  await Promise.all(
    (await client.readdir(remote)).map((name) =>
      gate.run(async () => writeFile(join(local, name), await client.readFile(`${remote}/${name}`))),
    ),
  );
}

/** What every part of the suite uses: the client, the CLI as a process, a scratch folder. */
interface Run {
  client: StripeClient;
  cli: (...args: string[]) => Promise<unknown>;
  work: string;
  repeats: number;
  command: string;
}

/** One local file put and got back per layout, each beside the library doing the same. */
async function fileRows(run: Run, fileBytes: number): Promise<BenchResult[]> {
  const { client, cli, work, repeats, command } = run;
  const local = join(work, 'one.bin');
  writeFileSync(local, randomFillSync(Buffer.allocUnsafe(fileBytes)));
  const size = `${(fileBytes / MiB).toFixed(0)} MiB`;
  const rows: BenchResult[] = [];
  for (const [name, layout] of Object.entries(LAYOUTS)) {
    const text = formatLayout(layout);
    const put = await pairs(
      repeats,
      fileBytes,
      () => cli('put', '--layout', text, local, `/bench-cli/${name}.cli`),
      async () => client.writeFile(`/bench-cli/${name}.lib`, await readFile(local), { layout }),
    );
    const get = await pairs(
      repeats,
      fileBytes,
      () => cli('get', `/bench-cli/${name}.cli`, join(work, 'back.cli')),
      async () => writeFile(join(work, 'back.lib'), await client.readFile(`/bench-cli/${name}.lib`)),
    );
    const base = (what: string, value: number) => ({ value, name: `the library ${what}, same run` });
    rows.push(
      result(
        `cli.put.${name}`,
        put.cli,
        'GB/s',
        command,
        base('(node:fs readFile, writeFile)', put.library),
        `${size}, ${text}; ${put.note}`,
      ),
      result(
        `cli.get.${name}`,
        get.cli,
        'GB/s',
        command,
        base('(readFile, node:fs writeFile)', get.library),
        `${size}, ${text}; ${get.note}`,
      ),
    );
  }
  return rows;
}

/** A folder of files put and got back, beside the library copying FOLDER_FILES_IN_FLIGHT files at once. */
async function folderRows(run: Run, files: number, fileBytes: number): Promise<BenchResult[]> {
  const { client, cli, work, repeats, command } = run;
  const folder = join(work, 'folder');
  mkdirSync(folder);
  for (let i = 0; i < files; i++)
    writeFileSync(join(folder, `f${i}.bin`), randomFillSync(Buffer.allocUnsafe(fileBytes)));
  const layout = LAYOUTS.rep3 as Layout;
  await client.mkdir('/bench-cli/folders', { recursive: true, layout });
  const put = await pairs(
    repeats,
    files * fileBytes,
    () => cli('put', folder, '/bench-cli/folders/cli'),
    () => libraryPutFolder(client, folder, '/bench-cli/folders/lib'),
  );
  const get = await pairs(
    repeats,
    files * fileBytes,
    () => cli('get', '/bench-cli/folders/cli', join(work, 'back-cli')),
    () => libraryGetFolder(client, '/bench-cli/folders/lib', join(work, 'back-lib')),
  );
  const what = `${files} files of ${(fileBytes / MiB).toFixed(2)} MiB, ${formatLayout(layout)}`;
  const inFlight = `${FOLDER_FILES_IN_FLIGHT} files at once, same run`;
  return [
    result(
      'cli.put-folder',
      put.cli,
      'GB/s',
      command,
      { value: put.library, name: `the library (node:fs readFile, writeFile), ${inFlight}` },
      `${what}; ${put.note}`,
    ),
    result(
      'cli.get-folder',
      get.cli,
      'GB/s',
      command,
      { value: get.library, name: `the library (readFile, node:fs writeFile), ${inFlight}` },
      `${what}; ${get.note}`,
    ),
  ];
}

export async function runCliBench(
  opts: SuiteOptions & {
    fileBytes?: number;
    folderFiles?: number;
    folderFileBytes?: number;
    repeats?: number;
  },
): Promise<BenchResult[]> {
  const command = `node dist/bench/cli.js${opts.quick ? ' --quick' : ''}`;
  const shared = opts.cluster ? await opts.cluster() : undefined;
  const own: BenchCluster | undefined = shared ? undefined : await startBenchCluster();
  const mds = ((shared ?? own) as BenchCluster).mdsAddress;
  const work = mkdtempSync(join(tmpdir(), 'stripefs-bench-cli-'));
  const client = await StripeClient.connect({ mds, seed: 5 });
  const cli = (...args: string[]) =>
    run(process.execPath, ['dist/cli/main.js', ...args], {
      env: { ...process.env, STRIPEFS_MDS: mds },
      maxBuffer: 16 * MiB,
    });
  const suite: Run = { client, cli, work, repeats: opts.repeats ?? REPEATS, command };
  try {
    await client.mkdir('/bench-cli', { recursive: true });
    return [
      ...(await fileRows(suite, opts.fileBytes ?? (opts.quick ? 128 : 1024) * MiB)),
      ...(await folderRows(
        suite,
        opts.folderFiles ?? (opts.quick ? 32 : 64),
        opts.folderFileBytes ?? (opts.quick ? 1 : 4) * MiB,
      )),
    ];
  } finally {
    await client.close();
    rmSync(work, { recursive: true, force: true });
    await own?.stop();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const r of await runCliBench({ quick: process.argv.includes('--quick') }))
    console.log(
      `${r.id}: ${r.value.toFixed(3)} ${r.unit} (${r.ratio?.toFixed(3)} of ${r.baseline?.toFixed(3)}: ${r.baselineName}) [${r.note}]`,
    );
}
