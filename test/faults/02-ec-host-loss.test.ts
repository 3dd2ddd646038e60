// Scenario 2: ec:4+2 across hosts, lose two hosts, then a third.
//
// Cluster: 7 hosts (one OSS each, 1 OST), 4 racks. Each file's 6 chunks sit on
// 6 of the 7 hosts, so a third lost host hurts some files and not others.
//   workload  16 seeded ec files (0 B .. 1 MiB, several stripes), local copies
//   fault     SIGKILL two hosts while a reader loops; then a third
//   safety    with two gone every file reads back identical (rebuilt from k);
//             with three gone a file missing 3 chunks fails with IO_DEGRADED
//             naming the stripe and its chunk objects (never wrong bytes, also
//             for ranged reads), and a file missing 2 still reads back
//   converge  revive the three hosts: every file reads back identical
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { connectReader } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster, waitOstsState } from '../helpers/cluster.js';
import { settle } from '../helpers/errors.js';
import { freePortRange } from '../helpers/ports.js';
import { suiteSeed, Workload } from './workload.js';

const SEED = suiteSeed('faults/02-ec-host-loss');
const S = 64 * 1024;
const EC42_HOST: Layout = { pattern: 'ec', k: 4, m: 2, failureDomain: 'host', stripeSize: S };

describe('scenario 2: ec:4+2 across hosts survives two lost hosts and fails clearly on the third', () => {
  let cluster: Cluster;
  let client: StripeClient;
  const work = new Workload(SEED);
  /** The hosts (OSS ids) holding each file's chunks. */
  const hostsOf = new Map<string, string[]>();

  beforeAll(async () => {
    cluster = await startCluster({
      oss: rackLayout(7, 2, 1),
      mdsGrpcPort: await freePortRange(2),
      pgCount: 32,
    });
    client = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 1_500 });
    await work.writeMany(client, '/ec', 16, EC42_HOST);
    for (const path of work.files.keys()) {
      const report = await client.getLayout(path);
      hostsOf.set(
        path,
        report.objects.map((o) => cluster.ossOfOst(o.osts[0] as number).id),
      );
    }
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  const killed: string[] = [];
  const kill = async (id: string): Promise<void> => {
    await cluster.killOss(id);
    killed.push(id);
  };

  it('two hosts lost: every file reads back identical, during and after the kills', async () => {
    let stop = false;
    const during: string[] = [];
    const reader = (async () => {
      while (!stop) during.push(...(await work.verify(client)));
    })();
    await kill('oss1');
    await kill('oss4');
    await waitOstsState(cluster.mdsAddress, [...cluster.ostsOf('oss1'), ...cluster.ostsOf('oss4')], false);
    stop = true;
    await reader;
    expect(during).toEqual([]);
    expect(await work.verify(client)).toEqual([]);
    expect(client.stats().degradedReads).toBeGreaterThan(0);
  });

  it('a third host lost: affected files fail with IO_DEGRADED naming stripes, others read back', async () => {
    await kill('oss6');
    await waitOstsState(cluster.mdsAddress, cluster.ostsOf('oss6'), false);
    let affected = 0;
    for (const [path, expected] of work.files) {
      const hosts = hostsOf.get(path) ?? [];
      const lost = hosts.filter((h) => killed.includes(h)).length;
      // Data chunks that hold bytes of the file: small files leave the last data chunks as padding.
      const dataChunks = Math.min(4, Math.ceil(expected.length / S));
      const needsRebuild = hosts.slice(0, dataChunks).some((h) => killed.includes(h));
      const got = await settle(client.readFile(path));
      if (lost <= 2 || !needsRebuild) {
        expect(got.ok && got.value.equals(expected), `${path} lost ${lost} chunks`).toBe(true);
        continue;
      }
      affected++;
      expect(got.ok, `${path} lost ${lost} chunks but read`).toBe(false);
      if (got.ok) continue;
      const err = got.err as StripeError;
      expect(err).toBeInstanceOf(StripeError);
      expect(err.code).toBe('IO_DEGRADED');
      expect(err.message).toMatch(/stripe \d+/);
      const details = err.details as { stripes: number[]; objects: string[] };
      expect(details.stripes.length).toBeGreaterThan(0);
      expect(details.objects).toHaveLength(6);
      // A ranged read inside the file: an error too, never other bytes.
      const handle = await client.open(path, 'r');
      const out = Buffer.alloc(Math.min(1000, expected.length));
      const ranged = await settle(handle.read(out, 0, out.length, expected.length - out.length));
      await handle.close();
      expect(
        ranged.ok && !out.equals(expected.subarray(expected.length - out.length)),
        `${path} wrong bytes`,
      ).toBe(false);
    }
    console.log(`files hit by the third host: ${affected} of ${work.files.size}`);
    expect(affected).toBeGreaterThan(0);
  });

  it('converges: the three hosts back, every file reads back identical', async () => {
    await Promise.all(killed.map((id) => cluster.reviveOss(id)));
    await waitOstsState(
      cluster.mdsAddress,
      killed.flatMap((id) => cluster.ostsOf(id)),
      true,
    );
    const fresh = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 2_000 });
    try {
      expect(await work.verify(fresh)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
