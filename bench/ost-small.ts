// One OST's cost per small sync write, in this process and nothing else: a
// file per object (smallObjectBytes 0) against records of the segment log
// (oss/store/segment-log.ts), for objects of 16 KiB to 256 KiB, 16 writes in
// flight, each a new object written with `sync` as a client's copy is. The CPU
// of the process (process.cpuUsage: the event loop, the thread pool and
// LevelDB's threads) per write, in alternating rounds (files, log, log,
// files, ...), the median of each. What chose the log's default bound (128
// KiB, docs/ARCHITECTURE.md). `node dist/bench/ost-small.js [--quick]`;
// `npm run bench -- --only ostsmall`.
import { randomFillSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32c } from '../common/checksum.js';
import { Semaphore } from '../common/semaphore.js';
import { openOst } from '../oss/store/index.js';
import { alternate } from './cpu.js';
import { type BenchResult, median, result } from './types.js';

const KiB = 1024;
const IN_FLIGHT = 16;
const SIZES = [16 * KiB, 64 * KiB, 128 * KiB, 256 * KiB];
/** The log side keeps every size of the bench in the log. */
const LOG_BOUND_BYTES = 1024 * KiB;

/** CPU ms per write of `writes` new objects of `data.length` bytes, sync, on a fresh OST. */
async function cpuPerWrite(smallObjectBytes: number, data: Buffer, writes: number): Promise<number> {
  const dir = mkdtempSync(join(process.env.STRIPEFS_BENCH_DIR ?? tmpdir(), 'stripefs-bench-ost-small-'));
  const ost = await openOst({
    dir,
    name: 'ost0',
    capacityBytes: 0,
    fsync: true,
    directIo: true,
    smallObjectBytes,
  });
  const crc = crc32c(data);
  const gate = new Semaphore(IN_FLIGHT);
  try {
    const before = process.cpuUsage();
    await Promise.all(
      Array.from({ length: writes }, (_, i) =>
        gate.run(() =>
          ost.write(
            {
              objectId: `o.${i}`,
              poolId: 1,
              pg: i % 64,
              offset: 0,
              length: data.length,
              declaredCrc: crc,
              truncate: false,
              sync: true,
              stamp: i + 1,
            },
            (async function* () {
              yield { data, crc };
            })(),
          ),
        ),
      ),
    );
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000 / writes;
  } finally {
    await ost.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runOstSmallBench({ quick }: { quick: boolean }): Promise<BenchResult[]> {
  const command = `npm run bench -- --only ostsmall${quick ? ' --quick' : ''}`;
  const writes = quick ? 500 : 2_000;
  const rounds = quick ? 2 : 4;
  const out: BenchResult[] = [];
  for (const size of SIZES) {
    const data = randomFillSync(Buffer.alloc(size));
    const cpu = { files: [] as number[], log: [] as number[] };
    const loads: number[] = [];
    await alternate(['files', 'log'] as const, rounds, async (side) => {
      cpu[side].push(await cpuPerWrite(side === 'log' ? LOG_BOUND_BYTES : 0, data, writes));
      loads.push(loadavg()[0] ?? 0);
    });
    const note = `median of ${rounds} alternating rounds of ${writes} sync writes, ${IN_FLIGHT} in flight; load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`;
    out.push(
      result(
        `ostsmall.log.write-${size / KiB}k.cpu`,
        median(cpu.log),
        'CPU ms/write',
        command,
        { value: median(cpu.files), name: `the same writes with a file per object, same run` },
        note,
      ),
    );
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await runOstSmallBench({ quick: process.argv.includes('--quick') }))
    process.stdout.write(
      `${r.id} ${r.value.toFixed(3)} (files ${r.baseline?.toFixed(3)}, ${r.ratio?.toFixed(2)}x) ${r.unit}; ${r.note}\n`,
    );
}
