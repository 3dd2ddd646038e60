// A client write racing the MDS's re-copy of a skipped replica. The file is
// written, one OSS holding a copy is SIGKILLed, the file is overwritten (v2:
// the write skips the down copy and reports it), the OSS comes back and is
// told its copy is stale. Every request to the other two copies waits a few
// seconds (the latency knob, before the request takes its object's lock). Once
// the repair has listed its source, the file is overwritten again (v3): v3
// reaches the returning copy at once and the sources only after the repair's
// read of v2 from them. The repair then holds v2 and the returning copy v3: the
// copy must be refused (the target is newer than the source), the copy stays
// refused to readers, and once the cluster is clean every copy holds v3 with
// one version. Before copies were versioned by their writers the repair wrote
// v2 over v3 and cleared the stale mark: reads of that copy returned v2 until
// a deep scrub.
import { describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { adminFetch } from '../helpers/admin-http.js';
import { connectReader, overwrite, seededBytes } from '../helpers/clients.js';
import { type Cluster, setOstFaults, waitCleanPgs, waitForOsts } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { MiB, pauseAndKillOssOf, type RecoveryAnswer, recoveryFixture, rep3 } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery write-races-repair seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const REP3 = rep3(1, MiB);
/** What every request to the source copies waits: the window in which v3 reaches the returning copy first. */
const SOURCE_LATENCY_MS = 6_000;

/** ListObjects requests answered by the OSS of `ostId` (its /metrics, summed over its OSTs). */
async function listsAnswered(cluster: Cluster, ostId: number): Promise<number> {
  const text = await (await adminFetch(`${cluster.adminUrlOf(cluster.ossOfOst(ostId).id)}/metrics`)).text();
  const lines = text
    .split('\n')
    .filter((l) => l.startsWith('stripefs_oss_ops_total{') && l.includes('op="list"'));
  return lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

describe('a write racing the re-copy of a skipped replica', () => {
  // The slowed copies take a write only after the repair's read of them: well past the default timeout.
  const fx = recoveryFixture(
    {
      STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0',
      STRIPEFS_MDS_OUT_GRACE_MS: '600000',
    },
    SEED,
    { requestTimeoutMs: 120_000 },
  );

  it('is never overwritten by the older re-copy, and no read returns the older bytes', async () => {
    const { cluster, client } = fx;
    const [v1, v2, v3] = [1, 2, 3].map((n) => seededBytes(2 * MiB, SEED + n)) as [Buffer, Buffer, Buffer];
    await client.writeFile('/r', v1, { layout: REP3 });
    const object = (await client.getLayout('/r')).objects[0]!;
    // The first copy is the one a read tries first: a stale byte there is what a reader would get.
    const [victim, ...others] = object.osts as [number, number, number];
    const index = await pauseAndKillOssOf(cluster, victim);
    await overwrite(client, '/r', v2);
    await cluster.reviveOss(index);
    await waitForOsts(cluster.mdsAddress, 12);
    await eventually(
      async () => {
        const s = await cluster.admin<RecoveryAnswer>('/api/recovery');
        if (s.repairsQueued === 1 && s.repairsAnnounced === 1) return s;
        throw new Error(JSON.stringify(s));
      },
      { timeoutMs: 30_000, what: 'the skipped copy queued for repair and announced to its OST' },
    );
    for (const ost of others) await setOstFaults(cluster, ost, { latencyMs: SOURCE_LATENCY_MS });
    const failedBefore = (await cluster.admin<RecoveryAnswer>('/api/recovery')).totals.tasksFailed;
    const listedBefore = (await Promise.all(others.map((ost) => listsAnswered(cluster, ost)))).reduce(
      (a, b) => a + b,
    );
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
    await eventually(
      async () => {
        const listed = (await Promise.all(others.map((ost) => listsAnswered(cluster, ost)))).reduce(
          (a, b) => a + b,
        );
        if (listed > listedBefore) return listed;
        throw new Error(`${listed} lists answered by the sources`);
      },
      { timeoutMs: 60_000, what: "the repair's listing of its source (its read of v2 waits now)" },
    );
    // v3 reaches the returning copy at once, and the sources after the repair's read of v2 from them.
    await overwrite(client, '/r', v3);
    for (const ost of others) await setOstFaults(cluster, ost, null);
    const reader = await connectReader(cluster.mdsAddress, SEED);
    try {
      expect((await reader.readFile('/r')).equals(v3), 'a read once v3 was acknowledged').toBe(true);
    } finally {
      await reader.close();
    }
    await waitCleanPgs(cluster, { timeoutMs: 120_000 });
    await eventually(
      async () => {
        const s = await cluster.admin<RecoveryAnswer>('/api/recovery');
        if (s.repairsQueued === 0) return s;
        throw new Error(JSON.stringify(s));
      },
      { timeoutMs: 120_000, what: 'no repair left' },
    );
    const status = await cluster.admin<RecoveryAnswer>('/api/recovery');
    console.log('recovery after the race:', JSON.stringify(status));
    const copies = await Copies.open(cluster);
    try {
      const refs = await copies.locate({ size: 3 }, object.objectId);
      for (const ref of refs)
        expect((await copies.bytes(ref)).equals(v3), `the copy on OST ${ref.ostId} holds v3`).toBe(true);
      const versions = await Promise.all(refs.map(async (ref) => (await copies.stat(ref)).version));
      expect(new Set(versions).size, `versions ${versions.join(',')}`).toBe(1);
    } finally {
      copies.close();
    }
    const last = await connectReader(cluster.mdsAddress, SEED);
    try {
      expect((await last.readFile('/r')).equals(v3)).toBe(true);
    } finally {
      await last.close();
    }
    // The copy that raced the write was refused at least once.
    expect(status.totals.tasksFailed).toBeGreaterThan(failedBefore);
  });
});
