// Phased weight changes. `stripefs ost reweight 0 0 --step W/3` drains ost0
// in three steps, and an OSS that joins a cluster with mds.newOstWeightSteps 3
// starts its OSTs at a third of their weight and raises it in two more steps.
// With recovery paused after the first step the phase holds (waiting for
// clean) over several ticks, and goes on once recovery resumes. The map
// history (every epoch, read back by GetMap) shows each intermediate weight,
// in order, one epoch per step, and the final weight; a poller reads a file
// between its polls until the phase is done; `stripefs health` shows the
// phase; every file reads byte-exact throughout and after. Background deep
// scrubs (mds.scrubIntervalMs) run meanwhile: they start on their own, skip
// the PGs that are moving (the paused step holds some until one is skipped)
// and find nothing wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { runCli } from '../helpers/cli.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, type PgsAnswer, waitCleanPgs, waitForOsts } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import type { StartedProcess } from '../helpers/process.js';
import {
  type EpochWeights,
  startExtraOss,
  startRecoveryCluster,
  weightHistory,
  writeFiles,
} from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery phases seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const LAYOUTS: Layout[] = [
  { pattern: 'replicated', stripeSize: S, stripeCount: 4, replicas: 2, failureDomain: 'host' },
  { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' },
  { pattern: 'raid0', stripeSize: S, stripeCount: 2 },
];
const FILES = 36;
/** Background deep scrubs run beside the phases (a scrubbing PG counts as clean). */
const BACKGROUND_SCRUB_MS = 1_500;
/** Polls (250 ms apart, so several phase ticks) during which a paused recovery must hold the phase. */
const PAUSED_POLLS = 8;
/** Polls the pause may last at most while waiting for a background scrub to skip a held PG. */
const PAUSED_POLLS_MAX = 240;

interface ScrubTasks {
  tasks: {
    id: number;
    trigger: string;
    state: string;
    errorsFound: number;
    pgsDone: number;
    pgsSkipped: number;
  }[];
}

interface ClusterAnswer {
  epoch: number;
  map: { osts: { id: number; weight: number; host: string }[] };
}

interface Sample {
  weights: Map<number, number>;
  settled: boolean;
}

interface PhaseAnswer {
  ostId: number;
  currentWeight: number;
  targetWeight: number;
  stepsDone: number;
  stepsTotal: number;
  trigger: string;
  waitingForClean: boolean;
}

describe('phased weight changes', () => {
  let cluster: Cluster;
  let client: StripeClient;
  let extra: StartedProcess | undefined;
  const files = new Map<string, Buffer>();

  beforeAll(async () => {
    cluster = await startRecoveryCluster({
      STRIPEFS_MDS_NEW_OST_WEIGHT_STEPS: '3',
      STRIPEFS_MDS_SCRUB_INTERVAL_MS: String(BACKGROUND_SCRUB_MS),
    });
    client = await StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      limits: { cacheBytesMax: 0 },
    });
    await client.mkdir('/p');
    for (let i = 0; i < FILES; i++)
      files.set(`/p/f${i}`, seededBytes(200 * 1024 + ((i * 7919) % (300 * 1024)), SEED + i));
    await writeFiles(
      client,
      [...files].map(([path, data], i) => ({ path, data, layout: LAYOUTS[i % LAYOUTS.length]! })),
    );
  });
  afterAll(async () => {
    await client?.close();
    await extra?.stop();
    await cluster?.stop();
  });

  /** Polls the map and PG states until `done` says so; reads every file between polls. */
  async function watch(done: (s: Sample) => boolean): Promise<{ samples: Sample[]; reads: number }> {
    const samples: Sample[] = [];
    let reads = 0;
    for (let round = 0; ; round++) {
      const map = await cluster.admin<ClusterAnswer>('/api/cluster');
      const pgs = await cluster.admin<PgsAnswer>('/api/pgs');
      const sample = {
        weights: new Map(map.map.osts.map((o) => [o.id, o.weight])),
        settled: (pgs.byState.clean ?? 0) + (pgs.byState.scrubbing ?? 0) === pgs.total,
      };
      samples.push(sample);
      if (done(sample)) return { samples, reads };
      const path = `/p/f${round % FILES}`;
      expect((await client.readFile(path)).equals(files.get(path)!), `${path} during the phase`).toBe(true);
      reads++;
    }
  }

  /** The weights an OST went through in the map history, in epoch order. */
  function weightsSeen(history: EpochWeights[], ostId: number): number[] {
    const seen: number[] = [];
    for (const h of history) {
      const w = h.weights.get(ostId);
      if (w !== undefined && seen[seen.length - 1] !== w) seen.push(w);
    }
    return seen;
  }

  /** Why background scrubs skipped PGs so far, one reason per skipped PG. */
  async function backgroundSkips(): Promise<string[]> {
    const { tasks } = await cluster.admin<ScrubTasks>('/api/scrub');
    const reasons: string[] = [];
    for (const t of tasks.filter((x) => x.trigger === 'background' && x.pgsSkipped > 0)) {
      const full = await cluster.admin<{ skipped: { reason: string }[] }>(`/api/scrub/${t.id}`);
      reasons.push(...full.skipped.map((k) => k.reason));
    }
    return reasons;
  }

  it('drains an OST in steps, each once the cluster is clean, reads working throughout', async () => {
    const start = await cluster.admin<ClusterAnswer>('/api/cluster');
    const weight = start.map.osts.find((o) => o.id === 0)!.weight;
    const step = weight / 3;
    const flags = ['--mds', cluster.mdsAddress, '--admin', cluster.mdsAdminUrl];
    // Recovery paused: the first step is taken (the cluster is clean), then the data
    // it moves stays where it was, and no further step may come while that lasts:
    // over several phase ticks, and until a background scrub has met a held PG.
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
    const res = await runCli(['ost', 'reweight', '0', '0', '--step', String(step), ...flags]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/in steps of/);
    let skips: string[] = [];
    const movingSkipped = () => skips.some((reason) => reason.startsWith('moving'));
    for (let tick = 0; tick < PAUSED_POLLS || !movingSkipped(); tick++) {
      expect(tick, 'a background scrub skipped a PG held by the paused step').toBeLessThan(PAUSED_POLLS_MAX);
      const health = await cluster.admin<{ phases: PhaseAnswer[] }>('/api/health');
      expect(health.phases.map((p) => [p.ostId, p.targetWeight, p.stepsDone, p.stepsTotal])).toEqual([
        [0, 0, 1, 3],
      ]);
      expect(health.phases[0]!.currentWeight).toBeCloseTo(weight - step, 9);
      expect(health.phases[0]!.waitingForClean).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 250));
      skips = await backgroundSkips();
    }
    // The phase is held here, so `stripefs health` is sure to show it.
    const text = await runCli(['health', ...flags]);
    expect(text.stdout).toMatch(/reweight ost0: [\d.]+ -> 0\.0000, step 1\/3/);
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
    const { samples, reads } = await watch((s) => s.weights.get(0) === 0 && s.settled);
    const seen = weightsSeen(await weightHistory(cluster, start.epoch), 0);
    console.log(
      `drain: weights ${seen.map((w) => w.toFixed(5)).join(' -> ')}, ${samples.length} polls, ${reads} reads`,
    );
    expect(seen.length).toBe(4);
    expect(seen[1]).toBeCloseTo(weight - step, 9);
    expect(seen[2]).toBeCloseTo(weight - 2 * step, 9);
    expect(seen[3]).toBe(0);
    await waitCleanPgs(cluster, { timeoutMs: 60_000 });
    // The phase ends at the first tick that finds the target reached and the cluster clean.
    await eventually(
      async () => (await cluster.admin<{ phases: PhaseAnswer[] }>('/api/phases')).phases.length === 0,
      { timeoutMs: 30_000, what: 'the finished phase to end' },
    );
    for (const [path, data] of files) expect((await client.readFile(path)).equals(data), path).toBe(true);
  });

  it('phases a new OSS in over mds.newOstWeightSteps steps', async () => {
    const before = await cluster.admin<ClusterAnswer>('/api/cluster');
    extra = await startExtraOss(cluster, { ossId: 'oss6', host: 'h6', rack: 'r3' });
    await waitForOsts(cluster.mdsAddress, 14); // ost0 stays up and in, with weight 0
    const joined = await cluster.admin<ClusterAnswer>('/api/cluster');
    const fresh = joined.map.osts.filter((o) => o.host === 'h6').map((o) => o.id);
    expect(fresh.length).toBe(2);
    const phases = (await cluster.admin<{ phases: PhaseAnswer[] }>('/api/phases')).phases;
    expect(phases.map((p) => p.ostId).sort()).toEqual(fresh.sort());
    expect(phases.every((p) => p.trigger === 'new-ost' && p.stepsTotal === 3)).toBe(true);
    const targets = new Map(phases.map((p) => [p.ostId, p.targetWeight]));
    const target = targets.get(fresh[0]!)!;
    const { reads } = await watch(
      (s) => fresh.every((id) => s.weights.get(id) === targets.get(id)) && s.settled,
    );
    const seen = weightsSeen(await weightHistory(cluster, before.epoch), fresh[0]!);
    console.log(
      `new OST: weights ${seen.map((w) => w.toFixed(5)).join(' -> ')}, ${reads} reads during the phase-in`,
    );
    expect(seen[0]).toBeCloseTo(target / 3, 9);
    expect(seen[1]).toBeCloseTo((2 * target) / 3, 9);
    expect(seen).toContain(target);
    expect(seen.length).toBe(3);
    await waitCleanPgs(cluster, { timeoutMs: 60_000 });
    for (const [path, data] of files) expect((await client.readFile(path)).equals(data), path).toBe(true);
  });

  it('runs background deep scrubs on its interval, skipping moving PGs', async () => {
    const tasks = await eventually(
      async () => {
        const { tasks } = await cluster.admin<ScrubTasks>('/api/scrub');
        return tasks.some((t) => t.trigger === 'background' && t.state === 'done') ? tasks : undefined;
      },
      { timeoutMs: 45_000, what: 'a finished background scrub', intervalMs: 200 },
    );
    console.log(
      `background scrubs (PGs done/skipped): ${tasks.map((t) => `${t.pgsDone}/${t.pgsSkipped}`).join(' ')}`,
    );
    expect(tasks.every((t) => t.trigger === 'background')).toBe(true);
    // A background scrub finds nothing wrong (on failure: what it found).
    const found = tasks.filter((t) => t.errorsFound > 0);
    const findings = await Promise.all(found.map((t) => cluster.admin(`/api/scrub/${t.id}`)));
    expect(found, JSON.stringify(findings)).toEqual([]);
    expect(tasks.some((t) => t.pgsDone > 0)).toBe(true);
    expect(tasks.some((t) => t.pgsSkipped > 0)).toBe(true); // the weights moved data while they ran
  });
});
