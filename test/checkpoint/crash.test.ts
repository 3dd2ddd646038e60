// Savers killed on purpose: a writer process SIGKILLed at seeded points of a
// save (while staging, uploading, flushing, writing the manifest, around the
// publishing rename, or a seeded delay after its save began) leaves the previous checkpoint
// as latest() and nothing partial visible; gc then collects its remains, in
// the cluster and on the local staging disk. And an OSS SIGKILLed in the
// middle of a save (the pool's min_size still holds) does not stop the save
// from publishing a complete checkpoint.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Checkpoints, checkpoints, STAGING_DIR } from '../../checkpoint/index.js';
import type { Layout, StripeClient } from '../../client/index.js';
import { type Random, seededRandom, seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { waitForOsts } from '../helpers/cluster.js';
import { expectSameParts, KiB, MiB, type PartSpec, suiteCluster } from './helpers.js';
import { type SaverConfig, type SaverEvent, startSaver } from './saver.js';

const SEED = seedFromEnv();
console.log(`checkpoint crash seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * KiB;
const LAYOUT: Layout = {
  pattern: 'replicated',
  stripeSize: S,
  stripeCount: 4,
  replicas: 2,
  failureDomain: 'host',
};
/** Rounds cycle through the three ways to save, and through the four kinds of kill point. */
const ROUNDS = 12;
const MODES = ['sync', 'async in memory', 'async on disk'] as const;
const LATE_PHASES = ['staged', 'returned', 'flushed', 'manifest', 'publishing', 'published'];

/** Where a round kills its saver: at the first event of a phase (past a fraction of the bytes), or after a delay. */
type KillPoint = { phase: string; fraction: number } | { delayMs: number };

function killPoint(random: Random, kind: number): KillPoint {
  const pick = kind % 4;
  if (pick === 0) return { delayMs: random.int(1500) };
  if (pick === 1) return { phase: 'staging', fraction: random.next() };
  if (pick === 2) return { phase: 'uploading', fraction: random.next() };
  return { phase: LATE_PHASES[random.int(LATE_PHASES.length)] as string, fraction: 0 };
}

function reached(point: KillPoint, e: SaverEvent, totalBytes: number): boolean {
  if ('delayMs' in point || e.phase !== point.phase) return false;
  const bytes = e.phase === 'staging' ? (e.stagedBytes ?? 0) : (e.uploadedBytes ?? 0);
  return bytes >= point.fraction * totalBytes;
}

/** The parts of one step, cut from one local data file: sizes seeded, some saved as file streams. */
function stepParts(
  random: Random,
  step: number,
  folder: string,
): { specs: PartSpec[]; config: SaverConfig['parts']; dataPath: string } {
  const count = 4 + random.int(12);
  const sizes = Array.from({ length: count }, () => random.int(MiB));
  const data = seededBytes(
    sizes.reduce((a, b) => a + b, 0),
    SEED + step,
  );
  const dataPath = join(folder, `step-${step}.bin`);
  writeFileSync(dataPath, data);
  const specs: PartSpec[] = [];
  const config: SaverConfig['parts'] = [];
  let at = 0;
  for (const [i, bytes] of sizes.entries()) {
    specs.push({ name: `s${step}/t${i}`, data: data.subarray(at, at + bytes) });
    config.push([`s${step}/t${i}`, at, bytes, random.int(2) === 0]);
    at += bytes;
  }
  return { specs, config, dataPath };
}

/** Every listed checkpoint is whole and identical to what its saver was given; nothing else is visible. */
async function expectOnlyWhole(
  ck: Checkpoints,
  client: StripeClient,
  saved: Map<number, PartSpec[]>,
): Promise<number[]> {
  const steps = (await ck.list()).map((c) => c.step);
  for (const step of steps) expectSameParts(await ck.load(step), saved.get(step) as PartSpec[]);
  const visible = (await client.readdir(ck.dir)).filter((n: string) => !n.startsWith('.')).sort();
  expect(visible).toEqual(steps.map((s) => `step-${String(s).padStart(10, '0')}`));
  return steps;
}

describe('checkpoint savers and OSSs killed mid-save', () => {
  const env = suiteCluster(SEED);

  it(`a saver SIGKILLed at ${ROUNDS} seeded points leaves the previous checkpoint latest and nothing partial`, {
    timeout: 300_000,
  }, async () => {
    const random = seededRandom(SEED);
    const dir = '/crash';
    const stagingDir = join(env.folder, 'local-staging');
    mkdirSync(stagingDir);
    const ck = checkpoints(env.client, dir, { layout: LAYOUT });
    const saved = new Map<number, PartSpec[]>();
    const first = stepParts(random, 1, env.folder);
    await ck.save(
      1,
      first.specs.map((s) => [s.name, s.data] as [string, Buffer]),
    );
    saved.set(1, first.specs);
    let step = 1;
    for (let round = 0; round < ROUNDS; round++) {
      const previous = (await ck.latest())?.step;
      step++;
      const parts = stepParts(random, step, env.folder);
      saved.set(step, parts.specs);
      const totalBytes = parts.specs.reduce((n, s) => n + s.data.length, 0);
      const point = killPoint(random, round);
      const mode = MODES[round % MODES.length] as (typeof MODES)[number];
      const async = mode !== 'sync';
      const config: SaverConfig = {
        mds: env.cluster.mdsAddress,
        dir,
        layout: LAYOUT,
        step,
        async,
        keepLast: 4,
        dataPath: parts.dataPath,
        parts: parts.config,
        ...(mode === 'async on disk' ? { stagingDir } : {}),
      };
      let timer: NodeJS.Timeout | undefined;
      const saver = startSaver(config, (e, s) => {
        if (reached(point, e, totalBytes)) s.child.kill('SIGKILL');
        // A delay counts from the save's first event: a loaded machine may take seconds to start the process.
        if ('delayMs' in point && !timer) timer = setTimeout(() => s.child.kill('SIGKILL'), point.delayMs);
      });
      const { signal } = await saver.exited;
      clearTimeout(timer);
      const phases = new Set(saver.events.map((e) => e.phase));
      console.log(
        `round ${round}: step ${step}, ${mode}, kill at ${JSON.stringify(point)}: ${signal ?? 'finished'} after ${saver.events.at(-1)?.phase}`,
      );
      expect(phases.has('failed'), 'the saver failed on its own').toBe(false);
      const latest = (await ck.latest())?.step;
      if (!phases.has('publishing')) expect(latest).toBe(previous);
      else if (phases.has('published')) expect(latest).toBe(step);
      else expect([previous, step]).toContain(latest);
      await expectOnlyWhole(ck, env.client, saved);
    }
    // Remains of the killed saves are collected, and the next save goes through.
    const localRemains = readdirSync(stagingDir).length;
    const report = await checkpoints(env.client, dir, { stagingDir }).gc({ olderThanMs: 0 });
    expect(report.stagingKept).toEqual([]);
    expect(await env.client.readdir(`${dir}/${STAGING_DIR}`)).toEqual([]);
    expect(report.localRemoved.length).toBe(localRemains);
    expect(readdirSync(stagingDir)).toEqual([]);
    step++;
    const last = stepParts(random, step, env.folder);
    await ck.save(
      step,
      last.specs.map((s) => [s.name, s.data] as [string, Buffer]),
    );
    saved.set(step, last.specs);
    expect((await ck.latest())?.step).toBe(step);
    await expectOnlyWhole(ck, env.client, saved);
  });

  for (const [name, layout] of [
    [
      'replicated:3',
      { pattern: 'replicated', stripeSize: S, stripeCount: 6, replicas: 3, failureDomain: 'host' },
    ],
    ['ec:4+2', { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' }],
  ] as [string, Layout][]) {
    it(`${name}: an OSS SIGKILLed while a save uploads; the save still publishes a complete checkpoint`, async () => {
      const ck = checkpoints(env.client, `/oss-kill-${name.replace(/\W/g, '')}`, { layout });
      const specs = Array.from({ length: 16 }, (_, i) => ({
        name: `w${i}`,
        data: seededBytes(1.5 * MiB + i * 7, SEED + 100 + i),
      }));
      const victim = seededRandom(SEED + 7).int(env.cluster.oss.length);
      let killed: Promise<void> | undefined;
      const handle = await ck.save(
        1,
        specs.map((s) => [s.name, s.data] as [string, Buffer]),
        {
          async: true,
          onProgress: (e) => {
            if (!killed && e.uploadedBytes > 6 * MiB) killed = env.cluster.oss[victim]?.kill();
          },
        },
      );
      const result = await handle.durable;
      expect(killed, 'the OSS was killed during the upload').toBeDefined();
      await killed;
      expect(result.bytes).toBe(specs.reduce((n, s) => n + s.data.length, 0));
      expectSameParts(await ck.load(1), specs);
      expect((await ck.verify(1)).ok).toBe(true);
      await env.cluster.restartOss(victim);
      await waitForOsts(env.cluster.mdsAddress, 12);
    });
  }
});
