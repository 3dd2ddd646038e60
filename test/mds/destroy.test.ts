// The destroy queue: unlink, rename-over and truncating create queue the old
// file's objects in the same batch; the worker deletes them on the OSS (a
// fake that records DeleteObject), retries while the OSS fails, survives a
// SIGKILL of the MDS, and forgets a record only once every delete succeeded.
// It sends nothing to an OST that is down, and it drains while the namespace
// stays busy (it yields to mutations but is never starved).
import { describe, expect, it } from 'vitest';
import { call } from '../../common/index.js';
import type { DestroyQueueView } from '../../mds/admin.js';
import { adminFetch } from '../helpers/admin-http.js';
import { eventually } from '../helpers/eventually.js';
import { registerOss, startFakeOss, startMds, stopMds, tempDir } from './helpers.js';

async function queueView(adminUrl: string): Promise<DestroyQueueView> {
  return (await (await adminFetch(`${adminUrl}/api/destroy-queue`)).json()) as DestroyQueueView;
}

async function queueLength(adminUrl: string): Promise<number> {
  return (await queueView(adminUrl)).files;
}

/** Waits until the queue is empty. */
function drained(adminUrl: string): Promise<DestroyQueueView> {
  return eventually(
    async () => {
      const view = await queueView(adminUrl);
      if (view.files === 0) return view;
      throw new Error(`${view.files} records left`);
    },
    { timeoutMs: 30_000, what: 'the destroy queue to drain', intervalMs: 50 },
  );
}

