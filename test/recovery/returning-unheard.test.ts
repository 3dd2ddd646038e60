// A returning OST must never serve a copy that missed writes, even when the
// MDS's MarkStale does not reach it. In both scenarios a file is written, one
// OSS holding copies of it is SIGKILLed, the file is overwritten (the writes
// skip the down copies and report them), recovery stays paused, and then:
//   1. the OSS comes back advertising a cluster address the MDS cannot reach
//      (clients reach its public one): MarkStale never arrives;
//   2. the OSS comes back on fixed ports, is told (MarkStale), and is then
//      restarted on the same address while the MDS is stopped, so the MDS never
//      sees it down and never tells it again.
// A read of the file must return the new bytes. The OSS now hears which of its
// copies missed writes in the MDS's answer to its registration (and to every
// heartbeat), and serves no read before that answer. Before, both read the old
// bytes from the returning copy.
import { afterAll, describe, expect, it } from 'vitest';
import type { StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { connectReader, overwrite, seededBytes } from '../helpers/clients.js';
import { type Cluster, waitForOsts } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { freePortRange } from '../helpers/ports.js';
import { pauseAndKillOssOf, type RecoveryAnswer, recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery returning-unheard seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const REP3 = rep3(4);

/** Writes `before`, SIGKILLs the OSS of the first copy of object 0, overwrites with `after`; returns that OSS's index. */
async function skipOneOss(
  cluster: Cluster,
  client: StripeClient,
  before: Buffer,
  after: Buffer,
): Promise<number> {
  await client.writeFile('/f', before, { layout: REP3 });
  const victim = (await client.getLayout('/f')).objects[0]?.osts[0] as number;
  const index = await pauseAndKillOssOf(cluster, victim);
  await overwrite(client, '/f', after);
  expect((await cluster.admin<RecoveryAnswer>('/api/recovery')).repairsQueued).toBeGreaterThan(0);
  return index;
}

async function readFresh(cluster: Cluster): Promise<Buffer> {
  const reader = await connectReader(cluster.mdsAddress, SEED);
  try {
    return await reader.readFile('/f');
  } finally {
    await reader.close();
  }
}

describe('a returning OST that MarkStale cannot reach', () => {
  const fx = recoveryFixture({ STRIPEFS_MDS_OUT_GRACE_MS: '600000' }, SEED);

  it('serves none of the copies it missed writes to', async () => {
    const { cluster, client } = fx;
    const before = seededBytes(16 * UNIT, SEED + 1);
    const after = seededBytes(16 * UNIT, SEED + 2);
    const index = await skipOneOss(cluster, client, before, after);
    // The MDS calls 127.0.0.2, where nothing listens; clients use the public 127.0.0.1.
    const spec = cluster.specs[index]!;
    spec.env = {
      ...spec.env,
      STRIPEFS_OSS_ADVERTISE_HOST: '127.0.0.2',
      STRIPEFS_OSS_PUBLIC_HOST: '127.0.0.1',
    };
    await cluster.reviveOss(index);
    await waitForOsts(cluster.mdsAddress, 12);
    expect((await readFresh(cluster)).equals(after), 'a read with MarkStale undelivered').toBe(true);
    expect((await cluster.admin<RecoveryAnswer>('/api/recovery')).repairsAnnounced).toBe(0);
  });
});

describe('an OSS restarted on the same address before the MDS saw it down', () => {
  const fx = recoveryFixture({ STRIPEFS_MDS_OUT_GRACE_MS: '600000' }, SEED);
  // Runs before the fixture stops the cluster (after-hooks run last registered first).
  afterAll(() => {
    fx.cluster?.mds.child.kill('SIGCONT');
  });

  it('hears again which copies missed writes before it serves a read', async () => {
    const { cluster, client } = fx;
    const before = seededBytes(16 * UNIT, SEED + 3);
    const after = seededBytes(16 * UNIT, SEED + 4);
    const index = await skipOneOss(cluster, client, before, after);
    const base = await freePortRange(3);
    const spec = cluster.specs[index]!;
    spec.env = {
      ...spec.env,
      STRIPEFS_OSS_GRPC_PORT: String(base),
      STRIPEFS_OSS_BULK_PORT: String(base + 1),
      STRIPEFS_OSS_ADMIN_PORT: String(base + 2),
    };
    await cluster.reviveOss(index);
    await waitForOsts(cluster.mdsAddress, 12);
    await eventually(
      async () => {
        const s = await cluster.admin<RecoveryAnswer>('/api/recovery');
        if (s.repairsAnnounced === s.repairsQueued) return s;
        throw new Error(JSON.stringify(s));
      },
      { timeoutMs: 30_000, what: 'MarkStale delivered to the returning OST' },
    );
    expect((await readFresh(cluster)).equals(after), 'a read once told').toBe(true);
    // Restarted on the same ports while the MDS is stopped: the MDS never marks it down.
    cluster.mds.child.kill('SIGSTOP');
    try {
      await cluster.oss[index]?.kill();
      await cluster.reviveOss(index);
    } finally {
      cluster.mds.child.kill('SIGCONT');
    }
    expect((await readFresh(cluster)).equals(after), 'a read after the quick restart').toBe(true);
  });
});
