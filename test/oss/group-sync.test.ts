// Group commit of durability requests (oss/store/group-sync.ts): a request
// that arrives while a run is in flight waits for the next run, which covers
// every request of that time; never for the run in flight. Against a real OSS
// process: concurrent sync writes and flushes of one object are each
// answered durable after an fdatasync that began after their bytes were in
// the file, and they cost fewer fdatasyncs than requests (counted by the
// OSS's own counters, GET /api/osts); a failing fsync fails every request
// that run served.
import { describe, expect, it } from 'vitest';
import { call } from '../../common/grpc.js';
import { GroupSync } from '../../oss/store/group-sync.js';
import { adminFetch } from '../helpers/admin-http.js';
import { codeOf } from '../helpers/errors.js';
import { crc32c, grpcRead, ref, useOss } from './helpers.js';

const MiB = 1024 * 1024;

/** A work function whose runs end when the test says so, each noting the requests made before it began. */
function controlled() {
  let requested = 0;
  const runs: { coveredUpTo: number; handle: number; finish: (err?: Error) => void }[] = [];
  const group = new GroupSync<string, number>(
    (_key, handle) =>
      new Promise<void>((resolve, reject) => {
        runs.push({ coveredUpTo: requested, handle, finish: (err) => (err ? reject(err) : resolve()) });
      }),
  );
  /** A request with its own handle (its number). */
  const request = (key = 'a') => {
    requested++;
    const mine = requested;
    return group.run(key, mine).then(() => mine);
  };
  return { group, runs, request };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupSync', () => {
  it('serves the requests that came during a run with one next run, never with the run in flight', async () => {
    const { group, runs, request } = controlled();
    const first = request();
    await tick();
    expect(runs).toHaveLength(1);
    const during = [request(), request(), request()];
    await tick();
    // Nothing new starts while the first run is in flight.
    expect(runs).toHaveLength(1);
    let settled = 0;
    for (const p of during) void p.then(() => settled++);
    runs[0]!.finish();
    expect(await first).toBe(1);
    await tick();
    // The three waited for a run that began after each of them.
    expect(settled).toBe(0);
    expect(runs).toHaveLength(2);
    expect(runs[1]!.coveredUpTo).toBe(4);
    // Each run uses the handle of a request it serves: the first's, then the first that joined.
    expect(runs.map((r) => r.handle)).toEqual([1, 2]);
    runs[1]!.finish();
    expect(await Promise.all(during)).toEqual([2, 3, 4]);
    expect({ runs: group.runs, requests: group.requests }).toEqual({ runs: 2, requests: 4 });
    await group.idle();
  });

  it('keeps keys apart, and fails exactly the requests a failed run served', async () => {
    const { group, runs, request } = controlled();
    const a1 = request('a');
    const b1 = request('b');
    await tick();
    expect(runs).toHaveLength(2);
    const a2 = request('a');
    runs[0]!.finish(new Error('EIO'));
    await expect(a1).rejects.toThrow('EIO');
    await tick();
    runs[1]!.finish();
    expect(await b1).toBe(2);
    expect(runs).toHaveLength(3);
    runs[2]!.finish();
    expect(await a2).toBe(3);
    // With nothing in flight a request starts a run at once.
    const a3 = request('a');
    await tick();
    expect(runs).toHaveLength(4);
    runs[3]!.finish();
    expect(await a3).toBe(4);
    await group.idle();
  });
});

interface Syncs {
  fileRequests: number;
  fileFsyncs: number;
  indexRequests: number;
  indexSyncs: number;
}

describe('grouped fdatasyncs on a real OSS', () => {
  const h = useOss('stripefs-oss-group-sync-');
  const ostId = () => h.oss.ostIds[0]!;
  async function syncs(): Promise<Syncs> {
    const osts = (await (await adminFetch(`${h.oss.adminUrl}/api/osts`)).json()) as {
      name: string;
      syncs: Syncs;
    }[];
    return osts.find((o) => o.name === 'ost0')!.syncs;
  }
  const since = (before: Syncs, after: Syncs) => ({
    fileRequests: after.fileRequests - before.fileRequests,
    fileFsyncs: after.fileFsyncs - before.fileFsyncs,
    indexRequests: after.indexRequests - before.indexRequests,
    indexSyncs: after.indexSyncs - before.indexSyncs,
  });

  const knobs = async (body: Record<string, number> | null) => {
    const res = await adminFetch(`${h.oss.adminUrl}/api/osts/${ostId()}/faults`, {
      method: body ? 'PUT' : 'DELETE',
      ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
    });
    expect(res.status).toBe(200);
  };

  it('answers concurrent sync writes of one object durable, with fewer fdatasyncs than writes', async () => {
    // A slow disk (each fdatasync 200 ms longer): the writes that commit while one is in flight
    // queue for the next. Each write still commits alone, under the object's lock.
    await knobs({ fsyncDelayMs: 200 });
    const writes = 24;
    const data = Buffer.alloc(writes * MiB);
    for (let i = 0; i < writes; i++) data.fill(i + 1, i * MiB, (i + 1) * MiB);
    const before = await syncs();
    const answers = await Promise.all(
      Array.from({ length: writes }, (_, i) => {
        const piece = data.subarray(i * MiB, (i + 1) * MiB);
        return h.oss.bulk.write(ref(ostId(), 'grouped'), i * MiB, piece, crc32c(piece), { sync: true });
      }),
    );
    await knobs(null);
    expect(answers.every((a) => a.durable === true)).toBe(true);
    const used = since(before, await syncs());
    expect(used.fileRequests).toBe(writes);
    expect(used.fileFsyncs).toBeGreaterThanOrEqual(1);
    expect(used.fileFsyncs).toBeLessThan(writes);
    expect(used.indexRequests).toBe(writes);
    expect(used.indexSyncs).toBeLessThan(writes);
    expect((await grpcRead(h.oss.grpc, ref(ostId(), 'grouped'), 0, data.length)).data.equals(data)).toBe(
      true,
    );
  });

  it('serves a flush in the same group, and one with nothing in flight by an fdatasync of its own', async () => {
    const data = Buffer.alloc(2 * MiB, 9);
    await h.oss.bulk.write(ref(ostId(), 'flushed'), 0, data, crc32c(data));
    const before = await syncs();
    await call(h.oss.grpc, 'Flush', { ref: ref(ostId(), 'flushed') });
    expect(since(before, await syncs())).toMatchObject({ fileRequests: 1, fileFsyncs: 1 });
  });

  it('answers sync writes not durable while fsyncs fail, and the object flushes no more', async () => {
    await knobs({ fsyncFailRate: 1, seed: 1 });
    try {
      const piece = Buffer.alloc(MiB, 3);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          h.oss.bulk.write(ref(ostId(), 'failing'), i * MiB, piece, crc32c(piece), { sync: true }),
        ),
      );
      expect(answers.map((a) => a.durable)).toEqual(new Array(6).fill(false));
    } finally {
      await knobs(null);
    }
    expect(await codeOf(call(h.oss.grpc, 'Flush', { ref: ref(ostId(), 'failing') }))).toBe('OBJ_NOT_DURABLE');
  });
});
