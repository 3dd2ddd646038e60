// A short seeded chaos run on a real cluster (4 OSSs in 2 racks, replicated:3
// and ec:2+2 files): writers and readers under OSS and MDS kills, pauses, a
// partition where root allows, out/in, reweights and fault knobs; then every
// PG clean and a final read of every file. The checker must find no read that
// returned bytes older than the last acknowledged write, a mix inside a unit,
// or a lost acknowledged write. STRIPEFS_SEED replays the schedule; longer
// runs: npm run chaos -- --seed S --minutes M (docs/testing.md).
//
// Skipped unless STRIPEFS_CHAOS=1: some seeds still find a scrub finding or never get clean on
// today's main (below), so it would fail some runs.
// Suite size (0.75 minutes), seeds 1-12, load 16-30 on 2 shared cores, before the re-skip fix
// below: 2, 3, 5, 6, 7, 8, 9, 10, 11 PASS (7 twice, 11 three times); 1 and 4 never clean, the
// same object both times: /chaos/l0-f1's 4.1 (PG 1/3) with a missed write's repair queued on all
// three copies (seed 1 also had read 393 return 4.1's units from before writes acknowledged 10 s
// earlier, its last unit zeros). Seed 4's MDS log: ost 0's 4.1 missed writes while ost 5's copy
// was current; ost 5 was reweighted away (a member being filled took its place); then every write
// that skipped ost 7 was acknowledged, because a skip of a copy already awaiting a repair was not
// checked again: fixed (test/recovery/pure.test.ts, the re-skip case). After it: seed 1 PASS twice,
// seed 4 PASS three times, seed 12 PASS, seed 7 (its third run today) the scrub finding below;
// seed 1's second run and seed 12's first ended with exit 2 as the faults stopped
// ("no connection: null", GetMap to an MDS started again by the last kill-mds's undo, 0.6 s before):
// the run now asks again for up to 60 s (run.ts, converge); the cause is not confirmed.
// Open (replay with the seeds; runs at load 11-30 on 2 shared cores):
//   - never clean: suite size, --seed 1 (a run whose MDS restarts picked up the re-skip fix, with
//     holder changes logged): PG 1/8, /chaos/l0-f2's 5.1, a repair queued on every holder. The
//     chain: ost 6's copy missed writes (accepted: osts 1 and 4 current); ost 1 reweighted away,
//     ost 0's fill listed the PG on ost 6 (the first source placed) and took the slices from ost 1
//     (ost 6 refuses them), so ost 0 inherited a repair of 5.1 (Repairs.fillInherits: its size and
//     version came from ost 6's listing, rightly); ost 1 back, ost 4 out, ost 1's fill the same way
//     (listed on ost 6, slices from ost 4): it inherited one too, and ost 4 held the only copy
//     awaiting nothing; ost 4 in again: a returning holder, so withoutReturning (mds/recovery/holders.ts) made
//     it a fill target (record [0, 6, 1]); its fill fails on every retry (every source refuses
//     5.1), and no repair has a source. Hypothesis for a fix: a replicated fill takes each object's
//     size and version from a source whose copy awaits no repair (the MDS names each source's
//     missed objects in RecoverPg, or ranks such sources after old holders), so the target gets a
//     current copy and inherits nothing; keeping the returning holder instead is wrong (it missed
//     the writes made while it was out). Not done: it changes RecoverPg and the fill's source order.
//   - seed 4's first run also left ec PG 2/4 degraded: 7.0.c0 on ost 2, 7.0.c1 on ost 0 and
//     7.0.c3 on ost 6 queued, the repair of c1 refused ("block 5 holds a newer write than the
//     copy's": the write hole, which the settle's rewrite should close). Not looked at further.
//   - suite size, --seed 7 --minutes 0.75 (the third of three runs today, after the re-skip fix:
//     parity chunk 6.0.c2 of PG 2/2 on ost 6 disagreeing with the other three, the same shape:
//     ost 6 out (epoch 25, position 2 to ost 7, on the same host), writes recorded as skipping
//     ost 7's 6.0.c2 while its OSS was paused, ost 6 in (epoch 26, position 2 placed back, ost 7
//     its fill-only source, ost 7's missed writes queued for ost 6 too), MDS restarts at 36 s and
//     53 s of its log; no read violation; not diagnosed). The first time: no read violation,
//     but the deep scrub after clean
//     finds ec parity chunk 7.0.c3 (PG 2/4) on ost 6 disagreeing with the other three, after
//     position 3 was placed back on ost 6 and its fill merged ost 2's chunk into ost 6's block by
//     block (blocks 2-4 kept from ost 6's own client write made at the epoch that placed it back,
//     newer than ost 2's), two fill attempts having failed with "no 2 chunks of one write".
//     Not diagnosed.
//   - never clean: --seed 4 --minutes 3 (after the fixes below): 3 PGs remapped for 10 minutes,
//     5 missed-write repairs queued and never started (1/7: 3.0 and 3.1 on ost 0; 1/3: 4.1 on
//     osts 0 and 7; 2/4: 7.0.c3 on ost 6) and 2 copies awaiting a full backfill: no source for
//     them (the class seen before: every copy of an object awaits something): 4.1 is the object
//     the suite-size seeds 1 and 4 left so above; not run again since the re-skip fix.
//   - never clean: suite size, --seed 11 --minutes 0.75 (not seen in 3 runs on this code): after
//     the faults, 1 PG unfound for 10
//     minutes (no up holder in its record), 1 copy awaiting a full backfill, no repair queued and no
//     task running. Not diagnosed.
//   - never clean in 10 minutes (before these fixes, not run again): ec PGs with several chunk
//     positions moving at once and a chunk awaiting a missed write's repair (--seed 2 --minutes 3:
//     PG 2/4, fills of positions 0 and 3, ost 0's chunk 1 awaiting repair).
//   - ec: --seed 8 --minutes 3 once found 2 stale units in one read (/chaos/l1-f1 read 740 got
//     write 689, which failed, after 735, as ost 2 came back in after an MDS restart); not seen
//     again, not shown to be one of the paths fixed below.
//   Runs on this code, 3 minutes each: --seed 6 PASS (897 writes acknowledged), --seed 8 PASS
//   (588), --seed 1 PASS (1,422), --seed 3 PASS (102: MDS restarts took 5-15 s at load 20),
//   --seed 2 PASS after the last fix below (1,040; before it: 13 stale units, that fix's anomaly),
//   --seed 4 never clean (above); suite size (0.75 minutes): --seed 7 the scrub finding above,
//   --seed 11 never clean (above).
//   A replay repeats the faults, not their timing against the IO: one pass per seed is no proof.
// Fixed, each pinned by its own test: a copy served with the bytes from before a missed write
// while each attempt at its repair ran (its OSS forgot the mark: the answers listed queued repairs
// only; --seed 6 --minutes 3 replayed with per-write logs: a fill copied 3.0 from ost 0 during
// its repair, and readers of the filled copy got /chaos/l0-f0 units from before writes
// acknowledged seconds earlier; the earlier run's 53 stale units in l0-f0 and l0-f1, write 3866
// lost from every copy, fit it but had too few logs to show it;
// test/recovery/repair-running.test.ts); a fill
// from a source whose copy missed a write, its target then serving that copy as whole (a short
// copy when the slices came from the next source: a likely path to --seed 8's zeros in the last
// unit of /chaos/l0-f1, not confirmed from its logs; test/recovery/fill-inherits.test.ts); a
// failed ec fill deleting the chunk a client write had put on its target meanwhile, the retry
// serving the stripe's old chunk (--seed 2 --minutes 3, /chaos/l1-f1, PG 2/4 placed back on
// ost 2; test/oss/recover-keeps-writes.test.ts); ec units rebuilt from chunks of two
// writes (test/client/ec-one-write.test.ts); replicated zeros after a
// reweight (test/recovery/fill-target.test.ts); PGs remapped for good by an
// ec fill refused as older (fill-target, the ec case); a missed write's
// repair given up (test/recovery/pure.test.ts); every write to a file
// failing after one failed fsync (test/recovery/not-durable.test.ts); PGs
// degraded for good with every copy of an object awaiting repair (suite
// seeds 2 and 3; test/recovery/pure.test.ts, IO_COPIES_STALE); a replicated
// OST placed back before its PG's fill elsewhere was done serving the bytes
// from before (--seed 2, 4, 8 --minutes 3; pure.test.ts); a read made with
// the map from before a PG moved served by its old holder (suite seed 7,
// read 650; fill-target.test.ts), also by an OSS that was stopped while the
// PG moved (suite seed 7; the same test's rule, map-view gap); a skip of an
// old holder recorded and the write acknowledged while the member placed
// instead never had it (suite seed 7; pure.test.ts, MAP_STALE); an ec
// repair of a new member's chunk from the old holder of its position,
// failing on every retry (--seed 4, 8 --minutes 3; pure.test.ts, the
// sources of a repair); an ec fill listing a group twice (a chunk of it
// left at another position), refused on every retry (--seed 8 --minutes 3;
// test/recovery/ec-slice.test.ts); an OSS that had not yet applied the map
// that moved a PG off its OST (cut off by a partition, its read lease still
// holding, or its lease renewed before the map came) serving a reader still on
// the older map the bytes from before the writes made since (--seed 6
// --minutes 3: ost 5 out while oss3 was cut off; test/recovery/map-fence.test.ts,
// the write fence, and test/oss/lease-map.test.ts); an ec position placed
// back on its OST before its PG's fill elsewhere was done serving the chunks
// from before the writes made meanwhile (--seed 8, suite seed 7, --seed 6;
// test/recovery/ec-returning.test.ts), and that OST's fill skipped while its
// PG had fewer up holders than k (the same test, second case); a write's skip
// answered before the skipped copy's OSS refused it, so a writer whose map
// was behind acknowledged while the old copy was served
// (test/recovery/skip-told.test.ts).
// Run it: STRIPEFS_CHAOS=1 npx vitest run test/chaos/chaos.test.ts
import { expect, it } from 'vitest';
import { suiteSeed } from '../faults/workload.js';
import { runChaos } from './run.js';

const SEED = suiteSeed('chaos');
const ENABLED = process.env.STRIPEFS_CHAOS === '1';
if (!ENABLED)
  console.log(
    'chaos run SKIPPED: some seeds still never get clean or find an ec parity chunk that disagrees after clean, on this code (see the comment at the top of test/chaos/chaos.test.ts); STRIPEFS_CHAOS=1 runs it',
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
