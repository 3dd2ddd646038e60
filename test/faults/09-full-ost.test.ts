// Scenario 9: a full OST. Every OST has a 4 MiB quota (oss.ostCapacityBytes).
//   workload  12 small replicated:3 files (up to 256 KiB) spread over the cluster
//   fault     a 6 MiB raid0 file (one object, so one OST) overflows its OST
//   safety    the writer gets OBJ_NO_SPACE (errno ENOSPC); nothing of the
//             failed file is visible (size 0, reads as empty); every other file
//             reads back; new small files elsewhere are written and read back
//   converge  unlinking the failed file frees the OST (the destroy queue
//             deletes its partial object): its used bytes drop back, and fsck
//             reports no orphan of it
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { ERROR_CODES } from '../../common/errors.js';
import { runCli } from '../helpers/cli.js';
import { connectReader, seededBytes } from '../helpers/clients.js';
import { adminJson, type Cluster, rackLayout, startCluster } from '../helpers/cluster.js';
import { settle } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { freePortRange } from '../helpers/ports.js';
import { suiteSeed, Workload } from './workload.js';

const SEED = suiteSeed('faults/09-full-ost');
const MiB = 1 << 20;
const QUOTA_BYTES = 4 * MiB;
const RAID0: Layout = { pattern: 'raid0', stripeCount: 1, stripeSize: MiB };
const REP3: Layout = {
  pattern: 'replicated',
  replicas: 3,
  failureDomain: 'host',
  stripeCount: 1,
  stripeSize: 64 * 1024,
};

describe('scenario 9: a full OST gives the writer ENOSPC and hurts nothing else', () => {
  let cluster: Cluster;
  let client: StripeClient;
  const work = new Workload(SEED, 256 * 1024);
  let fullOst = -1;

  beforeAll(async () => {
    const oss = rackLayout(6, 2).map((s) => ({
      ...s,
      env: { STRIPEFS_OSS_OST_CAPACITY_BYTES: String(QUOTA_BYTES) },
    }));
    cluster = await startCluster({ oss, mdsGrpcPort: await freePortRange(2), pgCount: 32 });
    // One stripe unit per write request: the units of the failed file that fit are stored (and
    // take the space its unlink must free); a 4 MiB run would be refused whole by the OST.
    client = await connectReader(cluster.mdsAddress, SEED, {
      requestTimeoutMs: 2_000,
      writeRequestBytesMax: MiB,
    });
    await work.writeMany(client, '/small', 12, REP3);
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  const usedBytesOf = async (ostId: number): Promise<number> => {
    const osts = await adminJson<{ id: number; usedBytes: number }[]>(
      `${cluster.adminUrlOf(cluster.ossOfOst(ostId).id)}/api/osts`,
    );
    return osts.find((o) => o.id === ostId)?.usedBytes ?? -1;
  };

  it('the writer gets OBJ_NO_SPACE (ENOSPC) and nothing of the file becomes visible', async () => {
    await client.mkdir('/full', { recursive: true });
    const big = seededBytes(6 * MiB, SEED + 9);
    const result = await settle(client.writeFile('/full/big', big, { layout: RAID0 }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe('OBJ_NO_SPACE');
    expect(ERROR_CODES.OBJ_NO_SPACE.errno).toBe('ENOSPC');
    fullOst = (await client.getLayout('/full/big')).objects[0]?.osts[0] as number;
    console.log(`OST ${fullOst} full: ${(result.err as Error).message}`);
    // No partial file: the close never committed a size.
    expect((await client.stat('/full/big')).size).toBe(0);
    expect((await client.readFile('/full/big')).length).toBe(0);
  });

  it('the rest of the cluster is fine: every file reads back and new files are written', async () => {
    expect(await work.verify(client)).toEqual([]);
    await work.writeMany(client, '/small/after', 6, REP3);
    expect(await work.verify(client)).toEqual([]);
  });

  it('converges: unlinking the failed file frees the OST, fsck finds no orphan of it', async () => {
    const before = await usedBytesOf(fullOst);
    expect(before).toBeGreaterThan(QUOTA_BYTES / 2);
    await client.unlink('/full/big');
    await eventually(async () => (await usedBytesOf(fullOst)) < before, {
      timeoutMs: 60_000,
      what: `OST ${fullOst} to free the ${before} bytes of the unlinked file`,
      intervalMs: 200,
    });
    const fsck = await runCli(['fsck', '--mds', cluster.mdsAddress, '--json'], { timeoutMs: 60_000 });
    expect(fsck.code, fsck.stdout + fsck.stderr).toBe(0);
    // A file that fits is written on the freed space.
    await work.write(client, '/full/fits', RAID0, seededBytes(MiB, SEED + 10));
    expect(await work.verify(client)).toEqual([]);
  });
});
