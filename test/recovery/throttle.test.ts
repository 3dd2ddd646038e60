// The recovery throttle is honoured: with one PG at a time and a rate set at
// run time (PUT /api/recovery), the bytes copied between the first and the
// last PG completion never exceed the setting over the time between them
// (plus the catch-up the pacer may grant, bounded by recoveryPaceLagMsMax). A slower machine can
// only copy less, so this holds at any load; how close recovery comes to the
// setting is a speed figure, measured in bench/recovery.ts. The pacing
// arithmetic itself is pinned with fake timers in pacing.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { LIMITS } from '../../common/limits.js';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, waitCleanPgs, waitOut } from '../helpers/cluster.js';
import { MiB, type RecoveryAnswer, startRecoveryCluster, writeFiles } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery throttle seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const RATE_BYTES_PER_SEC = 4 * MiB;
const LAYOUT: Layout = {
  pattern: 'replicated',
  stripeSize: 256 * 1024,
  stripeCount: 4,
  replicas: 2,
  failureDomain: 'host',
};

describe('recovery throttle', () => {
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    cluster = await startRecoveryCluster({ STRIPEFS_MDS_PG_COUNT: '16' }); // big PGs: per-task overhead stays small
    client = await StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      limits: { cacheBytesMax: 0 },
    });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  it(`copies no faster than the rate set at run time (${RATE_BYTES_PER_SEC / MiB} MiB/s)`, async () => {
    await client.mkdir('/t');
    await writeFiles(
      client,
      Array.from({ length: 40 }, (_, i) => ({
        path: `/t/f${i}`,
        data: seededBytes(4 * MiB, SEED + i),
        layout: LAYOUT,
      })),
    );
    const set = await cluster.admin<RecoveryAnswer>('/api/recovery', {
      method: 'PUT',
      body: { maxBytesPerSec: RATE_BYTES_PER_SEC, maxActivePgs: 1 },
    });
    expect(set).toMatchObject({ maxBytesPerSec: RATE_BYTES_PER_SEC, maxActivePgs: 1, paused: false });

    await cluster.oss[0]!.kill('SIGKILL');
    const outEpoch = await waitOut(cluster.mdsAddress, 2);
    // Each sample brackets the MDS's answer: asked before it, answered after it. The window
    // runs from the first one's asking to the last one's answer, so it is never shorter than
    // the time the bytes took, and the rate it gives never higher than the true one.
    const samples: { askedMs: number; answeredMs: number; bytes: number }[] = [];
    let done = false;
    const poll = (async () => {
      while (!done) {
        const askedMs = performance.now();
        const r = await cluster.admin<RecoveryAnswer>('/api/recovery');
        const last = samples[samples.length - 1];
        if (!last || r.totals.bytesCopied !== last.bytes)
          samples.push({ askedMs, answeredMs: performance.now(), bytes: r.totals.bytesCopied });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await waitCleanPgs(cluster, { timeoutMs: 120_000, minEpoch: outEpoch });
    done = true;
    await poll;
    const first = samples.find((s) => s.bytes > 0)!;
    const last = samples[samples.length - 1]!;
    const windowMs = last.answeredMs - first.askedMs;
    const copied = last.bytes - first.bytes;
    console.log(
      `throttle: ${(copied / MiB).toFixed(1)} MiB in ${(windowMs / 1000).toFixed(1)} s = ${((copied * 1000) / windowMs / MiB).toFixed(2)} MiB/s (setting ${RATE_BYTES_PER_SEC / MiB})`,
    );
    // On failure: each completion as ms after the first : MiB copied by then.
    const timeline = samples
      .filter((s) => s.bytes > 0)
      .map((s) => `${Math.round(s.askedMs - first.askedMs)}:${(s.bytes / MiB).toFixed(1)}`)
      .join(' ');
    // Several PGs were copied after the first: the window is not one PG's granularity.
    expect(samples.filter((s) => s.bytes > first.bytes).length, timeline).toBeGreaterThanOrEqual(3);
    // Catch-up is bounded twice by the lag limit: the MDS's credit and the OSS limiter's own.
    const allowedBytes = (RATE_BYTES_PER_SEC * (windowMs + 2 * LIMITS.recoveryPaceLagMsMax)) / 1000;
    expect(copied, timeline).toBeLessThanOrEqual(allowedBytes);
  });
});
