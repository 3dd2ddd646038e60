// Scenario 6: a slow OST (latency knob) and a hung OST (hang knob).
// The client's request timeout is 1 s; a slow OST answers after 3 s.
//   workload  8 replicated:3 and 8 ec:4+2 files (host domain), local copies
//   fault     latencyMs 3000 on both OSTs of the host holding the most first
//             copies (replica primaries, ec chunk 0); then hang on them
//   safety    every file reads back identical, each read within a few
//             timeouts (other copies, or a rebuild from k chunks); a write to
//             a hung replica settles (an error code or success) within the
//             retry budget: no request waits for ever
//   converge  knobs cleared: the OSSs are alive, every file reads back
//             identical, new files are written and read back
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Layout, StripeClient } from '../../client/index.js';
import { freePortRange } from '../helpers/ports.js';
import { type FaultCluster, getJson, rackLayout, setFaults, startFaultCluster } from './harness.js';
import { codeOf, connectReader, settle, suiteSeed, Workload } from './workload.js';

const SEED = suiteSeed('faults/06-slow-and-hung');
const S = 64 * 1024;
const TIMEOUT_MS = 1_000;
/** A read of one file may wait out a few timeouts (requests queued for the bad OSS), never more. */
const FILE_READ_MS_MAX = 8 * TIMEOUT_MS;
const REP3: Layout = {
  pattern: 'replicated',
  replicas: 3,
  failureDomain: 'host',
  stripeCount: 2,
  stripeSize: S,
};
const EC42: Layout = { pattern: 'ec', k: 4, m: 2, failureDomain: 'host', stripeSize: S };

describe('scenario 6: slow and hung OSTs cost a timeout, never a hang', () => {
  let cluster: FaultCluster;
  let writer: StripeClient;
  const work = new Workload(SEED, 512 * 1024);
  const firstCopies = new Set<number>();

  beforeAll(async () => {
    cluster = await startFaultCluster({ oss: rackLayout(6, 2), mdsGrpcPort: await freePortRange(2) });
    writer = await connectReader(cluster.mdsAddress, SEED, TIMEOUT_MS);
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
  }, 90_000);
  afterAll(async () => {
    await writer?.close();
    await cluster?.stop();
  });

  /** Reads every file with a fresh reader, timing each read. */
  async function readAllTimed(what: string): Promise<void> {
    const reader = await connectReader(cluster.mdsAddress, SEED, TIMEOUT_MS);
    try {
      for (const [path, expected] of work.files) {
        const started = performance.now();
        const got = await settle(reader.readFile(path));
        const elapsedMs = performance.now() - started;
        expect(
          got.ok ? got.value.equals(expected) : `${codeOf(got.err)} ${(got.err as Error).message}`,
          `${what}: ${path}`,
        ).toBe(true);
        expect(elapsedMs, `${what}: ${path} took ${Math.round(elapsedMs)} ms`).toBeLessThan(FILE_READ_MS_MAX);
      }
    } finally {
      await reader.close();
    }
  }

  async function withKnobs(
    knobs: Record<string, number | boolean>,
    work: () => Promise<void>,
  ): Promise<void> {
    for (const ost of firstCopies) await setFaults(cluster, ost, { ...knobs, seed: SEED });
    try {
      await work();
    } finally {
      for (const ost of firstCopies) await setFaults(cluster, ost, null);
    }
  }

  it('slow first copies (3 s latency, 1 s timeout): reads go to other copies in time', async () => {
    await withKnobs({ latencyMs: 3 * TIMEOUT_MS, jitterMs: 100 }, () => readAllTimed('slow'));
  });

  it('hung first copies: reads go to other copies in time; a write to a hung replica settles', async () => {
    await withKnobs({ hang: true }, async () => {
      await readAllTimed('hung');
      // A replicated write whose copies include a hung OST: it fails with a code or
      // succeeds, within the retry budget (5 retries of a 1 s timeout plus backoff).
      const started = performance.now();
      const result = await settle(
        writer.writeFile('/rep/while-hung', Buffer.alloc(300_000, 5), { layout: REP3 }),
      );
      const elapsedMs = performance.now() - started;
      console.log(
        `write with a hung replica: ${result.ok ? 'ok' : codeOf(result.err)} after ${Math.round(elapsedMs)} ms`,
      );
      if (!result.ok) expect(['REQ_TIMEOUT', 'IO_FAILED', 'REQ_UNAVAILABLE']).toContain(codeOf(result.err));
      else work.files.set('/rep/while-hung', Buffer.alloc(300_000, 5));
      expect(elapsedMs).toBeLessThan(30_000);
    });
  });

  it('converges: knobs cleared, every OSS alive, every file reads back, new writes work', async () => {
    for (const spec of cluster.specs) {
      const health = await getJson<{ ok: boolean }>(`${cluster.adminUrlOf(spec.id)}/healthz`);
      expect(health.ok).toBe(true);
    }
    await readAllTimed('cleared');
    await work.writeMany(writer, '/rep/after', 4, REP3);
    expect(await work.verify(writer)).toEqual([]);
  });
});
