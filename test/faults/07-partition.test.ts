// Scenario 7: a network partition with real separate addresses. The two OSSs
// of rack r2 run in their own network namespace (ip netns), reached over a
// veth pair with private addresses that exist only between this host and the
// namespace (host side 10.213.N.1, namespace side 10.213.N.2); the MDS, the
// other OSSs and the client use the host side address. Needs root and `ip`;
// skipped with a message where namespaces cannot be made.
//   workload  20 replicated:3 (rack) files, local copies
//   fault     the namespace's link set down: r2 is cut off, its OSSs still run
//   safety    as scenario 1: every file reads back identical during and after
//             the cut; new files are written with 2 of 3 racks (min_size)
//   converge  link up: r2 heartbeats again and is up; every file reads back;
//             fsck names the copies r2 missed and --repair leaves it clean
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { runCli } from '../helpers/cli.js';
import { connectReader } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster, waitOstsState } from '../helpers/cluster.js';
import { NetNamespace } from '../helpers/netns.js';
import { freePortRange } from '../helpers/ports.js';
import { suiteSeed, Workload } from './workload.js';

const SEED = suiteSeed('faults/07-partition');
const REP3_RACK: Layout = {
  pattern: 'replicated',
  replicas: 3,
  failureDomain: 'rack',
  stripeCount: 2,
  stripeSize: 64 * 1024,
};
const net = new NetNamespace(`sfs-${process.pid}-r2`, String(process.pid), process.pid);
const HOST_ADDRESS = net.hostAddress;
const NS_ADDRESS = net.nsAddress;

const unavailable = net.make();
if (unavailable) console.log(`scenario 7 skipped: ${unavailable}`);

describe.skipIf(unavailable !== undefined)('scenario 7: a rack cut off by a network partition', () => {
  let cluster: Cluster;
  let client: StripeClient;
  const work = new Workload(SEED);

  beforeAll(async () => {
    const oss = rackLayout(6, 2).map((spec) =>
      spec.rack === 'r2'
        ? { ...spec, netns: net.name, bindHost: NS_ADDRESS }
        : { ...spec, bindHost: HOST_ADDRESS },
    );
    cluster = await startCluster({
      oss,
      mdsGrpcPort: await freePortRange(2),
      mdsHost: HOST_ADDRESS,
      pgCount: 32,
    });
    client = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 2_000 });
    await client.mkdir('/rep', { recursive: true, layout: REP3_RACK });
    await work.writeMany(client, '/rep', 20);
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
    net.remove();
  });

  const r2Osts = (): number[] => ['oss4', 'oss5'].flatMap((id) => cluster.ostsOf(id));

  it('the cut: every file reads back identical while and after r2 is unreachable', async () => {
    let stop = false;
    const during: string[] = [];
    const reader = (async () => {
      while (!stop) during.push(...(await work.verify(client)));
    })();
    net.cut();
    await waitOstsState(cluster.mdsAddress, r2Osts(), false);
    stop = true;
    await reader;
    expect(during).toEqual([]);
    expect(await work.verify(client)).toEqual([]);
    // Partitioned, not dead: the OSSs of r2 still run.
    for (const id of ['oss4', 'oss5']) expect(cluster.ossById(id).child.exitCode).toBeNull();
  });

  it('new files are written with 2 of 3 racks reachable (min_size 2) and read back', async () => {
    await work.writeMany(client, '/rep/cut', 8);
    expect(await work.verify(client)).toEqual([]);
  });

  it('converges: link up, r2 back up, every file reads back, fsck --repair leaves it clean', async () => {
    net.heal();
    await waitOstsState(cluster.mdsAddress, r2Osts(), true);
    const fresh = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 2_000 });
    try {
      expect(await work.verify(fresh)).toEqual([]);
    } finally {
      await fresh.close();
    }
    const repaired = await runCli(['fsck', '--mds', cluster.mdsAddress, '--repair'], { timeoutMs: 60_000 });
    console.log(repaired.stdout.split('\n').slice(-3).join('\n'));
    expect(repaired.code, repaired.stdout.slice(-2000) + repaired.stderr).toBe(0);
    expect(await work.verify(client)).toEqual([]);
  });
});
