// Scenario 3: bitrot. Bytes are flipped in object files on disk, behind the
// OSS's back: a replica of replicated files, a data chunk and a parity chunk
// of ec files.
//   workload  6 replicated:3 and 6 ec:4+2 files (host domain), local copies
//   fault     flip 8 bytes in the primary replica of object 0 of each
//             replicated file, and in chunk c0 (data) and c4 (parity) of each
//             ec file (so a rebuild of c0 also meets the bad parity)
//   safety    every file reads back identical; the client reports the bad
//             copies (ReportBadChunk); the OSSs count checksum errors; a scrub
//             finds the corrupt parity chunks a normal read never touches
//   converge  the MDS repairs what was reported: a second scrub of every OSS
//             finds no error, and `stripefs fsck` reports a clean state
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OssIo } from '../../cli/fsck/oss-io.js';
import type { Layout, StripeClient } from '../../client/index.js';
import { adminFetch } from '../helpers/admin-http.js';
import { serviceTicket } from '../helpers/auth.js';
import { runCli } from '../helpers/cli.js';
import { connectReader } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { freePortRange } from '../helpers/ports.js';
import { damageStoredBytes } from '../helpers/stored-bytes.js';
import { suiteSeed, Workload } from './workload.js';

const SEED = suiteSeed('faults/03-bitrot');
const S = 64 * 1024;
const REP3: Layout = {
  pattern: 'replicated',
  replicas: 3,
  failureDomain: 'host',
  stripeCount: 2,
  stripeSize: S,
};
const EC42: Layout = { pattern: 'ec', k: 4, m: 2, failureDomain: 'host', stripeSize: S };

interface ScrubReport {
  errorsFound: number;
  bad: { ostId: number; objectId: string; reason: string; repairScheduled: boolean }[];
}

/** Flips 8 stored bytes of an object from `offset` (XOR 0xff), where its OST keeps them (a file or a log record). */
function flipBytes(cluster: Cluster, ostId: number, objectId: string, offset: number): Promise<void> {
  return damageStoredBytes(cluster.adminUrlOf(cluster.ossOfOst(ostId).id), ostId, objectId, offset, {
    count: 8,
    mask: 0xff,
  });
}

