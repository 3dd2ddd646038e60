// An OST that comes back after it was marked out, before recovery moved its
// PGs anywhere, must not keep the writes it missed while down. The file is
// written, one OSS holding copies of it is SIGKILLed, the file is overwritten
// (the writes skip the down OSTs and report them to the MDS), the OSTs are
// marked out (their PGs map elsewhere; recovery is paused, so nothing moves),
// the OSS comes back (its PGs map home again). Before any repair the file
// reads back new (the OST refuses the copies it was told are stale); once
// every PG is clean, every copy of every object must hold the new bytes.
import { describe, expect, it } from 'vitest';
import type { Layout } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { runCli } from '../helpers/cli.js';
import { connectReader, overwrite, seededBytes } from '../helpers/clients.js';
import { waitCleanPgs, waitForOsts, waitOut } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { pauseAndKillOssOf, type RecoveryAnswer, recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery returning-ost seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const EC42: Layout = { pattern: 'ec', stripeSize: UNIT, k: 4, m: 2, failureDomain: 'host' };
const REP3 = rep3(4);

describe('an OST back before recovery moved its PGs', () => {
  const fx = recoveryFixture({ STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0' }, SEED);

  it('keeps none of the writes it missed: every copy holds the new bytes once clean', async () => {
    const { cluster, client } = fx;
    const before = seededBytes(16 * UNIT, SEED + 1);
    const after = seededBytes(16 * UNIT, SEED + 2);
    await client.writeFile('/f', before, { layout: REP3 });
    const objects = (await client.getLayout('/f')).objects;
    const victim = objects[0]?.osts[0] as number;
    const index = await pauseAndKillOssOf(cluster, victim);
    await overwrite(client, '/f', after);
    await waitOut(cluster.mdsAddress, 2);
    await cluster.restartOss(index);
    // Recovery is still paused, so nothing is repaired yet; once the MDS has told the OST which
    // copies missed writes, reads take the other copies and return the new bytes.
    await eventually(
      async () => {
        const status = await cluster.admin<{ repairsQueued: number; repairsAnnounced: number }>(
          '/api/recovery',
        );
        if (status.repairsQueued > 0 && status.repairsAnnounced === status.repairsQueued) return status;
        throw new Error(JSON.stringify(status));
      },
      { timeoutMs: 30_000, what: 'every queued repair announced to its OST' },
    );
    const health = await runCli(['health', '--mds', cluster.mdsAddress, '--admin', cluster.mdsAdminUrl]);
    expect(health.stdout).toMatch(/HEALTH_WARN/);
    expect(health.stdout).toMatch(/\d+ copies await repair/);
    const early = await connectReader(cluster.mdsAddress, SEED);
    expect((await early.readFile('/f')).equals(after), 'read before the repair').toBe(true);
    await early.close();
    // The OSS restarts (its list of stale copies is in memory): the MDS tells it again, on its
    // new address even if it was never seen down, and reads again take the other copies.
    await cluster.restartOss(index);
    await eventually(
      async () => {
        const reader = await connectReader(cluster.mdsAddress, SEED);
        try {
          return (await reader.readFile('/f')).equals(after);
        } finally {
          await reader.close();
        }
      },
      { timeoutMs: 30_000, what: 'a read of the new bytes after the OSS restarted, before the repair' },
    );
    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
    await waitCleanPgs(cluster, { timeoutMs: 60_000 });
    console.log('recovery after the return:', JSON.stringify(await cluster.admin('/api/recovery')));
    const copies = await Copies.open(cluster);
    try {
      for (const object of objects) {
        const refs = await copies.locate({ size: 3 }, object.objectId);
        const bodies = await Promise.all(refs.map((ref) => copies.bytes(ref)));
        const first = bodies[0] as Buffer;
        for (const [i, body] of bodies.entries())
          expect(
            body.equals(first),
            `${object.objectId} on OST ${refs[i]?.ostId} against OST ${refs[0]?.ostId}`,
          ).toBe(true);
      }
    } finally {
      copies.close();
    }
    expect((await client.readFile('/f')).equals(after)).toBe(true);
  });
});

// The OSTs must stay in (placed) while the file is written: an out host would leave five of the
// six hosts an ec:4+2 host layout needs.
describe('an ec chunk skipped while its host was down', () => {
  const fx = recoveryFixture(
    {
      STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0',
      STRIPEFS_MDS_OUT_GRACE_MS: '600000',
    },
    SEED,
  );

  it('an ec:4+2 file written with one host down leaves its chunk there to the MDS, which writes it once the host is back', async () => {
    const { cluster, client } = fx;
    const index = 0;
    await cluster.oss[index]?.kill();
    await waitForOsts(cluster.mdsAddress, 12, 10);
    // Six hosts, one chunk on each: one chunk's OST is down. k + 1 members up is enough to write.
    const data = seededBytes(4 * 8 * UNIT + 5, SEED + 3);
    await client.writeFile('/ec', data, { layout: EC42 });
    expect((await client.readFile('/ec')).equals(data)).toBe(true);
    const repairedBefore = (await cluster.admin<RecoveryAnswer>('/api/recovery')).totals.objectsRepaired;
    await cluster.restartOss(index);
    await waitCleanPgs(cluster, { timeoutMs: 60_000 });
    const repaired = (await cluster.admin<RecoveryAnswer>('/api/recovery')).totals.objectsRepaired;
    expect(repaired - repairedBefore).toBe(1);
    // Every chunk is on its OST now, all of one size: the skipped one was rebuilt there.
    const copies = await Copies.open(cluster);
    try {
      const chunks = (await client.getLayout('/ec')).objects;
      const sizes = await Promise.all(
        chunks.map(
          async (c) => (await copies.stat({ ...(await copies.locate({ k: 4, m: 2 }, c.objectId))[0]! })).size,
        ),
      );
      expect(new Set(sizes).size).toBe(1);
    } finally {
      copies.close();
    }
    // Two other hosts killed: the four chunks left, the rewritten one among them, must give the bytes.
    await cluster.oss[1]?.kill();
    await cluster.oss[2]?.kill();
    await waitForOsts(cluster.mdsAddress, 12, 8);
    expect((await client.readFile('/ec')).equals(data)).toBe(true);
  });
});
