// Deep scrub compares the copies of every object with each other (ec:
// recomputes parity) through the MDS, and repairs the wrong ones from the
// authoritative copy. The wrong copies are real: planted through the holder's
// own OSS, so their block checksums verify and only a comparison finds them.
//   1. rep3 and rep2: one holder keeps the file's older content with an older
//      version (what a backfill copy racing a client write leaves behind).
//   2. rep3: one holder has other content at the same version (majority wins).
//   3. ec 4+2: chunk 1 is stale (the group before an append); in another
//      file chunk 2 has other content at the same version (parity finds it).
// A scrub of every PG reports each one (what, where), repairs it, the
// repaired copy takes the authority's version, every holder then has the
// right bytes, and a second scrub finds nothing. While the scrub runs, PGs
// show `scrubbing` and the task's progress moves.
//   4. rep2: two copies of one version disagree: no majority, `stripefs scrub
//      --pg` reports it unfixable and exits 1; `stripefs health` shows it.
// A PG that is not settled when its turn comes is skipped (a late heartbeat
// on a busy machine can mark an OST down for a moment): such a PG is scrubbed
// again, alone, once every PG is clean; a PG whose scrub failed is not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { adminFetch } from '../helpers/admin-http.js';
import { runCli } from '../helpers/cli.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, type PgsAnswer, waitCleanPgs } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { Copies, type CopyRef } from './copies.js';
import { startRecoveryCluster, writeFiles } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery deep-scrub seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const rep = (replicas: number): Layout => ({
  pattern: 'replicated',
  stripeSize: S,
  stripeCount: 1,
  replicas,
  failureDomain: 'host',
});
const EC42: Layout = { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' };
const FILLER_FILES = 24;
/** Rounds of scrubbing skipped PGs again (each after the cluster is clean) before the test gives up. */
const RESCRUB_ROUNDS_MAX = 5;

interface Task {
  id: number;
  state: 'running' | 'done';
  pgsTotal: number;
  pgsDone: number;
  pgsSkipped: number;
  pgsFailed: number;
  objectsScanned: number;
  errorsFound: number;
  errorsFixed: number;
  objectsBusy: number;
  findings: { objectId: string; ostId: number; problem: string; detail: string; fixed: boolean }[];
  skipped: { pool: number; pg: number; reason: string }[];
}

/** A scrub of every PG: the task, and the scrubs of its skipped PGs run again one by one. */
interface FullScrub {
  task: Task;
  again: Task[];
  pgsDone: number;
  pgsFailed: number;
  objectsScanned: number;
  errorsFound: number;
  errorsFixed: number;
  findings: Task['findings'];
}

describe('deep scrub compares copies and repairs', () => {
  let cluster: Cluster;
  let client: StripeClient;
  let copies: Copies;
  const files = new Map<string, Buffer>();
  /** Copy -> the bytes every holder must have after the repair. */
  const expected: { ref: CopyRef; bytes: Buffer; problem: string }[] = [];

  beforeAll(async () => {
    cluster = await startRecoveryCluster({
      STRIPEFS_MDS_SCRUB_MAX_BYTES_PER_SEC: String(32 * 1024 * 1024), // a second or two: progress shows
      STRIPEFS_MDS_SCRUB_MAX_ACTIVE_PGS: '4',
      STRIPEFS_MDS_PG_COUNT: '16', // a PG costs a few calls even when empty
    });
    client = await StripeClient.connect({
      mds: cluster.mdsAddress,
      seed: SEED,
      limits: { cacheBytesMax: 0 },
    });
  });
  afterAll(async () => {
    copies?.close();
    await client?.close();
    await cluster?.stop();
  });

  const inodeOf = async (path: string): Promise<number> => (await client.stat(path)).inode;

  function finish(task: Task): Promise<Task> {
    return eventually(
      async () => {
        const now = await cluster.admin<Task>(`/api/scrub/${task.id}`);
        return now.state === 'running' ? undefined : now;
      },
      { timeoutMs: 90_000, what: `scrub task ${task.id} to finish`, intervalMs: 50 },
    );
  }

  /**
   * Scrubs the PGs `task` skipped (not failed) again, one scrub each, once the
   * cluster is clean: a PG that was only unsettled for a moment is scrubbed,
   * one that stays unsettled keeps the cluster from turning clean and fails.
   */
  async function completeScrub(task: Task): Promise<FullScrub> {
    const { pgsDone, pgsFailed, objectsScanned, errorsFound, errorsFixed } = task;
    const full: FullScrub = {
      task,
      again: [],
      pgsDone,
      pgsFailed,
      objectsScanned,
      errorsFound,
      errorsFixed,
      findings: [...task.findings],
    };
    let skipped = task.skipped.filter((k) => !k.reason.startsWith('failed'));
    for (let round = 0; skipped.length > 0; round++) {
      expect(round, `PGs still skipped: ${JSON.stringify(skipped)}`).toBeLessThan(RESCRUB_ROUNDS_MAX);
      console.log(`scrubbing again after clean: ${JSON.stringify(skipped)}`);
      await waitCleanPgs(cluster, { timeoutMs: 60_000 });
      const next: Task['skipped'] = [];
      for (const { pool, pg } of skipped) {
        const one = await finish(
          await cluster.admin<Task>('/api/scrub', { method: 'POST', body: { pool, pg } }),
        );
        full.again.push(one);
        full.pgsDone += one.pgsDone;
        full.pgsFailed += one.pgsFailed;
        full.objectsScanned += one.objectsScanned;
        full.errorsFound += one.errorsFound;
        full.errorsFixed += one.errorsFixed;
        full.findings.push(...one.findings);
        next.push(...one.skipped.filter((k) => !k.reason.startsWith('failed')));
      }
      skipped = next;
    }
    return full;
  }

  /** Writes v1, captures one holder's copy, overwrites in place with v2, plants v1 back on that holder. */
  async function staleReplica(path: string, replicas: number, n: number): Promise<void> {
    const v1 = seededBytes(4 * S + 1000, SEED + n);
    const v2 = seededBytes(4 * S + 1000, SEED + n + 1000);
    await client.writeFile(path, v1, { layout: rep(replicas) });
    const placed = await copies.locate({ size: replicas }, `${await inodeOf(path)}.0`);
    const victim = placed[n % placed.length]!;
    const old = await copies.bytes(victim);
    expect(old.equals(v1)).toBe(true);
    const handle = await client.open(path, 'r+');
    await handle.write(v2, 0, v2.length, 0);
    await handle.close();
    const newest = await copies.stat(placed[(n + 1) % placed.length]!);
    expect(newest.version).toBeGreaterThan(1);
    await copies.plant(victim, old, 1); // the older content, at an older version
    files.set(path, v2);
    for (const ref of placed) expected.push({ ref, bytes: v2, problem: ref === victim ? 'stale' : '' });
  }

  it('finds and repairs stale and divergent copies of every kind, reporting what and where', async () => {
    copies = await Copies.open(cluster);
    for (const dir of ['/rep3', '/rep2', '/ec42', '/filler']) await client.mkdir(dir);
    const filler = Array.from({ length: FILLER_FILES }, (_, i) => ({
      path: `/filler/f${i}`,
      data: seededBytes(256 * 1024 + i * 4099, SEED + 500 + i),
      layout: i % 2 ? rep(3) : EC42,
    }));
    await writeFiles(client, filler);
    for (const f of filler) files.set(f.path, f.data);
    await staleReplica('/rep3/stale', 3, 1);
    await staleReplica('/rep2/stale', 2, 2);

    // rep3, same version, other content on one holder: the two others are the majority.
    const odd = seededBytes(S, SEED + 3);
    await client.writeFile('/rep3/odd', odd, { layout: rep(3) });
    const oddCopies = await copies.locate({ size: 3 }, `${await inodeOf('/rep3/odd')}.0`);
    const oddVersion = (await copies.stat(oddCopies[0]!)).version;
    await copies.plant(oddCopies[0]!, seededBytes(S, SEED + 4), oddVersion);
    files.set('/rep3/odd', odd);
    for (const ref of oddCopies)
      expected.push({ ref, bytes: odd, problem: ref === oddCopies[0] ? 'content' : '' });

    // ec 4+2, stale chunk: chunk 1 as it was before an append of a second stripe.
    const first = seededBytes(4 * S, SEED + 5);
    const second = seededBytes(4 * S, SEED + 6);
    await client.writeFile('/ec42/stale', first, { layout: EC42 });
    const ecInode = await inodeOf('/ec42/stale');
    await copies.refresh();
    const ecPool = copies.poolOf({ k: 4, m: 2 });
    const c1 = copies.placed(ecPool, `${ecInode}.0.c1`)[0]!;
    const oldChunk = await copies.bytes(c1);
    const appending = await client.open('/ec42/stale', 'a');
    await appending.write(second);
    await appending.close();
    const chunks = [0, 1, 2, 3, 4, 5].map((p) => copies.placed(ecPool, `${ecInode}.0.c${p}`)[0]!);
    for (const ref of chunks)
      expected.push({ ref, bytes: await copies.bytes(ref), problem: ref === chunks[1] ? 'stale' : '' });
    // The append is a newer write than the first stripe: the chunk's version moved past it.
    const firstVersion = (await copies.stat(chunks[0]!)).version;
    expect((await copies.stat(c1)).version).toBe(firstVersion);
    await copies.plant(c1, oldChunk, 1);
    files.set('/ec42/stale', Buffer.concat([first, second]));

    // ec 4+2, same version, other content in chunk 2: only the parity shows it.
    const ecOdd = seededBytes(4 * S, SEED + 7);
    await client.writeFile('/ec42/odd', ecOdd, { layout: EC42 });
    const oddInode = await inodeOf('/ec42/odd');
    const oddChunks = [0, 1, 2, 3, 4, 5].map((p) => copies.placed(ecPool, `${oddInode}.0.c${p}`)[0]!);
    for (const ref of oddChunks)
      expected.push({ ref, bytes: await copies.bytes(ref), problem: ref === oddChunks[2] ? 'parity' : '' });
    const c2 = oddChunks[2]!;
    await copies.plant(c2, seededBytes(S, SEED + 8), (await copies.stat(c2)).version);
    files.set('/ec42/odd', ecOdd);

    // Scrub every PG; watch the PG states and the task's progress while it runs.
    let task = await cluster.admin<Task>('/api/scrub', { method: 'POST', body: {} });
    let scrubbingSeen = 0;
    const progressSeen = new Set<number>();
    while (task.state === 'running') {
      const pgs = await cluster.admin<PgsAnswer>('/api/pgs');
      scrubbingSeen = Math.max(scrubbingSeen, pgs.byState.scrubbing ?? 0);
      task = await cluster.admin<Task>(`/api/scrub/${task.id}`);
      progressSeen.add(task.pgsDone);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const full = await completeScrub(task);
    console.log(
      `deep scrub: ${task.pgsDone}/${task.pgsTotal} PGs (${full.again.length} scrubbed again), ` +
        `${full.objectsScanned} objects, ${full.errorsFound} found / ${full.errorsFixed} fixed, ` +
        `busy ${task.objectsBusy}; scrubbing PGs seen ${scrubbingSeen}, progress values seen ${progressSeen.size}`,
    );
    console.log(JSON.stringify(full.findings, null, 1));
    expect(scrubbingSeen).toBeGreaterThan(0);
    expect(progressSeen.size).toBeGreaterThan(2);
    expect(full.pgsFailed, `failed: ${JSON.stringify(task.skipped)}`).toBe(0);
    expect(full.pgsDone).toBe(task.pgsTotal);
    const wanted = expected
      .filter((e) => e.problem)
      .map((e) => `${e.ref.objectId}@${e.ref.ostId}:${e.problem}`)
      .sort();
    expect(full.findings.map((f) => `${f.objectId}@${f.ostId}:${f.problem}`).sort()).toEqual(wanted);
    expect(full.findings.every((f) => f.fixed)).toBe(true);
    expect(full.errorsFound).toBe(wanted.length);
    expect(full.errorsFixed).toBe(wanted.length);

    // Every holder now has the right bytes, and the repaired copy the authority's version.
    for (const e of expected) {
      expect((await copies.bytes(e.ref)).equals(e.bytes), `${e.ref.objectId} on ost${e.ref.ostId}`).toBe(
        true,
      );
    }
    for (const e of expected.filter((x) => x.problem)) {
      const peer = expected.find(
        (x) => x.ref.objectId.split('.')[0] === e.ref.objectId.split('.')[0] && !x.problem,
      )!;
      expect((await copies.stat(e.ref)).version, `${e.ref.objectId} version`).toBe(
        (await copies.stat(peer.ref)).version,
      );
    }
    for (const [path, data] of files) expect((await client.readFile(path)).equals(data), path).toBe(true);

    const rescrub = await completeScrub(
      await finish(await cluster.admin<Task>('/api/scrub', { method: 'POST', body: {} })),
    );
    expect(rescrub.pgsFailed).toBe(0);
    expect(rescrub.pgsDone).toBe(rescrub.task.pgsTotal);
    expect(rescrub.errorsFound).toBe(0);
    expect(rescrub.objectsScanned).toBe(full.objectsScanned);
  });

  it('reports two disagreeing copies of one version as unfixable (stripefs scrub --pg)', async () => {
    const tie = seededBytes(S, SEED + 9);
    await client.writeFile('/rep2/tie', tie, { layout: rep(2) });
    const placed = await copies.locate({ size: 2 }, `${await inodeOf('/rep2/tie')}.0`);
    await copies.plant(placed[1]!, seededBytes(S, SEED + 10), (await copies.stat(placed[0]!)).version);
    const flags = ['--mds', cluster.mdsAddress, '--admin', cluster.mdsAdminUrl];
    const pg = `${placed[0]!.poolId}/${placed[0]!.pg}`;
    await waitCleanPgs(cluster, { timeoutMs: 60_000 }); // a PG that is not settled would be skipped, not compared
    const res = await runCli(['scrub', '--pg', pg, ...flags]);
    console.log(res.stdout);
    expect(res.code).toBe(1);
    // stderr is a pipe here: progress comes as whole lines, never redrawn with \r.
    expect(res.stderr).not.toContain('\r');
    expect(res.stdout).toMatch(/errors 1 found \/ 0 fixed/);
    expect(res.stdout).toMatch(
      /NOT FIXED .* unfixable \(2 different contents at version \d+, none in the majority\)/,
    );
    const json = await runCli(['scrub', '--pg', pg, '--json', '--no-repair', ...flags]);
    const task = JSON.parse(json.stdout) as Task;
    expect(task.pgsTotal).toBe(1);
    expect(task.findings.map((f) => f.problem)).toEqual(['unfixable']);
    const health = JSON.parse((await runCli(['health', '--json', ...flags])).stdout) as {
      ok: boolean;
      scrub: { last: { errorsFound: number } };
      problems: string[];
    };
    expect(health.scrub.last.errorsFound).toBe(1);
    expect(health.problems.join('\n')).toMatch(/left 1 errors unfixed/);
    const bad = await runCli(['scrub', '--pg', 'nope', ...flags]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/REQ_INVALID/);
  });

  it('recovery, scrub and destroy share one channel to each OSS', async () => {
    // By now recovery (MarkStale, RecoverPg) and scrub (ScrubPg) have called OSSs; deleting the
    // filler files has the destroy worker call them too.
    for (const path of [...files.keys()].filter((p) => p.startsWith('/filler/'))) await client.unlink(path);
    const deadline = Date.now() + 60_000;
    let queue = { files: -1, completed: 0 };
    while (Date.now() < deadline) {
      queue = await cluster.admin<{ files: number; completed: number }>('/api/destroy-queue');
      if (queue.files === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(queue, 'the destroy queue did not empty within 60 s').toMatchObject({ files: 0 });
    expect(queue.completed).toBeGreaterThan(0);
    const metrics = await (await adminFetch(`${cluster.mdsAdminUrl}/metrics`)).text();
    const channels = Number(/^stripefs_mds_oss_channels(?:\{[^}]*\})? (\d+)$/m.exec(metrics)?.[1]);
    // Three workers with a cache each held up to three channels per OSS.
    expect(channels).toBeGreaterThan(0);
    expect(channels).toBeLessThanOrEqual(cluster.oss.length);
  });
});
