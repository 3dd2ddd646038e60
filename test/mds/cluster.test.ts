// The cluster map on a real MDS: registration with stable OST ids, heartbeat
// loss marking an OSS down then out on the configured timers, re-registration,
// admin out/in/reweight over gRPC and HTTP, watch streams, kept epochs, and
// persistence across a restart.
import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { call } from '../../common/index.js';
import {
  type ClusterMap__Output,
  contract,
  type MdsServiceClient,
  type WatchMapResponse__Output,
} from '../../proto/index.js';
import { adminFetch } from '../helpers/admin-http.js';
import { codeOf } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { registerOss, startMds, stopMds, tempDir } from './helpers.js';

const TIMEOUT_MS = 600;
const GRACE_MS = 1_000;

function watch(stream: grpc.ClientReadableStream<WatchMapResponse__Output>): ClusterMap__Output[] {
  const seen: ClusterMap__Output[] = [];
  stream.on('data', (m: WatchMapResponse__Output) => seen.push(m.map!));
  stream.on('error', () => undefined);
  return seen;
}

/** When a map condition became true, as bounds that hold however slow the
 *  machine is: it turned true after `after` (the start of the last probe
 *  that saw it false, or the given floor) and before `by` (the end of the
 *  first probe that saw it true). */
async function whenTrue(
  what: string,
  floor: number,
  holds: (m: ClusterMap__Output) => boolean,
  c: MdsServiceClient,
) {
  let after = floor;
  return eventually(
    async () => {
      const asked = Date.now();
      const m = (await call(c, 'GetMap', { epoch: 0 })).map!;
      if (holds(m)) return { after, by: Date.now() };
      after = asked;
      return undefined;
    },
    { timeoutMs: 30_000, what, intervalMs: 20 },
  );
}

