// A short seeded chaos run on a real cluster (4 OSSs in 2 racks, replicated:3
// and ec:2+2 files): writers and readers under OSS and MDS kills, pauses, a
// partition where root allows, out/in, reweights and fault knobs; then every
// PG clean and a final read of every file. The checker must find no read that
// returned bytes older than the last acknowledged write, a mix inside a unit,
// or a lost acknowledged write. STRIPEFS_SEED replays the schedule; longer
// runs: npm run chaos -- --seed S --minutes M (docs/testing.md).
//
// Skipped unless STRIPEFS_CHAOS=1: it still finds stale reads on today's
// main (below), so it would fail some runs. Open (replay with the seeds):
//   - a PG placed back on an OST it had left (out then in, a reweight and
//     back) before its fill elsewhere was done: the returning OST serves the
//     bytes from before the writes made meanwhile (they went to the members
//     placed instead; its holder record is dropped as settled).
//     npm run chaos -- --seed 2 --minutes 3 (ost 6 out, replicated
//     /chaos/l0-f2); --seed 1 --minutes 3 (ost 3 out and its OSS paused,
//     ec /chaos/l1-f0); STRIPEFS_SEED=7 (ost 6 reweighted to 0 and back).
//     Also --seed 4 and --seed 8 --minutes 3 (reweights of ost 6 and back).
//   - a write acknowledged as a reweight begins, then a read that returns the
//     write before it (STRIPEFS_SEED=7, read 650, reweight of ost 4 to 0).
//   - never clean in 10 minutes (--seed 4 and --seed 8 --minutes 3): two ec
//     PGs with a chunk position moving (old holder 7, new member 0 or 6) whose
//     fill fails on every retry; with seed 8 the new members' chunks also have
//     missed-write repairs queued (25 attempts). The MDS logs (--logs DIR) say
//     why a task failed.
// Fixed, each pinned by its own test: ec units rebuilt from chunks of two
// writes (test/client/ec-one-write.test.ts); replicated zeros after a
// reweight (test/recovery/fill-target.test.ts); PGs remapped for good by an
// ec fill refused as older (fill-target, the ec case); a missed write's
// repair given up (test/recovery/pure.test.ts); every write to a file
// failing after one failed fsync (test/recovery/not-durable.test.ts); PGs
// degraded for good with every copy of an object awaiting repair (suite
// seeds 2 and 3; test/recovery/pure.test.ts, IO_COPIES_STALE).
// Run it: STRIPEFS_CHAOS=1 npx vitest run test/chaos/chaos.test.ts
import { expect, it } from 'vitest';
import { suiteSeed } from '../faults/workload.js';
import { runChaos } from './run.js';

const SEED = suiteSeed('chaos');
const ENABLED = process.env.STRIPEFS_CHAOS === '1';
if (!ENABLED)
  console.log(
    'chaos run SKIPPED: it finds stale reads after an OST out and back in on this code (see the comment at the top of test/chaos/chaos.test.ts); STRIPEFS_CHAOS=1 runs it',
  );
/** Writers, readers and faults run this long; set-up and convergence come on top. */
const FAULTS_MS = 45_000;

it.skipIf(!ENABLED)(
  'a seeded chaos run: every read returns acknowledged or in-flight bytes, nothing acknowledged is lost',
  {
    timeout: 900_000,
  },
  async () => {
    const result = await runChaos({
      seed: SEED,
      durationMs: FAULTS_MS,
      hosts: 4,
      writers: 3,
      readers: 2,
      partition: true,
      log: (line) => console.log(`[chaos ${SEED}] ${line}`),
    });
    const c = result.counts;
    console.log(
      `[chaos ${SEED}] ${c.writesOk} writes acknowledged, ${c.writesFailed} failed; ${c.readsOk} reads (${c.unitsChecked} units), ${c.readsFailed} failed; ${result.faultsApplied} of ${result.schedule.length} faults applied; history ${result.historyPath}`,
    );
    expect(result.report, `seed ${SEED}: replay with STRIPEFS_SEED=${SEED}`).toEqual([]);
    // The run did something worth checking: writes acknowledged, reads checked, faults applied.
    expect(c.writesOk).toBeGreaterThan(0);
    expect(c.readsOk).toBeGreaterThan(0);
    expect(c.unitsChecked).toBeGreaterThan(0);
    expect(result.faultsApplied).toBeGreaterThan(0);
  },
);
