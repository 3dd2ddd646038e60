// Deep scrub survives an MDS restart. A scrub of every PG (one PG at a time,
// without repair) finds a stale copy planted in an early PG; a later PG is
// held by an OST that hangs, so the task is still running when the MDS is
// SIGKILLed. The restarted MDS still lists the task with what it found and
// resumes it: the PGs scrubbed before the kill keep their last-deep-scrub
// stamps (they are not scrubbed again) and the task scrubs only the PGs it
// had not finished. Before scrub state was durable the restarted MDS knew no
// task and no stamp: the finding was lost and the next scrub started over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, setOstFaults } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies } from './copies.js';
import { startRecoveryCluster, writeFiles } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery scrub-restart seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const PG_COUNT = 16;
const FILES = 24;
const REP3: Layout = {
  pattern: 'replicated',
  stripeSize: S,
  stripeCount: 1,
  replicas: 3,
  failureDomain: 'host',
};

interface Task {
  id: number;
  state: 'running' | 'done';
  resumes: number;
  pgsTotal: number;
  pgsDone: number;
  pgsSkipped: number;
  pgsFailed: number;
  errorsFound: number;
  findings: { objectId: string; ostId: number; problem: string; fixed: boolean }[];
}
interface PgAnswer {
  lastDeepScrub: { lastDeepScrubMs: number; taskId: number; errorsFound: number } | null;
}

const finished = (t: Task): number => t.pgsDone + t.pgsSkipped + t.pgsFailed;

describe('deep scrub across an MDS restart', () => {
  let cluster: Cluster;
  let client: StripeClient;
  let copies: Copies;

  beforeAll(async () => {
    cluster = await startRecoveryCluster({
      STRIPEFS_MDS_SCRUB_MAX_ACTIVE_PGS: '1',
      STRIPEFS_MDS_PG_COUNT: String(PG_COUNT),
      STRIPEFS_MDS_SCRUB_INTERVAL_MS: '0',
    });
    client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
  });
  afterAll(async () => {
    copies?.close();
    await client?.close();
    await cluster?.stop();
  });

  const stamps = async (poolId: number): Promise<(number | null)[]> => {
    const out: (number | null)[] = [];
    for (let pg = 0; pg < PG_COUNT; pg++)
      out.push(
        (await cluster.admin<PgAnswer>(`/api/pgs/${poolId}/${pg}`)).lastDeepScrub?.lastDeepScrubMs ?? null,
      );
    return out;
  };

  it('resumes a running scrub with its findings, without scrubbing its finished PGs again', async () => {
    const files = Array.from({ length: FILES }, (_, i) => ({
      path: `/f${i}`,
      data: seededBytes(S, SEED + i),
      layout: REP3,
    }));
    await writeFiles(client, files);
    copies = await Copies.open(cluster);
    // The file in the lowest PG gets a stale copy: scrubbed PGs go in order, one at a time.
    const located = await Promise.all(
      files.map(async (f) => copies.locate({ size: 3 }, `${(await client.stat(f.path)).inode}.0`)),
    );
    const victim = located.reduce((a, b) => (b[0]!.pg < a[0]!.pg ? b : a));
    const poolId = victim[0]!.poolId;
    const early = victim[0]!.pg;
    const version = (await copies.stat(victim[0]!)).version;
    await copies.plant(victim[2]!, seededBytes(S, SEED + 999), version - 1);
    // An OST in no PG up to `early` but in a later one holds that later PG's scrub.
    const before = new Set(Array.from({ length: early + 1 }, (_, pg) => copies.pgMembers(poolId, pg)).flat());
    let held = -1;
    for (let pg = early + 1; pg < PG_COUNT && held < 0; pg++)
      held = copies.pgMembers(poolId, pg).find((ost) => !before.has(ost)) ?? -1;
    expect(held, 'an OST that only later PGs use').toBeGreaterThanOrEqual(0);
    await setOstFaults(cluster, held, { hang: true });

    const started = await cluster.admin<Task>('/api/scrub', { method: 'POST', body: { repair: false } });
    const found = await eventually(
      async () => {
        const t = await cluster.admin<Task>(`/api/scrub/${started.id}`);
        return t.errorsFound > 0 ? t : undefined;
      },
      { timeoutMs: 60_000, what: 'the scrub to find the stale copy', intervalMs: 50 },
    );
    expect(found.state).toBe('running');
    expect(finished(found)).toBeLessThan(found.pgsTotal);
    const stampsBefore = await stamps(poolId);
    expect(stampsBefore[early], `PG ${early} stamped`).not.toBeNull();

    await cluster.killMds();
    await setOstFaults(cluster, held, null);
    await cluster.startMds();

    const resumed = await cluster.admin<Task>(`/api/scrub/${started.id}`);
    expect(resumed.resumes).toBe(1);
    expect(finished(resumed)).toBeGreaterThanOrEqual(finished(found));
    const finding = resumed.findings.find((f) => f.objectId === victim[2]!.objectId);
    expect(finding, JSON.stringify(resumed.findings)).toMatchObject({
      ostId: victim[2]!.ostId,
      fixed: false,
    });

    const done = await eventually(
      async () => {
        const t = await cluster.admin<Task>(`/api/scrub/${started.id}`);
        return t.state === 'done' ? t : undefined;
      },
      { timeoutMs: 90_000, what: 'the resumed scrub to finish', intervalMs: 200 },
    );
    expect(finished(done)).toBe(done.pgsTotal);
    expect(done.errorsFound).toBeGreaterThanOrEqual(1);
    const stampsAfter = await stamps(poolId);
    // Finished before the kill: the same stamp (not scrubbed again).
    for (const [pg, stamp] of stampsBefore.entries())
      if (stamp !== null) expect(stampsAfter[pg], `PG ${pg} scrubbed again`).toBe(stamp);
    // The task covers this pool only; every PG it scrubbed after the restart has a new stamp, and no others.
    expect(done.pgsTotal).toBe(PG_COUNT);
    const fresh = stampsAfter.filter((s, pg) => s !== null && s !== stampsBefore[pg]).length;
    expect(fresh).toBe(done.pgsDone - stampsBefore.filter((s) => s !== null).length);
  });
});
