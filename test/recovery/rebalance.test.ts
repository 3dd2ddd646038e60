// Rebalance: an OSS with two OSTs joins a loaded cluster. The data that
// moves is compared with (a) what the placement change requires (the copies
// the new placement has that the old one did not: recovery's own estimate
// before it starts, so any extra copying shows) and (b) the theoretical
// minimum from the weights (the new OSTs' share of all stored bytes). Every
// file reads byte-exact during the move and after it; raid0 files have one
// copy, so their reads during the move prove the client finds data that has
// not moved yet on the PG's old holders (GetPgHolders).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { connectReader, seededBytes } from '../helpers/clients.js';
import { type Cluster, type PgsAnswer, waitCleanPgs, waitForOsts } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import type { StartedProcess } from '../helpers/process.js';
import {
  MiB,
  type RecoveryAnswer,
  startExtraOss,
  startRecoveryCluster,
  waitUsageReported,
  writeFiles,
} from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery rebalance seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const MOVING: Record<string, Layout> = {
  rep2: { pattern: 'replicated', stripeSize: S, stripeCount: 8, replicas: 2, failureDomain: 'host' },
  ec42: { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' },
};
const RAID0: Layout = { pattern: 'raid0', stripeSize: S, stripeCount: 4 };
const FILES = 40;
/** Slow enough that the reads below run while the move does (about 5 s here). */
const MOVE_BYTES_PER_SEC = 4 * MiB;

interface ClusterAnswer {
  epoch: number;
  counts: { usedBytes: number };
  map: { osts: { id: number; weight: number; host: string }[] };
}

describe('rebalance when an OSS joins', () => {
  let cluster: Cluster;
  let client: StripeClient;
  let extra: StartedProcess | undefined;
  const files = new Map<string, Buffer>();

  beforeAll(async () => {
    cluster = await startRecoveryCluster({ STRIPEFS_MDS_PG_COUNT: '128' });
    client = await connectReader(cluster.mdsAddress, SEED);
  });
  afterAll(async () => {
    await client?.close();
    await extra?.stop();
    await cluster?.stop();
  });

  it('moves close to the minimum and every file reads during and after the move', async () => {
    let n = 0;
    const writes: { path: string; data: Buffer; layout: Layout }[] = [];
    for (const [name, layout] of [...Object.entries(MOVING), ['raid0', RAID0] as const]) {
      await client.mkdir(`/${name}`);
      for (let i = 0; i < FILES; i++) {
        const data = seededBytes(256 * 1024 + ((n * 104729) % (768 * 1024)), SEED + n++);
        writes.push({ path: `/${name}/f${i}`, data, layout });
        files.set(`/${name}/f${i}`, data);
      }
    }
    await writeFiles(client, writes);
    await cluster.admin('/api/recovery', {
      method: 'PUT',
      body: { paused: true, maxBytesPerSec: MOVE_BYTES_PER_SEC },
    });
    const before = await waitUsageReported<ClusterAnswer>(cluster);
    const copiedBefore = (await cluster.admin<RecoveryAnswer>('/api/recovery')).totals.bytesCopied;

    extra = await startExtraOss(cluster, { ossId: 'oss6', host: 'h6', rack: 'r3' });
    await waitForOsts(cluster.mdsAddress, 14);
    const after = await cluster.admin<ClusterAnswer>('/api/cluster');
    const newWeight = after.map.osts.filter((o) => o.host === 'h6').reduce((s, o) => s + o.weight, 0);
    const totalWeight = after.map.osts.reduce((s, o) => s + o.weight, 0);
    const idealBytes = (before.counts.usedBytes * newWeight) / totalWeight;
    const required = await eventually(
      async () => {
        const pgs = await cluster.admin<PgsAnswer>('/api/pgs');
        return (pgs.recovery as { unestimatedTargets?: number }).unestimatedTargets === 0 ? pgs : undefined;
      },
      { timeoutMs: 60_000, what: 'every remapped PG target estimated', intervalMs: 200 },
    );
    expect(required.byState.remapped).toBeGreaterThan(0);
    const requiredBytes = required.recovery.bytesLeft;
    // Recovery is still paused: nothing has moved, so every remapped PG's data
    // is only on its old holders, and every file must still read exactly.
    for (const [path, data] of files) {
      expect((await client.readFile(path)).equals(data), `${path} before the move`).toBe(true);
    }
    expect(client.stats().degradedReads).toBeGreaterThan(0);

    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
    const moving = await cluster.admin<PgsAnswer>('/api/pgs');
    expect(moving.byState.clean).toBeLessThan(moving.total); // the reads below start during the move
    let readsDuring = 0;
    // raid0 first: one copy each, read from the old holders while their PGs move.
    const raid0First = [...files].sort(
      ([a], [b]) => Number(b.startsWith('/raid0/')) - Number(a.startsWith('/raid0/')),
    );
    for (const [path, data] of raid0First) {
      expect((await client.readFile(path)).equals(data), `${path} during the move`).toBe(true);
      readsDuring++;
    }
    const midway = await cluster.admin<PgsAnswer>('/api/pgs');
    await waitCleanPgs(cluster, { timeoutMs: 120_000, minEpoch: after.epoch });
    for (const [path, data] of files)
      expect((await client.readFile(path)).equals(data), `${path} after`).toBe(true);
    const moved = (await cluster.admin<RecoveryAnswer>('/api/recovery')).totals.bytesCopied - copiedBefore;
    console.log(
      `rebalance: stored ${(before.counts.usedBytes / MiB).toFixed(1)} MiB, moved ${(moved / MiB).toFixed(2)} MiB; ` +
        `placement change requires ${(requiredBytes / MiB).toFixed(2)} MiB (x${(moved / requiredBytes).toFixed(3)}), ` +
        `weight minimum ${(idealBytes / MiB).toFixed(2)} MiB (x${(moved / idealBytes).toFixed(3)}); ` +
        `${readsDuring} files read during the move (states then ${JSON.stringify(midway.byState)})`,
    );
    expect(moved).toBeGreaterThan(0);
    expect(moved / requiredBytes).toBeLessThanOrEqual(1.25);
    expect(moved / idealBytes).toBeLessThanOrEqual(1.25);
  });
});
