// A stale copy is purged only when every one of its objects is gone. An OSS
// holding copies of a replicated file is SIGKILLed and its OSTs are marked
// out; recovery re-copies their PGs elsewhere and remembers the copies left
// on them (stale-copy records). The OSS comes back with every delete failing
// (oss.faults writeFailRate 1): the MDS's purge passes fail and the records
// of PGs with objects stay, pass after pass, with every object still on the
// OSTs; once the knob is cleared the next pass deletes them all and drops the
// records.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import {
  type Cluster,
  clusterAvailable,
  ossIndexOfOst,
  seededBytes,
  waitForOsts,
} from '../client/cluster.js';
import { startProcess } from '../helpers/process.js';
import { adminJson, connectReader, startRecoveryCluster, waitClean } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery stale-purge seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * 1024;
const REP3: Layout = {
  pattern: 'replicated',
  stripeSize: S,
  stripeCount: 4,
  replicas: 3,
  failureDomain: 'host',
};
const WAIT_MS = 60_000;

interface RecoveryStatus {
  staleCopies: number;
}

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  let last: unknown;
  for (;;) {
    const value = await probe().catch((err: unknown) => {
      last = err;
      return undefined;
    });
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not within ${WAIT_MS} ms (${String(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!clusterAvailable())('purging stale copies', () => {
  let cluster: Cluster;
  let client: StripeClient;

  beforeAll(async () => {
    cluster = await startRecoveryCluster();
    client = await connectReader(cluster, SEED);
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  it('keeps a stale-copy record while any of its objects could not be deleted', async () => {
    const data = seededBytes(16 * S, SEED);
    await client.writeFile('/f', data, { layout: REP3 });
    const objects = (await client.getLayout('/f')).objects;
    const index = await ossIndexOfOst(cluster, objects[0]!.osts[0]!);
    const oss = cluster.oss[index]!;
    const ostIds = (oss.ready.osts as { id: number }[]).map((o) => o.id);
    // The copies on that OSS's OSTs, and the (OST, PG) pairs they lie in: one stale-copy record each.
    const copies = objects.flatMap((o) =>
      o.osts.filter((id) => ostIds.includes(id)).map((id) => `${id}/${o.pg}`),
    );
    const adminOf = (port: number) => `http://127.0.0.1:${port}`;
    const objectsOn = async (port: number): Promise<number> =>
      ((await (await fetch(`${adminOf(port)}/api/osts`)).json()) as { objectCount: number }[]).reduce(
        (sum, o) => sum + o.objectCount,
        0,
      );
    const held = await objectsOn(oss.ready.adminPort);
    expect(held).toBe(copies.length);

    await oss.kill();
    for (const id of ostIds) await adminJson(cluster, `/api/osts/${id}/out`, { method: 'POST' });
    await waitClean(cluster, WAIT_MS);
    const before = await adminJson<RecoveryStatus>(cluster, '/api/recovery');
    expect(before.staleCopies).toBeGreaterThanOrEqual(new Set(copies).size);

    // Back on its data, with every delete failing from its first request on.
    const back = await startProcess({
      script: 'dist/oss/main.js',
      env: {
        STRIPEFS_MDS: cluster.mdsAddress,
        STRIPEFS_MDS_HEARTBEAT_INTERVAL_MS: '200',
        STRIPEFS_OSS_ID: `oss${index}`,
        STRIPEFS_OSS_HOST: `h${index}`,
        STRIPEFS_OSS_RACK: `r${Math.floor(index / 2)}`,
        STRIPEFS_OSS_DATA_DIR: join(cluster.dir, `oss${index}`),
        STRIPEFS_OSS_OSTS: String(ostIds.length),
        STRIPEFS_OSS_FAULTS: JSON.stringify({ writeFailRate: 1 }),
      },
    });
    cluster.oss[index] = back;
    await waitForOsts(cluster.mdsAddress, 12, 10);
    const failedDeletes = async (): Promise<number> => {
      const text = await (await fetch(`${adminOf(back.ready.adminPort)}/metrics`)).text();
      let sum = 0;
      for (const m of text.matchAll(
        /^stripefs_oss_ops_total\{[^}]*op="delete"[^}]*result="FAULT_INJECTED"[^}]*\} (\d+)/gm,
      ))
        sum += Number(m[1]);
      return sum;
    };
    // Two whole passes failed: the second can only come when the first kept the records.
    await waitFor(
      async () => ((await failedDeletes()) >= 2 * held ? true : undefined),
      'two failed purge passes',
    );
    // The records of PGs with nothing on these OSTs were purged; the others all stay.
    const during = await adminJson<RecoveryStatus>(cluster, '/api/recovery');
    expect(during.staleCopies).toBe(new Set(copies).size);
    expect(await objectsOn(back.ready.adminPort)).toBe(held);

    for (const id of ostIds)
      await fetch(`${adminOf(back.ready.adminPort)}/api/osts/${id}/faults`, { method: 'DELETE' });
    await waitFor(async () => {
      const status = await adminJson<RecoveryStatus>(cluster, '/api/recovery');
      return status.staleCopies === 0 && (await objectsOn(back.ready.adminPort)) === 0 ? status : undefined;
    }, 'every stale copy purged');
    expect((await client.readFile('/f')).equals(data)).toBe(true);
  });
});
