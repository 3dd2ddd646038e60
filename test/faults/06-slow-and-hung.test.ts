// Scenario 6: a slow OST (latency knob) and a hung OST (hang knob).
// The client's request timeout is 1 s; a slow OST answers after 3 s.
//   workload  8 replicated:3 and 8 ec:4+2 files (host domain), local copies
//   fault     latencyMs 3000 on both OSTs of the host holding the most first
//             copies (replica primaries, ec chunk 0); then hang on them
//   safety    every file reads back identical, and the whole pass gives up on
//             at most the requests already sent to the bad host (its OSTs are
//             suspect after their first timeouts: later reads take other
//             copies, or rebuild from k chunks); a write to a hung replica
//             settles with an error code or success: no request waits for ever
//   converge  knobs cleared: the OSSs are alive, every file reads back
//             identical, new files are written and read back
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { CLIENT_LIMITS } from '../../client/limits.js';
import { connectReader } from '../helpers/clients.js';
import { adminJson, type Cluster, rackLayout, setOstFaults, startCluster } from '../helpers/cluster.js';
import { settle } from '../helpers/errors.js';
import { freePortRange } from '../helpers/ports.js';
import { suiteSeed, Workload } from './workload.js';

const SEED = suiteSeed('faults/06-slow-and-hung');
const S = 64 * 1024;
const TIMEOUT_MS = 1_000;
/**
 * Timeouts a pass over every file may cost: the requests in flight to the bad host when its
 * OSTs first time out (one wave per OST), never one per block. The reader's suspicion
 * outlasts the test, so a slow machine cannot make it expire and be paid for again.
 */
const PASS_TIMEOUTS_MAX = 2 * CLIENT_LIMITS.inFlightPerOssMax;
const REP3: Layout = {
  pattern: 'replicated',
  replicas: 3,
  failureDomain: 'host',
  stripeCount: 2,
  stripeSize: S,
};
const EC42: Layout = { pattern: 'ec', k: 4, m: 2, failureDomain: 'host', stripeSize: S };

describe('scenario 6: slow and hung OSTs cost a timeout, never a hang', () => {
  let cluster: Cluster;
  let writer: StripeClient;
  const work = new Workload(SEED, 512 * 1024);
  const firstCopies = new Set<number>();

  beforeAll(async () => {
    cluster = await startCluster({ oss: rackLayout(6, 2), mdsGrpcPort: await freePortRange(2), pgCount: 32 });
    writer = await connectReader(cluster.mdsAddress, SEED, { requestTimeoutMs: TIMEOUT_MS });
    await work.writeMany(writer, '/rep', 8, REP3);
    await work.writeMany(writer, '/ec', 8, EC42);
    // The host holding the most first copies: with host failure domains every file keeps a
    // good copy (replicated) or k good chunks (ec) elsewhere.
    const count = new Map<string, number>();
    for (const path of work.files.keys()) {
      const first = (await writer.getLayout(path)).objects[0]?.osts[0];
      if (first === undefined) continue;
      const host = cluster.ossOfOst(first).id;
      count.set(host, (count.get(host) ?? 0) + 1);
    }
    const host = [...count].sort((a, b) => b[1] - a[1])[0]?.[0] as string;
    for (const ost of cluster.ostsOf(host)) firstCopies.add(ost);
    console.log(`faulty host ${host} (OSTs ${[...firstCopies]}) holds ${count.get(host)} first copies`);
  });
  afterAll(async () => {
    await writer?.close();
    await cluster?.stop();
  });

  /** Reads every file with a fresh reader; returns how many requests it gave up on. */
  async function readAll(what: string): Promise<number> {
    const reader = await connectReader(cluster.mdsAddress, SEED, {
      requestTimeoutMs: TIMEOUT_MS,
      ostSuspectMs: 3_600_000,
    });
    try {
      for (const [path, expected] of work.files) {
        const got = await settle(reader.readFile(path));
        expect(
          got.ok ? got.value.equals(expected) : `${got.code} ${got.err.message}`,
          `${what}: ${path}`,
        ).toBe(true);
      }
      const { timeouts, suspect } = reader.stats().osts;
      console.log(`${what}: ${timeouts} requests timed out; suspect OSTs ${suspect}`);
      expect(timeouts, `${what}: requests given up`).toBeLessThanOrEqual(PASS_TIMEOUTS_MAX);
      return timeouts;
    } finally {
      await reader.close();
    }
  }

  async function withKnobs(
    knobs: Record<string, number | boolean>,
    work: () => Promise<void>,
  ): Promise<void> {
    for (const ost of firstCopies) await setOstFaults(cluster, ost, { ...knobs, seed: SEED });
    try {
      await work();
    } finally {
      for (const ost of firstCopies) await setOstFaults(cluster, ost, null);
    }
  }

  it('slow first copies (3 s latency, 1 s timeout): reads go to other copies in time', async () => {
    await withKnobs({ latencyMs: 3 * TIMEOUT_MS, jitterMs: 100 }, async () => {
      expect(await readAll('slow')).toBeGreaterThan(0);
    });
  });

  it('hung first copies: reads go to other copies in time; a write to a hung replica settles', async () => {
    await withKnobs({ hang: true }, async () => {
      expect(await readAll('hung')).toBeGreaterThan(0);
      // A replicated write whose copies include a hung OST settles: it fails with a code or
      // succeeds (the test's own timeout is the deadline for a request that would wait for ever).
      const result = await settle(
        writer.writeFile('/rep/while-hung', Buffer.alloc(300_000, 5), { layout: REP3 }),
      );
      console.log(`write with a hung replica: ${result.ok ? 'ok' : result.code}`);
      if (!result.ok) expect(['REQ_TIMEOUT', 'IO_FAILED', 'REQ_UNAVAILABLE']).toContain(result.code);
      else work.files.set('/rep/while-hung', Buffer.alloc(300_000, 5));
    });
  });

  it('converges: knobs cleared, every OSS alive, every file reads back, new writes work', async () => {
    for (const spec of cluster.specs) {
      const health = await adminJson<{ ok: boolean }>(`${cluster.adminUrlOf(spec.id)}/healthz`);
      expect(health.ok).toBe(true);
    }
    await readAll('cleared');
    await work.writeMany(writer, '/rep/after', 4, REP3);
    expect(await work.verify(writer)).toEqual([]);
  });
});
