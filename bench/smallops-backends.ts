// The OST's two ways of keeping a small object, side by side in one run: a
// file per object (oss.smallObjectBytes 0) against records of the segment log
// (oss/store/segment-log.ts). Two bench clusters (1 MDS + 6 OSSs, 2 OSTs each)
// that differ only in that setting; the replicated:3 writeFile and readFile
// phases of bench/smallops.ts in alternating rounds (files, log, log, files,
// ...), so load on the machine falls on both alike; the median round of each.
// Reported per file: the OSSs' CPU (user and system, /proc), which is what the
// log is meant to lower, the whole cluster's, and files/s. Part of
// `npm run bench -- --only smallops` (not with --quick); STRIPEFS_SMALLOPS_BACKENDS=0
// leaves it out, =1 runs it with --quick too.
import { loadavg } from 'node:os';
import { adminFetch } from '../test/helpers/admin-http.js';
import { type BenchCluster, startBenchCluster } from './cluster.js';
import { alternate } from './cpu.js';
import { type PhaseProfile, profileLayout, SMALLOPS_LAYOUTS } from './smallops.js';
import { type BenchResult, median, result } from './types.js';

const COMMAND = 'npm run bench -- --only smallops';
/** The log's bound on the log side: the 64 KiB files' objects (and ec chunks) are all below it. */
export const LOG_SIDE_SMALL_OBJECT_BYTES = 128 * 1024;

interface Side {
  name: 'files' | 'log';
  cluster: BenchCluster;
  write: PhaseProfile[];
  read: PhaseProfile[];
}

const SIDES: { name: Side['name']; smallObjectBytes: number }[] = [
  { name: 'files', smallObjectBytes: 0 },
  { name: 'log', smallObjectBytes: LOG_SIDE_SMALL_OBJECT_BYTES },
];

/** Records (objects) in the log side's OSTs and the rounds that wrote them, as their OSSs count them. */
async function logCounts(cluster: BenchCluster): Promise<{ records: number; rounds: number }> {
  let records = 0;
  let rounds = 0;
  for (const spec of cluster.specs) {
    const osts = (await (await adminFetch(`${cluster.adminUrlOf(spec.id)}/api/osts`)).json()) as {
      objectCount: number;
      log?: { rounds: number };
    }[];
    for (const ost of osts) {
      records += ost.objectCount;
      rounds += ost.log?.rounds ?? 0;
    }
  }
  return { records, rounds };
}

export function backendsWanted(quick: boolean): boolean {
  const asked = process.env.STRIPEFS_SMALLOPS_BACKENDS;
  return asked === undefined ? !quick : asked === '1';
}

export async function compareBackends(files: number, rounds: number): Promise<BenchResult[]> {
  const rep3 = SMALLOPS_LAYOUTS.find((l) => l.name === 'rep3')!.layout;
  const sides: Side[] = [];
  const loads: number[] = [];
  try {
    for (const { name, smallObjectBytes } of SIDES) {
      const cluster = await startBenchCluster({
        extraEnv: { STRIPEFS_OSS_SMALL_OBJECT_BYTES: String(smallObjectBytes) },
      });
      sides.push({ name, cluster, write: [], read: [] });
    }
    await alternate(sides, rounds, async (side, round) => {
      const { write, read } = await profileLayout(
        side.cluster,
        `backends-${side.name}-${round}`,
        rep3,
        files,
      );
      side.write.push(write);
      side.read.push(read);
      loads.push(loadavg()[0] ?? 0);
      process.stderr.write(
        `smallops backends ${side.name} round ${round}: OSS CPU ms/file (system part) write ` +
          `${write.cpuMsPerFile.oss.toFixed(2)} (${write.systemMsPerFile.oss.toFixed(2)}), read ` +
          `${read.cpuMsPerFile.oss.toFixed(2)} (${read.systemMsPerFile.oss.toFixed(2)}); ` +
          `load ${loads[loads.length - 1]?.toFixed(1)}\n`,
      );
    });
    const log = await logCounts(sides[1]!.cluster);
    process.stderr.write(
      `smallops backends log: ${log.records} records in ${log.rounds} rounds (${(log.records / Math.max(1, log.rounds)).toFixed(2)} per round)\n`,
    );
  } finally {
    for (const side of sides) await side.cluster.stop();
  }
  const [filesSide, logSide] = sides as [Side, Side];
  const note =
    `median of ${rounds} alternating rounds of ${files} replicated:3 files of 64 KiB, 16 in flight; ` +
    `load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`;
  return (['write', 'read'] as const).flatMap((phase) => rows(phase, logSide[phase], filesSide[phase], note));
}

function rows(
  phase: 'write' | 'read',
  log: PhaseProfile[],
  files: PhaseProfile[],
  note: string,
): BenchResult[] {
  const id = `smallops.backends.log.rep3-${phase}-64k`;
  const what = `the same ${phase}s with a file per object, same run`;
  const of = (profiles: PhaseProfile[], pick: (p: PhaseProfile) => number) => median(profiles.map(pick));
  return [
    result(
      `${id}.cpu-oss`,
      of(log, (p) => p.cpuMsPerFile.oss),
      'ms/file',
      COMMAND,
      {
        value: of(files, (p) => p.cpuMsPerFile.oss),
        name: `OSS CPU of ${what}`,
      },
      note,
    ),
    result(
      `${id}.cpu-total`,
      of(log, (p) => p.cpuMsPerFile.total),
      'ms/file',
      COMMAND,
      {
        value: of(files, (p) => p.cpuMsPerFile.total),
        name: `client, MDS and OSS CPU of ${what}`,
      },
      note,
    ),
    result(
      `${id}`,
      of(log, (p) => p.perSec),
      'files/s',
      COMMAND,
      {
        value: of(files, (p) => p.perSec),
        name: what,
      },
      note,
    ),
  ];
}
