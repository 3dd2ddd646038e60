// The recovery throttle is honoured: with one PG at a time and a rate set at
// run time (PUT /api/recovery), the bytes copied between the first and the
// last PG completion, over the time between them, are within 20% of the
// setting. The window is several seconds long so a PG's granularity does not
// matter. The only wall-clock assertion of the suite (the issue asks for it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { type Cluster, clusterAvailable, seededBytes } from '../client/cluster.js';
import {
  adminJson,
  MiB,
  type RecoveryAnswer,
  startRecoveryCluster,
  waitClean,
  waitOut,
  writeFiles,
} from './helpers.js';

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

describe.skipIf(!clusterAvailable())('recovery throttle', () => {
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

  it(`copies at the rate set at run time (${RATE_BYTES_PER_SEC / MiB} MiB/s, within 20%)`, async () => {
    await client.mkdir('/t');
    await writeFiles(
      client,
      Array.from({ length: 40 }, (_, i) => ({
        path: `/t/f${i}`,
        data: seededBytes(4 * MiB, SEED + i),
        layout: LAYOUT,
      })),
    );
    const set = await adminJson<RecoveryAnswer>(cluster, '/api/recovery', {
      method: 'PUT',
      body: { maxBytesPerSec: RATE_BYTES_PER_SEC, maxActivePgs: 1 },
    });
    expect(set).toMatchObject({ maxBytesPerSec: RATE_BYTES_PER_SEC, maxActivePgs: 1, paused: false });

    await cluster.oss[0]!.kill('SIGKILL');
    const outEpoch = await waitOut(cluster, 2);
    const samples: { atMs: number; bytes: number }[] = [];
    let done = false;
    const poll = (async () => {
      while (!done) {
        const r = await adminJson<RecoveryAnswer>(cluster, '/api/recovery');
        const last = samples[samples.length - 1];
        if (!last || r.totals.bytesCopied !== last.bytes)
          samples.push({ atMs: performance.now(), bytes: r.totals.bytesCopied });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await waitClean(cluster, 120_000, outEpoch);
    done = true;
    await poll;
    const first = samples.find((s) => s.bytes > 0)!;
    const last = samples[samples.length - 1]!;
    const rate = ((last.bytes - first.bytes) * 1000) / (last.atMs - first.atMs);
    console.log(
      `throttle: ${((last.bytes - first.bytes) / MiB).toFixed(1)} MiB in ${((last.atMs - first.atMs) / 1000).toFixed(1)} s = ${(rate / MiB).toFixed(2)} MiB/s (setting ${RATE_BYTES_PER_SEC / MiB})`,
    );
    // On failure: each completion as ms after the first : MiB copied by then.
    const timeline = samples
      .filter((s) => s.bytes > 0)
      .map((s) => `${Math.round(s.atMs - first.atMs)}:${(s.bytes / MiB).toFixed(1)}`)
      .join(' ');
    expect(last.atMs - first.atMs).toBeGreaterThan(3_000);
    expect(rate, timeline).toBeGreaterThan(RATE_BYTES_PER_SEC * 0.8);
    expect(rate, timeline).toBeLessThan(RATE_BYTES_PER_SEC * 1.2);
  }, 180_000);
});