describe('scenario 3: bitrot in data and parity is detected, read around, counted and repaired', () => {
  let cluster: Cluster;
  let client: StripeClient;
  const work = new Workload(SEED + 3, 1 << 20);
  let corrupted = 0;

  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(6, 2), mdsGrpcPort: await freePortRange(2), pgCount: 32 });
    client = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 2_000 });
    // Skip the 0-byte and 1-byte edge files: there must be bytes to rot.
    for (let i = 0; i < 2; i++) work.nextContents();
    await work.writeMany(client, '/rep', 6, REP3);
    await work.writeMany(client, '/ec', 6, EC42);
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  const scrubAll = async (): Promise<ScrubReport[]> =>
    Promise.all(
      cluster.specs.map(async (spec) => {
        const res = await adminFetch(`${cluster.adminUrlOf(spec.id)}/api/scrub`, { method: 'POST' });
        expect(res.ok).toBe(true);
        return (await res.json()) as ScrubReport;
      }),
    );

  it('flipped bytes: every file reads back identical and the bad copies are reported and counted', async () => {
    for (const [path, data] of work.files) {
      const report = await client.getLayout(path);
      const at = Math.min(1000, data.length - 8);
      if (path.startsWith('/rep/')) {
        const object = report.objects[0];
        if (!object) continue;
        await flipBytes(cluster, object.osts[0] as number, object.objectId, at);
        corrupted++;
      } else {
        for (const chunk of [0, 4]) {
          const object = report.objects[chunk];
          if (!object) continue;
          await flipBytes(cluster, object.osts[0] as number, object.objectId, at);
          corrupted++;
        }
      }
    }
    expect(await work.verify(client)).toEqual([]);
    expect(client.stats().badChunksReported).toBeGreaterThan(0);
    // Bulk reads leave whole blocks to the client's check; each bad one was read again with the OSS's.
    expect(client.stats().checksumRechecks).toBeGreaterThan(0);
    // The OSSs count what their checksums caught.
    let checksumErrors = 0;
    for (const spec of cluster.specs) {
      const text = await (await adminFetch(`${cluster.adminUrlOf(spec.id)}/metrics`)).text();
      for (const line of text.split('\n'))
        if (line.startsWith('stripefs_oss_checksum_errors_total'))
          checksumErrors += Number(line.split(' ').pop());
    }
    console.log(
      `corrupted ${corrupted} copies; client reported ${client.stats().badChunksReported}; OSS counted ${checksumErrors}`,
    );
    expect(checksumErrors).toBeGreaterThan(0);
  });

  it('a scrub finds the corruption (parity included) and converges to clean after repair', async () => {
    // The first pass may find copies the repairs already fixed; it must not find more than were rotted.
    const first = await scrubAll();
    const found = first.reduce((n, r) => n + r.errorsFound, 0);
    console.log(`first scrub found ${found}: ${JSON.stringify(first.flatMap((r) => r.bad))}`);
    expect(found).toBeLessThanOrEqual(corrupted);
    await eventually(
      async () => {
        const again = await scrubAll();
        if (again.every((r) => r.errorsFound === 0)) return again;
        throw new Error(`still corrupt: ${JSON.stringify(again.flatMap((r) => r.bad))}`);
      },
      { timeoutMs: 90_000, what: 'a scrub that finds nothing once the repairs ran', intervalMs: 500 },
    );
    expect(await work.verify(client)).toEqual([]);
    const fsck = await runCli(['fsck', '--mds', cluster.mdsAddress, '--json'], { timeoutMs: 60_000 });
    expect(fsck.code, fsck.stdout + fsck.stderr).toBe(0);
  });
  it('fsck finds rot nobody has read yet and an orphan object, and --repair fixes both', async () => {
    // A fresh file whose replica rots before anyone reads it, and an object that belongs to no file.
    const data = work.nextContents();
    await work.write(client, '/rep/unread', REP3, data.length > 1000 ? data : Buffer.alloc(300_000, 7));
    const report = await client.getLayout('/rep/unread');
    const object = report.objects[0] as (typeof report.objects)[number];
    await flipBytes(cluster, object.osts[0] as number, object.objectId, 500);
    // Planting an object that belongs to no file takes a service ticket (the run's admin's).
    const ticket = await serviceTicket(cluster.mdsAddress);
    const io = new OssIo(() => ticket.get());
    const orphanOst = object.osts[1] as number;
    const address = `127.0.0.1:${cluster.ossById(cluster.ossOfOst(orphanOst).id).ready.grpcPort}`;
    await io.writeWhole(
      address,
      { ostId: orphanOst, objectId: '999999.0', poolId: report.poolId ?? 0, pg: object.pg, mapEpoch: 0 },
      Buffer.alloc(4096, 1),
    );
    io.close();
    ticket.close();
    const check = await runCli(['fsck', '--mds', cluster.mdsAddress, '--json'], { timeoutMs: 60_000 });
    expect(check.code, check.stderr).toBe(1);
    const found = JSON.parse(check.stdout) as {
      problems: { kind: string; objectId: string; ostId: number; recoverable: boolean }[];
      orphans: { objectId: string; ostId: number; reason: string }[];
    };
    expect(found.problems).toContainEqual(
      expect.objectContaining({ kind: 'corrupt', objectId: object.objectId, recoverable: true }),
    );
    expect(found.orphans).toContainEqual(
      expect.objectContaining({ objectId: '999999.0', reason: 'no-file' }),
    );
    const fixed = await runCli(['fsck', '--mds', cluster.mdsAddress, '--repair'], { timeoutMs: 60_000 });
    console.log(fixed.stdout);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    const again = await runCli(['fsck', '--mds', cluster.mdsAddress], { timeoutMs: 60_000 });
    expect(again.code, again.stdout).toBe(0);
    expect(await work.verify(client)).toEqual([]);
  });
});
