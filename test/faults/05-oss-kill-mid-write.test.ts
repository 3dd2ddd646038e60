// Scenario 5: SIGKILL an OSS in the middle of writes.
//   workload  8 writers, each writing replicated:3 (host) and ec:4+2 (host)
//             files of up to 1 MiB in a loop, local copies of what was acknowledged
//   fault     SIGKILL one OSS while the writers run (then revive it)
//   safety    every write either succeeds or fails with a stable error code
//             (no hang, no unknown error); every acknowledged file reads back
//             identical while the OSS is down
//   converge  the OSS revived: every acknowledged file still reads back, and
//             writers succeed again
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { isErrorCode } from '../../common/errors.js';
import { connectReader } from '../helpers/clients.js';
import { type Cluster, rackLayout, startCluster, waitOstsState } from '../helpers/cluster.js';
import { settle } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { freePortRange } from '../helpers/ports.js';
import { suiteSeed, Workload } from './workload.js';

const SEED = suiteSeed('faults/05-oss-kill-mid-write');
const S = 64 * 1024;
const REP3: Layout = {
  pattern: 'replicated',
  replicas: 3,
  failureDomain: 'host',
  stripeCount: 2,
  stripeSize: S,
};
const EC42: Layout = { pattern: 'ec', k: 4, m: 2, failureDomain: 'host', stripeSize: S };
const WRITERS = 8;
/** Writes that end (acknowledged or failed) before the kill, once the OSTs are down, and after the revival. */
const WRITES_PER_PHASE = 2 * WRITERS;

describe('scenario 5: an OSS killed mid-write loses nothing acknowledged', () => {
  let cluster: Cluster;
  let client: StripeClient;
  const work = new Workload(SEED, 1 << 20);
  const failures = new Map<string, number>();

  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(6, 2), mdsGrpcPort: await freePortRange(2), pgCount: 32 });
    client = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 2_000 });
    await client.mkdir('/w', { recursive: true });
  });
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  /** Writers run until `stop()`; each failure must carry a registry code. */
  function startWriters(tag: string): { ended: () => number; stop: () => Promise<number> } {
    let running = true;
    let written = 0;
    let ended = 0;
    const writers = Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; running; i++) {
        const path = `/w/${tag}-${w}-${i}`;
        const result = await settle(work.write(client, path, i % 2 === 0 ? REP3 : EC42));
        ended++;
        if (result.ok) written++;
        else {
          const code = result.code;
          expect(isErrorCode(code), `${path}: ${code}`).toBe(true);
          failures.set(code, (failures.get(code) ?? 0) + 1);
        }
      }
    });
    return {
      ended: () => ended,
      stop: async () => {
        running = false;
        await Promise.all(writers);
        return written;
      },
    };
  }

  it('writers during the kill: success or a coded error; every acknowledged file reads back', async () => {
    const writers = startWriters('kill');
    await eventually(() => writers.ended() >= WRITES_PER_PHASE, {
      timeoutMs: 60_000,
      what: `${WRITES_PER_PHASE} writes ended before the kill`,
    });
    await cluster.killOss('oss3');
    await waitOstsState(cluster.mdsAddress, cluster.ostsOf('oss3'), false);
    const down = writers.ended();
    await eventually(() => writers.ended() >= down + WRITES_PER_PHASE, {
      timeoutMs: 60_000,
      what: `${WRITES_PER_PHASE} writes ended with the OSS down`,
    });
    const written = await writers.stop();
    console.log(`acknowledged ${written} files; failures by code: ${JSON.stringify([...failures])}`);
    expect(written).toBeGreaterThan(0);
    expect(await work.verify(client)).toEqual([]);
  });

  it('converges: the OSS revived, every acknowledged file reads back, writers succeed again', async () => {
    await cluster.reviveOss('oss3');
    await waitOstsState(cluster.mdsAddress, cluster.ostsOf('oss3'), true);
    const before = failures.size;
    const writers = startWriters('after');
    await eventually(() => writers.ended() >= WRITES_PER_PHASE, {
      timeoutMs: 60_000,
      what: `${WRITES_PER_PHASE} writes ended after the revival`,
    });
    expect(await writers.stop()).toBeGreaterThan(0);
    expect(failures.size).toBe(before);
    const fresh = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: 2_000 });
    try {
      expect(await work.verify(fresh)).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
