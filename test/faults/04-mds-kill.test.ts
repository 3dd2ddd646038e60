// Scenario 4: SIGKILL the MDS while 100 writers create, write and close files.
//   workload  100 concurrent writers, each writing small replicated:3,
//             ec:4+2 and data-on-MDS files (dom:64K before replicated:3; up to
//             128 KiB, so some spill past the MDS's part) in a loop; a file
//             counts as acknowledged when its close (the size commit) returned
//   fault     SIGKILL the MDS mid-way (once 50 closes were acknowledged),
//             start it again on the same port, stop once 50 more were
//   safety    every writer's operation ends: success or a coded error
//   converge  after the restart every acknowledged file is present with its
//             size and its bytes; `stripefs fsck` lists as unfinished only
//             files whose close was never acknowledged, finds no lost data
//             and no orphan, and --repair leaves it clean (exit 0)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { isErrorCode } from '../../common/errors.js';
import { runCli } from '../helpers/cli.js';
import { connectReader } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster, waitForMap } from '../helpers/cluster.js';
import { settle } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { freePortRange } from '../helpers/ports.js';
import { suiteSeed, Workload } from './workload.js';

const SEED = suiteSeed('faults/04-mds-kill');
const S = 64 * 1024;
const REP3: Layout = {
  pattern: 'replicated',
  replicas: 3,
  failureDomain: 'host',
  stripeCount: 2,
  stripeSize: S,
};
const EC42: Layout = { pattern: 'ec', k: 4, m: 2, failureDomain: 'host', stripeSize: S };
/** The first 64 KiB in the MDS's database with the namespace record, the rest replicated:3. */
const DOM: Layout = { pattern: 'dom', domBytes: S, rest: REP3 };
const LAYOUTS = [REP3, EC42, DOM];
const WRITERS = 100;
/** Closes acknowledged before the kill, and again after the restart, before the writers stop. */
const ACKS_PER_PHASE = 50;

describe('scenario 4: an MDS killed under 100 writers keeps every acknowledged close', () => {
  let cluster: Cluster;
  let client: StripeClient;
  const work = new Workload(SEED, 128 * 1024);
  const attempted = new Set<string>();
  /** Acknowledged files whose first bytes live on the MDS. */
  const domFiles = new Set<string>();

  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(6, 2), mdsGrpcPort: await freePortRange(2), pgCount: 32 });
    client = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 3_000 });
    await client.mkdir('/w', { recursive: true });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  it('100 writers while the MDS is SIGKILLed: every operation ends with success or a code', async () => {
    let running = true;
    const codes = new Map<string, number>();
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; running; i++) {
        const path = `/w/${w}-${i}`;
        attempted.add(path);
        const layout = LAYOUTS[(w + i) % LAYOUTS.length] as Layout;
        const result = await settle(work.write(client, path, layout));
        if (result.ok && layout === DOM) domFiles.add(path);
        if (!result.ok) {
          const code = result.code;
          expect(isErrorCode(code), `${path}: ${code}`).toBe(true);
          codes.set(code, (codes.get(code) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    });
    await eventually(() => work.files.size >= ACKS_PER_PHASE, {
      timeoutMs: 60_000,
      what: `${ACKS_PER_PHASE} closes acknowledged before the kill`,
    });
    const before = work.files.size;
    await cluster.killMds();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await cluster.startMds();
    await waitForMap(
      cluster.mdsAddress,
      (osts) => osts.length === cluster.ostCount() && osts.every((o) => o.up),
    );
    await eventually(() => work.files.size >= before + ACKS_PER_PHASE, {
      timeoutMs: 60_000,
      what: `${ACKS_PER_PHASE} more closes acknowledged after the restart`,
    });
    running = false;
    await Promise.all(writers);
    console.log(
      `acknowledged ${before} before the kill, ${work.files.size} in all of ${attempted.size}; errors ${JSON.stringify([...codes])}`,
    );
    expect(work.files.size).toBeGreaterThan(before);
  });

  it('converges: every acknowledged close is present with its size and bytes', async () => {
    for (const [path, data] of work.files) expect((await client.stat(path)).size, path).toBe(data.length);
    expect(domFiles.size).toBeGreaterThan(0);
    for (const path of domFiles) expect((await client.stat(path)).layout?.pattern, path).toBe('dom');
    expect(await work.verify(client)).toEqual([]);
  });

  it('fsck: only unacknowledged files are unfinished; what is missing is recoverable and --repair fixes it', async () => {
    const fsck = await runCli(['fsck', '--mds', cluster.mdsAddress, '--json'], { timeoutMs: 90_000 });
    const report = JSON.parse(fsck.stdout) as {
      clean: boolean;
      unfinished: { path: string }[];
      problems: { kind: string; recoverable: boolean }[];
      lost: unknown[];
      orphans: unknown[];
    };
    console.log(
      `fsck: clean=${report.clean}, ${report.unfinished.length} unfinished copies, ${report.problems.length} problems, ${report.orphans.length} orphans`,
    );
    for (const u of report.unfinished)
      expect(work.files.has(u.path), `${u.path} was acknowledged`).toBe(false);
    expect(report.lost).toEqual([]);
    expect(report.orphans).toEqual([]);
    // Copies skipped while an OSS looked down across the restart (writes at min_size) are
    // not re-synced by the servers yet: fsck names them and --repair rewrites them.
    for (const p of report.problems) expect(p).toMatchObject({ kind: 'missing', recoverable: true });
    expect(fsck.code).toBe(report.problems.length === 0 ? 0 : 1);
    if (report.problems.length > 0) {
      const repaired = await runCli(['fsck', '--mds', cluster.mdsAddress, '--repair'], { timeoutMs: 90_000 });
      expect(repaired.code, repaired.stdout.slice(-2000) + repaired.stderr).toBe(0);
    }
    expect(await work.verify(client)).toEqual([]);
  });
});
