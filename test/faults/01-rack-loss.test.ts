// Scenario 1: replicated:3 across racks, SIGKILL every OSS of one rack.
//
// Cluster: 6 hosts (one OSS each, 2 OSTs), 3 racks of 2 hosts. Pool
// rep-3-rack, min_size 2.
//   workload  20 seeded files (0 B .. 1 MiB, 2 objects each), local copies kept
//   fault     SIGKILL both OSSs of rack r1 while a reader loops over the files
//   safety    every read during and after the kill returns the local copy;
//             new files are written with 2 of 3 racks (min_size) and read back;
//             with a second rack gone (1 of 3 < min_size) a write fails with
//             IO_FAILED within the retry budget and never reports success
//   converge  revive both racks: the map shows every OST up again, every
//             file, old and new, reads back identical, the copies the writers
//             skipped are re-copied by the MDS on its own, and `fsck --repair`
//             rewrites the copies the dead racks missed (exit 0 afterwards)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { runCli } from '../helpers/cli.js';
import { connectReader } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster, waitOstsState } from '../helpers/cluster.js';
import { settle } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { freePortRange } from '../helpers/ports.js';
import { suiteSeed, Workload } from './workload.js';

const SEED = suiteSeed('faults/01-rack-loss');
const REP3_RACK: Layout = {
  pattern: 'replicated',
  replicas: 3,
  failureDomain: 'rack',
  stripeCount: 2,
  stripeSize: 64 * 1024,
};

/** Waits until no reported copy waits for its repair and no repair or recovery task runs. */
function waitRepairsDone(cluster: Cluster): Promise<unknown> {
  return eventually(
    async () => {
      const status = await cluster.admin<{ repairsQueued: number; active: unknown[] }>('/api/recovery');
      if (status.repairsQueued === 0 && status.active.length === 0) return status;
      throw new Error(JSON.stringify(status));
    },
    { timeoutMs: 120_000, what: 'no repair queued or running' },
  );
}

describe('scenario 1: replicated:3 across racks survives the loss of a rack', () => {
  let cluster: Cluster;
  let client: StripeClient;
  const work = new Workload(SEED);

  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(6, 2), mdsGrpcPort: await freePortRange(2), pgCount: 32 });
    client = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 2_000 });
    await client.mkdir('/rep', { recursive: true, layout: REP3_RACK });
    await work.writeMany(client, '/rep', 20);
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  const rack = (name: string): string[] => cluster.specs.filter((s) => s.rack === name).map((s) => s.id);
  const ostsOfRack = (name: string): number[] => rack(name).flatMap((id) => cluster.ostsOf(id));

  it('every file reads back identical while and after rack r1 is SIGKILLed', async () => {
    // Safety while the fault runs: a reader loops over every file as the rack dies.
    let stop = false;
    const during: string[] = [];
    const reader = (async () => {
      let rounds = 0;
      while (!stop || rounds === 0) {
        during.push(...(await work.verify(client)));
        rounds++;
      }
      return rounds;
    })();
    for (const id of rack('r1')) await cluster.killOss(id);
    await waitOstsState(cluster.mdsAddress, ostsOfRack('r1'), false);
    stop = true;
    expect(await reader).toBeGreaterThan(0);
    expect(during).toEqual([]);
    // And once the map knows.
    expect(await work.verify(client)).toEqual([]);
  });

  it('new files are written with 2 of 3 racks up (min_size 2) and read back', async () => {
    await work.writeMany(client, '/rep/degraded', 8);
    expect(await work.verify(client)).toEqual([]);
  });

  it('with a second rack gone (below min_size) writes fail with IO_FAILED, reads still work', async () => {
    for (const id of rack('r2')) await cluster.killOss(id);
    await waitOstsState(cluster.mdsAddress, ostsOfRack('r2'), false);
    const data = work.nextContents().subarray(0, 200_000);
    const started = Date.now();
    const result = await settle(client.writeFile('/rep/too-few', data));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.code).toBe('IO_FAILED');
    console.log(
      `write below min_size failed after ${Date.now() - started} ms: ${(result as { err: Error }).err?.message}`,
    );
    // One replica is left of every object: still readable.
    expect(await work.verify(client)).toEqual([]);
  });

  it('converges: both racks back, every file (old and new) reads back identical', async () => {
    await Promise.all([...rack('r1'), ...rack('r2')].map((id) => cluster.reviveOss(id)));
    await waitOstsState(cluster.mdsAddress, [...ostsOfRack('r1'), ...ostsOfRack('r2')], true);
    const fresh = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 2_000 });
    try {
      expect(await work.verify(fresh)).toEqual([]);
      // The cluster takes new writes at full width again.
      await work.writeMany(fresh, '/rep/after', 4);
      expect(await work.verify(fresh)).toEqual([]);
      // Copies the dead racks missed (writes at min_size) were reported by the
      // writers; the MDS re-copies them once their OSTs are up, with no help:
      // a plain fsck (no --repair) turns clean by itself. fsck reads every copy,
      // so it runs once the MDS has no repair queued or running.
      const started = Date.now();
      await waitRepairsDone(cluster);
      console.log(`repairs done ${Date.now() - started} ms after the new writes`);
      await eventually(
        async () => {
          const check = await runCli(['fsck', '--mds', cluster.mdsAddress], { timeoutMs: 120_000 });
          if (check.code === 0) return check;
          throw new Error(check.stdout.slice(-2000) + check.stderr);
        },
        { timeoutMs: 180_000, what: 'a plain fsck to find the cluster clean', intervalMs: 2_000 },
      );
      console.log(`fsck clean ${Date.now() - started} ms after the new writes`);
      const repaired = await runCli(['fsck', '--mds', cluster.mdsAddress, '--repair'], { timeoutMs: 60_000 });
      expect(repaired.code, repaired.stdout.slice(-2000) + repaired.stderr).toBe(0);
      expect(await work.verify(fresh)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
