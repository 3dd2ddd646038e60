// A client's batched opens and stats over the MDS's framed path, on a real
// cluster (1 MDS, 6 OSSs, auth and tickets on): readFile of many data-on-MDS
// files in flight together takes framed OpenMany calls and no gRPC OpenMany,
// with the same bytes and the same count of MDS calls as a client on gRPC, most
// of each large answer read straight into its own buffer (not copied);
// striped files open the same way and read from OSSs that check tickets with
// the tickets the framed answers carried (no GetTickets); close-to-open holds
// (a file another client rewrote is read new by the next batch, nothing kept);
// and across an MDS restart the reads stay right and take the framed path again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLayout, StripeClient } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { adminFetch, mdsCalls as mdsCallsAt } from '../helpers/admin-http.js';
import { seededBytes } from '../helpers/clients.js';
import { type Cluster, startCluster, waitForMap } from '../helpers/cluster.js';
import { eventually } from '../helpers/eventually.js';
import { freePortRange } from '../helpers/ports.js';

const SEED = seedFromEnv();
console.log(`client mds-frames seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const K = 1024;
const DOM_FILES = 40;
const STRIPED_FILES = 6;

/** Framed calls of one method the MDS served so far (stripefs_mds_framed_calls_total). */
async function framedAtMds(cluster: Cluster, op: 'OpenMany' | 'StatMany'): Promise<number> {
  const text = await (await adminFetch(`${cluster.mdsAdminUrl}/metrics`)).text();
  const match = new RegExp(`^stripefs_mds_framed_calls_total\\{[^}]*\\bop="${op}"[^}]*\\} (\\d+)$`, 'm').exec(
    text,
  );
  return Number(match?.[1] ?? 0);
}

describe('batched opens over the MDS framed path', () => {
  let cluster: Cluster;
  let writer: StripeClient;
  const sizeOf = (i: number) => 1 * K + ((i * 7919) % (60 * K));
  const bodyOf = (i: number, round = 0) => seededBytes(sizeOf(i), SEED + i + round * 1000);
  const domPath = (i: number) => `/dom/f${i}`;
  const stripedPath = (i: number) => `/striped/s${i}`;
  const mdsCalls = (op: string) => mdsCallsAt(cluster.mdsAdminUrl, op);

  beforeAll(async () => {
    cluster = await startCluster({ mdsGrpcPort: await freePortRange(2), pgCount: 16 });
    writer = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    await writer.mkdir('/dom', { layout: parseLayout('dom:64K,raid0:1:1M') });
    await writer.mkdir('/striped', { layout: parseLayout('raid0:2:64K') });
    await Promise.all(Array.from({ length: DOM_FILES }, (_, i) => writer.writeFile(domPath(i), bodyOf(i))));
    await Promise.all(
      Array.from({ length: STRIPED_FILES }, (_, i) => writer.writeFile(stripedPath(i), bodyOf(100 + i))),
    );
  });
  afterAll(async () => {
    await writer?.close();
    await cluster?.stop();
  });

  /** Every data-on-MDS file read at once by `client`; each one's bytes checked. */
  async function readAllDom(client: StripeClient, round = 0): Promise<void> {
    const read = await Promise.all(Array.from({ length: DOM_FILES }, (_, i) => client.readFile(domPath(i))));
    read.forEach((bytes, i) => {
      expect(Buffer.compare(bytes, bodyOf(i, round)), domPath(i)).toBe(0);
    });
  }

  it('reads data-on-MDS files with framed OpenMany calls only, as many calls as over gRPC', async () => {
    const framed = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    const overGrpc = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED, mdsFramesOff: true });
    try {
      const openManyBefore = await mdsCalls('openMany');
      const framedBefore = await framedAtMds(cluster, 'OpenMany');
      await readAllDom(framed);
      const framedCalls = (await mdsCalls('openMany')) - openManyBefore;
      expect(framedCalls).toBeGreaterThanOrEqual(1);
      // Every OpenMany of that read came framed, and the client counted each one.
      expect((await framedAtMds(cluster, 'OpenMany')) - framedBefore).toBe(framedCalls);
      expect(framed.stats().mdsFrames).toMatchObject({ calls: framedCalls, fallbacks: 0 });
      // Most of each large answer was read straight into its own buffer, not copied out of the
      // connection's read buffer (which holds at most 64 KiB of an answer: its first read).
      const { answerBytesCopied, answerBytesInPlace } = framed.stats().mdsFrames;
      expect(answerBytesCopied + answerBytesInPlace).toBeGreaterThan(framed.stats().dom.bytesRead);
      expect(answerBytesCopied).toBeLessThanOrEqual(framedCalls * 64 * K);
      expect(answerBytesInPlace).toBeGreaterThan(framed.stats().dom.bytesRead / 2);
      expect(await mdsCalls('open')).toBe(0);
      expect(framed.stats().dom.bytesRead).toBe(
        Array.from({ length: DOM_FILES }, (_, i) => sizeOf(i)).reduce((a, b) => a + b, 0),
      );

      const between = await mdsCalls('openMany');
      await readAllDom(overGrpc);
      // The same reads over gRPC: the same count of calls, none framed.
      expect((await mdsCalls('openMany')) - between).toBe(framedCalls);
      expect(await framedAtMds(cluster, 'OpenMany')).toBe(framedBefore + framedCalls);
      expect(overGrpc.stats().mdsFrames.calls).toBe(0);
      expect(overGrpc.stats().dom.bytesRead).toBe(framed.stats().dom.bytesRead);
      // No byte of these files came from an OSS.
      expect(Object.keys(framed.stats().bytesReadPerOst)).toEqual([]);
    } finally {
      await framed.close();
      await overGrpc.close();
    }
  });

  it("opens striped files framed and reads them from the OSSs with the answers' tickets", async () => {
    const reader = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    try {
      const ticketsBefore = await mdsCalls('getTickets');
      const read = await Promise.all(
        Array.from({ length: STRIPED_FILES }, (_, i) => reader.readFile(stripedPath(i))),
      );
      read.forEach((bytes, i) => {
        expect(Buffer.compare(bytes, bodyOf(100 + i)), stripedPath(i)).toBe(0);
      });
      expect(reader.stats().mdsFrames.calls).toBeGreaterThanOrEqual(1);
      expect(reader.stats().mdsFrames.fallbacks).toBe(0);
      expect(await mdsCalls('getTickets')).toBe(ticketsBefore);
      const fromOsts = Object.values(reader.stats().bytesReadPerOst).reduce((a, b) => a + b, 0);
      expect(fromOsts).toBe(
        Array.from({ length: STRIPED_FILES }, (_, i) => sizeOf(100 + i)).reduce((a, b) => a + b, 0),
      );
    } finally {
      await reader.close();
    }
  });

  it('keeps close-to-open: the next batch reads what another client wrote since', async () => {
    const reader = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    try {
      await readAllDom(reader);
      const rewritten = [3, 17, 29];
      for (const i of rewritten) await writer.writeFile(domPath(i), bodyOf(i, 1));
      const calls = reader.stats().mdsFrames.calls;
      const again = await Promise.all(rewritten.map((i) => reader.readFile(domPath(i))));
      again.forEach((bytes, k) => {
        const i = rewritten[k] as number;
        expect(Buffer.compare(bytes, bodyOf(i, 1)), domPath(i)).toBe(0);
      });
      expect(reader.stats().mdsFrames.calls).toBe(calls + 1);
      for (const i of rewritten) await writer.writeFile(domPath(i), bodyOf(i));
    } finally {
      await reader.close();
    }
  });

  it('stats in flight together go as one framed StatMany', async () => {
    const client = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    try {
      const before = await framedAtMds(cluster, 'StatMany');
      const sizes = await Promise.all(
        Array.from({ length: DOM_FILES }, async (_, i) => (await client.stat(domPath(i))).size),
      );
      expect(sizes).toEqual(Array.from({ length: DOM_FILES }, (_, i) => sizeOf(i)));
      expect((await framedAtMds(cluster, 'StatMany')) - before).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('reads right across an MDS restart, and framed again once it is back', async () => {
    const reader = await StripeClient.connect({ mds: cluster.mdsAddress, seed: SEED });
    try {
      await readAllDom(reader);
      expect(reader.stats().mdsFrames.fallbacks).toBe(0);
      await cluster.killMds();
      await cluster.startMds();
      await waitForMap(
        cluster.mdsAddress,
        (osts) => osts.length === cluster.ostCount() && osts.every((o) => o.up),
      );
      // The connection broke with the MDS: the next batches go over gRPC (within FRAME_RETRY_MS of
      // the break) or over a new connection; either way the bytes are right.
      const before = reader.stats().mdsFrames;
      await readAllDom(reader);
      const after = reader.stats().mdsFrames;
      expect(after.calls + after.fallbacks).toBeGreaterThan(before.calls + before.fallbacks);
      await eventually(
        async () => {
          const calls = reader.stats().mdsFrames.calls;
          await readAllDom(reader);
          return reader.stats().mdsFrames.calls > calls;
        },
        { timeoutMs: 30_000, what: 'batches framed again after the MDS restart' },
      );
    } finally {
      await reader.close();
    }
  });
});