describe('cluster map', () => {
  it('marks a silent OSS down, then out, on the configured timers', async () => {
    const mds = await startMds(tempDir('mds-hb'), {
      STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: String(TIMEOUT_MS),
      STRIPEFS_MDS_OUT_GRACE_MS: String(GRACE_MS),
    });
    const c = mds.client;
    try {
      // oss-a's last contact is its registration: somewhere between these two instants.
      const contactFrom = Date.now();
      const a = await registerOss(c, { ossId: 'oss-a', host: 'h0', osts: 2 });
      const contactTo = Date.now();
      const b = await registerOss(c, { ossId: 'oss-b', host: 'h1', osts: 1 });
      expect(a.osts.map((o) => o.id)).toEqual([0, 1]);
      expect(b.osts.map((o) => o.id)).toEqual([2]);
      expect(b.heartbeatIntervalMs).toBe(500);
      const seen = watch(c.WatchMap({ knownEpoch: 0 }));
      // oss-b keeps heartbeating; oss-a goes silent.
      const beat = setInterval(
        () =>
          void call(c, 'Heartbeat', { ossId: 'oss-b', osts: [{ ostId: 2, usedBytes: 5, totalBytes: 10 }] }),
        100,
      );
      try {
        // Never early: each check compares the widest span the timers could have taken with
        // the timer, which a slow machine (a late probe, a late tick) can only widen. How soon
        // after its timer the detector acts is pinned with a fake clock in pure.test.ts.
        const aOsts = (m: ClusterMap__Output) => m.osts.filter((o) => o.ossId === 'oss-a');
        const down = await whenTrue('oss-a down', contactTo, (m) => aOsts(m).every((o) => !o.state?.up), c);
        expect(down.by - contactFrom).toBeGreaterThanOrEqual(TIMEOUT_MS);
        const out = await whenTrue('oss-a out', down.by, (m) => aOsts(m).every((o) => !o.state?.in), c);
        expect(out.by - down.after).toBeGreaterThanOrEqual(GRACE_MS);
        const m = (await call(c, 'GetMap', { epoch: 0 })).map!;
        expect(m.osts.find((o) => o.id === 2)).toMatchObject({
          state: { up: true, in: true },
          usedBytes: 5,
          totalBytes: 10,
        });
        process.stdout.write(
          `heartbeat: down ${down.after - contactTo}-${down.by - contactFrom} ms after the last contact (timeout ${TIMEOUT_MS}), out ${out.after - down.by}-${out.by - down.after} ms later (grace ${GRACE_MS})\n`,
        );
      } finally {
        clearInterval(beat);
      }
      // The watcher saw every epoch in order, the down and the out included.
      const epochs = seen.map((m) => Number(m.epoch));
      expect(epochs).toEqual([...epochs].sort((x, y) => x - y));
      expect(seen.some((m) => m.osts.some((o) => o.ossId === 'oss-a' && !o.state?.up && o.state?.in))).toBe(
        true,
      );
      // Re-registration brings the OSTs back up and in with the same ids.
      const again = await registerOss(c, { ossId: 'oss-a', host: 'h0', osts: 2 });
      expect(again.osts.map((o) => o.id)).toEqual([0, 1]);
      const m = (await call(c, 'GetMap', { epoch: 0 })).map!;
      expect(m.osts.filter((o) => o.ossId === 'oss-a').every((o) => o.state?.up && o.state?.in)).toBe(true);
      expect(await codeOf(call(c, 'Heartbeat', { ossId: 'never-registered' }))).toBe('MAP_UNKNOWN_OST');
    } finally {
      await stopMds(mds);
    }
  });

  it('a stalled MDS marks nobody down for the time it did not run; a silent OSS still goes down', async () => {
    // A timeout long enough that this test process, sending the heartbeats, is never itself
    // silent that long on a loaded host; the stall is three timeouts.
    const timeoutMs = 2_000;
    const mds = await startMds(tempDir('mds-stall'), {
      STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: String(timeoutMs),
      STRIPEFS_MDS_OUT_GRACE_MS: String(GRACE_MS),
    });
    const c = mds.client;
    const stalledSeconds = async (): Promise<number> => {
      const metrics = await (await adminFetch(`${mds.adminUrl}/metrics`)).text();
      return Number(/stripefs_mds_detector_stalled_seconds\{[^}]*\} (\S+)/.exec(metrics)?.[1] ?? 0);
    };
    try {
      await registerOss(c, { ossId: 'oss-a', host: 'h0', osts: 1 });
      await registerOss(c, { ossId: 'oss-b', host: 'h1', osts: 1 });
      const beating = new Set(['oss-a', 'oss-b']);
      const beat = setInterval(() => {
        // A heartbeat sent while the MDS is stopped may fail; the next one follows in 100 ms.
        for (const ossId of beating) void call(c, 'Heartbeat', { ossId, osts: [] }).catch(() => undefined);
      }, 100);
      try {
        const before = Number((await call(c, 'GetMap', { epoch: 0 })).map!.epoch);
        // The MDS does not run for three heartbeat timeouts; the OSSs keep sending.
        mds.proc.child.kill('SIGSTOP');
        await new Promise((r) => setTimeout(r, 3 * timeoutMs));
        mds.proc.child.kill('SIGCONT');
        // The first tick after the stall credits it (and would have marked anyone down).
        await eventually(async () => (await stalledSeconds()) > (3 * timeoutMs) / 1000 / 2, {
          timeoutMs: 30_000,
          what: 'the detector to credit the stall',
        });
        const after = (await call(c, 'GetMap', { epoch: 0 })).map!;
        expect(Number(after.epoch)).toBe(before);
        expect(after.osts.every((o) => o.state?.up)).toBe(true);
        // The credit is for the MDS's own stall only: an OSS that stops still goes down.
        beating.delete('oss-a');
        await whenTrue(
          'oss-a down',
          Date.now(),
          (m) => m.osts.filter((o) => o.ossId === 'oss-a').every((o) => !o.state?.up),
          c,
        );
        const m = (await call(c, 'GetMap', { epoch: 0 })).map!;
        expect(m.osts.filter((o) => o.ossId === 'oss-b').every((o) => o.state?.up)).toBe(true);
      } finally {
        clearInterval(beat);
        mds.proc.child.kill('SIGCONT');
      }
    } finally {
      await stopMds(mds);
    }
  });

  it('admin out/in/reweight over gRPC and HTTP, kept epochs, and a restart keeps it all', async () => {
    const dir = tempDir('mds-admin');
    const mds = await startMds(dir, { STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: '60000' });
    const c = mds.client;
    let epochBefore = 0;
    try {
      for (let h = 0; h < 3; h++)
        await registerOss(c, { ossId: `oss${h}`, host: `h${h}`, rack: `r${h}`, osts: 2 });
      epochBefore = Number((await call(c, 'GetMap', { epoch: 0 })).map!.epoch);
      const e1 = await call(c, 'AdminOst', { ostId: 1, action: 'OST_ACTION_OUT' });
      expect(e1.mapEpoch).toBe(epochBefore + 1);
      const e2 = await call(c, 'AdminOst', { ostId: 2, action: 'OST_ACTION_REWEIGHT', weight: 0.5 });
      expect(e2.mapEpoch).toBe(epochBefore + 2);
      expect(await codeOf(call(c, 'AdminOst', { ostId: 99, action: 'OST_ACTION_OUT' }))).toBe(
        'MAP_UNKNOWN_OST',
      );
      expect(await codeOf(call(c, 'AdminOst', { ostId: 1, action: 'OST_ACTION_REWEIGHT', weight: -1 }))).toBe(
        'REQ_INVALID',
      );
      const httpOut = await adminFetch(`${mds.adminUrl}/api/osts/3/out`, { method: 'POST' });
      expect(httpOut.status).toBe(200);
      const httpIn = await adminFetch(`${mds.adminUrl}/api/osts/3/in`, { method: 'POST' });
      expect(((await httpIn.json()) as { mapEpoch: number }).mapEpoch).toBe(epochBefore + 4);
      const rw = await adminFetch(`${mds.adminUrl}/api/osts/4/reweight`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ weight: 2 }),
      });
      expect(rw.status).toBe(200);
      const missing = await adminFetch(`${mds.adminUrl}/api/osts/42/out`, { method: 'POST' });
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { code: string }).code).toBe('MAP_UNKNOWN_OST');
      const old = (await call(c, 'GetMap', { epoch: epochBefore })).map!;
      expect(old.osts.find((o) => o.id === 1)?.state?.in).toBe(true);
      expect(await codeOf(call(c, 'GetMap', { epoch: 10_000 }))).toBe('MAP_UNKNOWN_EPOCH');
      const bad = {
        ossId: 'bad/id',
        host: 'h9',
        rack: 'r9',
        datacenter: '',
        osts: [{ name: 'o', totalBytes: 1 }],
      };
      expect(await codeOf(call(c, 'RegisterOss', bad))).toBe('REQ_INVALID');
      expect(await codeOf(call(c, 'RegisterOss', { ...bad, ossId: 'ok', osts: [] }))).toBe('REQ_INVALID');
      await call(c, 'Create', { path: '/pg-probe' }); // creates the raid0 pool: the sixth change
      const pgs = (await (await adminFetch(`${mds.adminUrl}/api/pgs`)).json()) as {
        total: number;
        byPool: Record<string, unknown>;
      };
      expect(pgs.total).toBe(128);
      expect(Object.keys(pgs.byPool)).toEqual(['raid0']);
      const health = await (await adminFetch(`${mds.adminUrl}/healthz`)).json();
      expect(health).toMatchObject({ status: 'ok', mapEpoch: epochBefore + 6 });
      const cluster = (await (await adminFetch(`${mds.adminUrl}/api/cluster`)).json()) as {
        counts: Record<string, number>;
      };
      expect(cluster.counts).toMatchObject({ osts: 6, up: 6, in: 5 });
      expect(await (await adminFetch(`${mds.adminUrl}/metrics`)).text()).toContain(
        'stripefs_mds_request_seconds',
      );
      const health2 = new (contract().HealthService)(
        `127.0.0.1:${mds.proc.ready.grpcPort}`,
        grpc.credentials.createInsecure(),
      );
      const ping = await call(health2, 'Ping', { payload: 'x' });
      health2.close();
      expect(ping).toMatchObject({ server: 'mds', mapEpoch: epochBefore + 6 });
    } finally {
      await stopMds(mds, false);
    }
    const restarted = await startMds(dir, { STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: '60000' });
    try {
      const m = (await call(restarted.client, 'GetMap', { epoch: 0 })).map!;
      expect(Number(m.epoch)).toBe(epochBefore + 6);
      expect(m.osts.find((o) => o.id === 1)?.state?.in).toBe(false);
      expect(m.osts.find((o) => o.id === 2)?.weight).toBe(0.5);
      expect((await call(restarted.client, 'GetMap', { epoch: epochBefore })).map!.epoch).toBe(epochBefore);
      // An admin-out OST stays out when its OSS registers again.
      await registerOss(restarted.client, { ossId: 'oss0', host: 'h0', rack: 'r0', osts: 2 });
      const after = (await call(restarted.client, 'GetMap', { epoch: 0 })).map!;
      expect(after.osts.find((o) => o.id === 1)?.state).toEqual({ up: true, in: false });
    } finally {
      await stopMds(restarted);
    }
  });
});