describe('destroy queue', () => {
  it('deletes removed files objects on the OSSs, across failures and a restart', async () => {
    const fake = await startFakeOss();
    const dir = tempDir('mds-destroy');
    const mds = await startMds(dir, { STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: '60000' });
    const c = mds.client;
    const expected = new Set<string>();
    fake.failing = true;
    try {
      await registerOss(c, { ossId: 'oss-a', host: 'h0', osts: 3, grpcAddress: fake.address });
      const raid0x2 = { pattern: 'LAYOUT_PATTERN_RAID0', stripeCount: 2 } as const;
      await call(c, 'Mkdir', { path: '/d', layout: raid0x2 });
      const gone: number[] = [];
      for (let i = 0; i < 4; i++) {
        const f = await call(c, 'Create', { path: `/d/f${i}` });
        gone.push(f.attr!.inode);
      }
      await call(c, 'Unlink', { path: '/d/f0' });
      await call(c, 'Unlink', { path: '/d/f1' });
      await call(c, 'Rename', { fromPath: '/d/f3', toPath: '/d/f2' }); // f2's objects go
      await call(c, 'Create', { path: '/d/f2', truncate: true }); // and so do f3's (now named f2)
      const ec = { pattern: 'LAYOUT_PATTERN_EC', k: 2, m: 1, failureDomain: 'ost' } as const;
      const e = await call(c, 'Create', { path: '/d/e', layout: ec });
      await call(c, 'Unlink', { path: '/d/e' });
      for (const ino of gone) for (const i of [0, 1]) expected.add(`${ino}.${i}`);
      for (const j of [0, 1, 2]) expected.add(`${e.attr!.inode}.0.c${j}`);
      expect(await queueLength(mds.adminUrl)).toBe(5);
      // The worker tries, the OSS refuses, the records stay.
      await eventually(() => fake.refused > 0, {
        timeoutMs: 30_000,
        what: 'a delete sent to the failing OSS',
      });
      expect(fake.deletes).toHaveLength(0);
      expect(await queueLength(mds.adminUrl)).toBe(5);
    } finally {
      await mds.proc.kill('SIGKILL');
      mds.client.close();
    }
    fake.failing = false;
    const restarted = await startMds(dir, { STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: '60000' });
    try {
      const empty = await drained(restarted.adminUrl);
      const deleted = new Set(fake.deletes.map((d) => d.ref!.objectId));
      expect([...deleted].sort()).toEqual([...expected].sort());
      for (const d of fake.deletes) {
        expect(d.ref!.poolId).toBeGreaterThan(0);
        expect(d.ref!.mapEpoch).toBeGreaterThan(0);
      }
      // Done means done: passes over the empty queue send nothing more.
      const calls = fake.deletes.length;
      await eventually(async () => (await queueView(restarted.adminUrl)).passes >= empty.passes + 3, {
        timeoutMs: 30_000,
        what: 'three more passes of the destroy worker',
      });
      expect(fake.deletes.length).toBe(calls);
    } finally {
      await stopMds(restarted);
      await fake.close();
    }
  });

  it('sends no deletes to a down OST, and deletes once it is back', async () => {
    const fake = await startFakeOss();
    const mds = await startMds(tempDir('mds-destroy-down'), { STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: '300' });
    const c = mds.client;
    let beating: NodeJS.Timeout | undefined;
    try {
      const reg = await registerOss(c, { ossId: 'oss-a', host: 'h0', osts: 2, grpcAddress: fake.address });
      const ostIds = reg.osts.map((o) => o.id);
      await call(c, 'Mkdir', { path: '/d', layout: { pattern: 'LAYOUT_PATTERN_RAID0', stripeCount: 2 } });
      await eventually(
        async () => (await call(c, 'GetMap', { epoch: 0 })).map!.osts.every((o) => !o.state?.up),
        { timeoutMs: 30_000, what: 'the silent OSS down', intervalMs: 50 },
      );
      const inodes: number[] = [];
      for (let i = 0; i < 6; i++) inodes.push((await call(c, 'Create', { path: `/d/f${i}` })).attr!.inode);
      for (let i = 0; i < 6; i++) await call(c, 'Unlink', { path: `/d/f${i}` });
      await eventually(async () => (await queueView(mds.adminUrl)).skippedDeletes > 0, {
        timeoutMs: 30_000,
        what: 'a delete skipped for the down OST',
        intervalMs: 50,
      });
      expect(fake.deletes).toHaveLength(0);
      expect(await queueLength(mds.adminUrl)).toBe(6);

      const heartbeat = () =>
        void call(c, 'Heartbeat', {
          ossId: 'oss-a',
          osts: ostIds.map((ostId) => ({ ostId, usedBytes: 0, totalBytes: 2 ** 40 })),
          // A heartbeat lost to a slow MDS: the next one follows in 100 ms.
        }).catch(() => undefined);
      heartbeat();
      beating = setInterval(heartbeat, 100);
      await drained(mds.adminUrl);
      const expected = inodes.flatMap((ino) => [`${ino}.0`, `${ino}.1`]).sort();
      expect([...new Set(fake.deletes.map((d) => d.ref!.objectId))].sort()).toEqual(expected);
      expect((await queueView(mds.adminUrl)).completed).toBe(6);
    } finally {
      clearInterval(beating);
      await stopMds(mds);
      await fake.close();
    }
  });

  it('drains while the namespace stays busy', async () => {
    const fake = await startFakeOss();
    const mds = await startMds(tempDir('mds-destroy-busy'), { STRIPEFS_MDS_HEARTBEAT_TIMEOUT_MS: '60000' });
    const c = mds.client;
    const files = 100;
    try {
      await registerOss(c, { ossId: 'oss-a', host: 'h0', osts: 2, grpcAddress: fake.address });
      await call(c, 'Mkdir', { path: '/d' });
      await call(c, 'Mkdir', { path: '/busy' });
      for (let i = 0; i < files; i++) await call(c, 'Create', { path: `/d/f${i}` });
      await Promise.all(Array.from({ length: files }, (_, i) => call(c, 'Unlink', { path: `/d/f${i}` })));
      // Mutations back to back (creates queue nothing) until every record is gone.
      let created = 0;
      while ((await queueLength(mds.adminUrl)) > 0) {
        for (let i = 0; i < 10; i++) await call(c, 'Create', { path: `/busy/n${created++}` });
      }
      expect((await queueView(mds.adminUrl)).completed).toBe(files);
      expect(new Set(fake.deletes.map((d) => d.ref!.objectId)).size).toBe(files);
      process.stdout.write(`destroy while busy: ${files} records drained during ${created} creates\n`);
    } finally {
      await stopMds(mds);
      await fake.close();
    }
  });
});
