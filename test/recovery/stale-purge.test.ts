// A stale copy is purged only when every one of its objects is gone. An OSS
// holding copies of a replicated file is SIGKILLed and its OSTs are marked
// out; recovery re-copies their PGs elsewhere and remembers the copies left
// on them (stale-copy records). The OSS comes back with every delete failing
// (oss.faults writeFailRate 1): the MDS's purge passes fail and the records
// of PGs with objects stay, pass after pass, with every object still on the
// OSTs; once the knob is cleared the next pass deletes them all and drops the
// records.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedFromEnv } from '../../common/random.js';
import { adminFetch } from '../helpers/admin-http.js';
import { seededBytes } from '../helpers/clients.js';
import { waitCleanPgs, waitForOsts } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { startProcess } from '../helpers/process.js';
import { type RecoveryAnswer, recoveryFixture, rep3, UNIT } from './helpers.js';

const SEED = seedFromEnv();
console.log(`recovery stale-purge seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const REP3 = rep3(4);
const WAIT_MS = 60_000;

describe('purging stale copies', () => {
  const fx = recoveryFixture({}, SEED);

  it('keeps a stale-copy record while any of its objects could not be deleted', async () => {
    const { cluster, client } = fx;
    const data = seededBytes(16 * UNIT, SEED);
    await client.writeFile('/f', data, { layout: REP3 });
    const objects = (await client.getLayout('/f')).objects;
    const index = cluster.ossIndexOfOst(objects[0]!.osts[0]!);
    const oss = cluster.oss[index]!;
    const ostIds = (oss.ready.osts as { id: number }[]).map((o) => o.id);
    // The copies on that OSS's OSTs, and the (OST, PG) pairs they lie in: one stale-copy record each.
    const copies = objects.flatMap((o) =>
      o.osts.filter((id) => ostIds.includes(id)).map((id) => `${id}/${o.pg}`),
    );
    const adminOf = (port: number) => `http://127.0.0.1:${port}`;
    const objectsOn = async (port: number): Promise<number> =>
      ((await (await adminFetch(`${adminOf(port)}/api/osts`)).json()) as { objectCount: number }[]).reduce(
        (sum, o) => sum + o.objectCount,
        0,
      );
    const held = await objectsOn(oss.ready.adminPort);
    expect(held).toBe(copies.length);

    await oss.kill();
    for (const id of ostIds) await cluster.admin(`/api/osts/${id}/out`, { method: 'POST' });
    await waitCleanPgs(cluster, { timeoutMs: WAIT_MS });
    const before = await cluster.admin<RecoveryAnswer>('/api/recovery');
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
      const text = await (await adminFetch(`${adminOf(back.ready.adminPort)}/metrics`)).text();
      let sum = 0;
      for (const m of text.matchAll(
        /^stripefs_oss_ops_total\{[^}]*op="delete"[^}]*result="FAULT_INJECTED"[^}]*\} (\d+)/gm,
      ))
        sum += Number(m[1]);
      return sum;
    };
    // Two whole passes failed: the second can only come when the first kept the records.
    await eventually(async () => (await failedDeletes()) >= 2 * held, {
      timeoutMs: WAIT_MS,
      what: 'two failed purge passes',
    });
    // The records of PGs with nothing on these OSTs were purged; the others all stay.
    const during = await cluster.admin<RecoveryAnswer>('/api/recovery');
    expect(during.staleCopies).toBe(new Set(copies).size);
    expect(await objectsOn(back.ready.adminPort)).toBe(held);

    for (const id of ostIds)
      await adminFetch(`${adminOf(back.ready.adminPort)}/api/osts/${id}/faults`, { method: 'DELETE' });
    await eventually(
      async () => {
        const status = await cluster.admin<RecoveryAnswer>('/api/recovery');
        return status.staleCopies === 0 && (await objectsOn(back.ready.adminPort)) === 0 ? status : undefined;
      },
      { timeoutMs: WAIT_MS, what: 'every stale copy purged' },
    );
    expect((await client.readFile('/f')).equals(data)).toBe(true);
  });
});
