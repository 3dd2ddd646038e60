// The record of missed writes is bounded per OST and PG. With
// mds.missedWritesPerPgMax at 3, an OSS is SIGKILLed and every file is
// overwritten: an OST and PG whose skipped copies stay within the bound keep
// one repair record each; past it the PG's copy on that OST turns into a full
// backfill (its records dropped, counted, shown by the PG query, `stripefs
// health` and the metrics). Back up, the OST refuses reads of such a PG as a
// whole (OBJ_STALE) while readers get the new bytes from the other copies;
// once recovery resumes the backfill rewrites it and every copy holds the
// new bytes. Before, every skipped copy was one record, up to a queue of
// 10,000 for the whole cluster after which skips were dropped and their
// copies served old bytes.
import { afterAll, describe, expect, it } from 'vitest';
import { StripeError } from '../../common/errors.js';
import { seedFromEnv } from '../../common/random.js';
import { adminFetch } from '../helpers/admin-http.js';
import { runCli } from '../helpers/cli.js';
import { seededBytes } from '../helpers/clients.js';
import { waitCleanPgs, waitForOsts } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies, type CopyRef } from './copies.js';
import { recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery missed-writes-bound seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const FILES = 40;
const BOUND = 3;
const REP3 = rep3(1);

interface Status {
  repairsQueued: number;
  repairs: { ostId: number; objectId: string }[];
  missedWrites: { perPgMax: number; logged: number; backfills: number; awaitingBackfill: number };
}
interface PgQuery {
  holders: number[];
  clean: boolean;
  missedWrites: { ostId: number; logged: number; backfill: boolean }[];
}

describe('missed writes past the per-PG bound turn into a full backfill', () => {
  const fx = recoveryFixture(
    {
      STRIPEFS_MDS_MISSED_WRITES_PER_PG_MAX: String(BOUND),
      STRIPEFS_MDS_PG_COUNT: '4',
      STRIPEFS_MDS_RECOVERY_MAX_BYTES_PER_SEC: '0',
      STRIPEFS_MDS_OUT_GRACE_MS: '600000',
    },
    SEED,
  );
  let copies: Copies | undefined;
  afterAll(() => {
    copies?.close();
  });

  it('records up to the bound, backfills past it, refuses the stale PG and heals it', async () => {
    const { cluster, client } = fx;
    const paths = Array.from({ length: FILES }, (_, i) => `/f${i}`);
    for (const [i, path] of paths.entries())
      await client.writeFile(path, seededBytes(UNIT, SEED + i), { layout: REP3 });
    copies = await Copies.open(cluster);
    const refs: CopyRef[][] = [];
    for (const path of paths)
      refs.push(await copies.locate({ size: 3 }, `${(await client.stat(path)).inode}.0`));
    const victimOss = cluster.ossIndexOfOst(refs[0]![0]!.ostId);
    const victimOsts = new Set(cluster.ostsOf(cluster.specs[victimOss]!.id));
    // Skipped copies per victim OST and PG.
    const skipped = new Map<string, CopyRef[]>();
    for (const ref of refs.flat())
      if (victimOsts.has(ref.ostId)) {
        const key = `${ref.ostId}/${ref.poolId}/${ref.pg}`;
        skipped.set(key, [...(skipped.get(key) ?? []), ref]);
      }
    const over = [...skipped].filter(([, r]) => r.length > BOUND);
    const within = [...skipped].filter(([, r]) => r.length <= BOUND);
    expect(over.length, 'an OST and PG past the bound').toBeGreaterThan(0);

    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: true } });
    await cluster.oss[victimOss]?.kill();
    await waitForOsts(cluster.mdsAddress, 12, 10);
    const epoch = Number((await cluster.admin<{ epoch: number | string }>('/api/cluster')).epoch);
    await eventually(async () => (await client.getLayout(paths[0]!)).mapEpoch >= epoch, {
      timeoutMs: 30_000,
      what: `the client to learn map epoch ${epoch}`,
    });
    const after = paths.map((_, i) => seededBytes(UNIT, SEED + 1000 + i));
    for (const [i, path] of paths.entries()) {
      const handle = await client.open(path, 'r+');
      await handle.write(after[i]!, 0, UNIT, 0);
      await handle.close();
    }

    const status = await cluster.admin<Status>('/api/recovery');
    expect(status.missedWrites).toMatchObject({
      perPgMax: BOUND,
      backfills: over.length,
      awaitingBackfill: over.length,
    });
    expect(status.missedWrites.logged).toBe(
      within.reduce((n, [, r]) => n + r.length, 0) + over.length * BOUND,
    );
    const listed = status.repairs
      .filter((r) => victimOsts.has(r.ostId))
      .map((r) => `${r.ostId}/${r.objectId}`);
    expect(listed.sort()).toEqual(within.flatMap(([, r]) => r.map((x) => `${x.ostId}/${x.objectId}`)).sort());
    for (const [, [first]] of over) {
      const pg = await cluster.admin<PgQuery>(`/api/pgs/${first!.poolId}/${first!.pg}`);
      expect(pg.clean).toBe(false);
      expect(pg.holders).not.toContain(first!.ostId);
      expect(pg.missedWrites).toContainEqual({ ostId: first!.ostId, logged: 0, backfill: true });
    }
    const metrics = await (await adminFetch(`${cluster.mdsAdminUrl}/metrics`)).text();
    expect(metrics).toMatch(
      new RegExp(`^stripefs_mds_missed_write_backfills(\\{[^}]*\\})? ${over.length}$`, 'm'),
    );
    const health = await runCli(['health', '--mds', cluster.mdsAddress, '--admin', cluster.mdsAdminUrl]);
    expect(health.stdout).toMatch(new RegExp(`${over.length} PG copies missed more than ${BOUND} writes`));

    await cluster.reviveOss(victimOss);
    await waitForOsts(cluster.mdsAddress, 12);
    copies.close(); // the revived OSS listens on new ports
    copies = await Copies.open(cluster);
    const stale = over[0]![1][0]!;
    const code = await eventually(
      async () => {
        try {
          await copies!.read(stale, 1); // at once: bytes() would wait for the refusal to end
          return 'served';
        } catch (err) {
          const c = err instanceof StripeError ? err.code : String(err);
          return c === 'REQ_UNAVAILABLE' ? undefined : c; // not yet heard from the MDS
        }
      },
      { timeoutMs: 30_000, what: 'the returning OST to answer a read of the stale PG' },
    );
    expect(code, 'a read of a PG awaiting its full backfill').toBe('OBJ_STALE');
    for (const [i, path] of paths.entries())
      expect((await client.readFile(path)).equals(after[i]!), path).toBe(true);

    await cluster.admin('/api/recovery', { method: 'PUT', body: { paused: false } });
    await waitCleanPgs(cluster, { timeoutMs: 120_000 });
    await eventually(
      async () => {
        const s = await cluster.admin<Status>('/api/recovery');
        return s.repairsQueued === 0 && s.missedWrites.awaitingBackfill === 0 ? s : undefined;
      },
      { timeoutMs: 120_000, what: 'every repair and backfill done' },
    );
    await eventually(
      async () => {
        for (const [i, placed] of refs.entries())
          for (const ref of placed) if (!(await copies!.bytes(ref)).equals(after[i]!)) return false;
        return true;
      },
      { timeoutMs: 30_000, what: 'every copy to hold the new bytes and be served' },
    );
  });
});
