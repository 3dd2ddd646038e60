// Crash recovery of the segment log of small objects (oss/store/segment-log.ts)
// through the OSS's own fault site, in a real OSS process with
// oss.smallObjectBytes set: crashBeforeCommitRate SIGKILLs it once a round's
// records are in their segment and before the round's index batch. After a
// restart on the same folder the OST is consistent (its counts match its
// listing), every acknowledged write reads back byte for byte, a new object
// whose write crashed does not exist, and an overwrite that crashed leaves the
// previous version whole (its record is only replaced by the index batch), and
// the records the crash left are dropped (the segment is cut back).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../../common/grpc.js';
import { seededRandom, seedFromEnv } from '../../common/random.js';
import { adminFetch } from '../helpers/admin-http.js';
import { settle } from '../helpers/errors.js';
import { grpcRead, grpcWrite, ostCounted, ostGauge, ostListed, ref, useOss } from './helpers.js';

const seed = seedFromEnv();
console.log(`crash-sites-log.test seed=${seed} (replay with STRIPEFS_SEED=${seed})`);
const KiB = 1024;

function bytes(n: number, salt: number): Buffer {
  const random = seededRandom(seed + salt);
  const buf = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) buf[i] = random.int(256);
  return buf;
}

describe('OSS fault sites with small objects in the segment log', () => {
  const h = useOss('stripefs-oss-crash-log-', { STRIPEFS_OSS_SMALL_OBJECT_BYTES: String(128 * KiB) });

  const ostId = () => h.oss.ostIds[0]!;
  const segment = join(h.dir, 'ost0', 'log', '00000001.seg');
  async function read(objectId: string): Promise<Buffer | string> {
    const got = await settle(grpcRead(h.oss.grpc, ref(ostId(), objectId), 0, 1 << 30));
    return got.ok ? got.value.data : got.code;
  }
  const counted = () => ostCounted(h.oss, 'ost0');
  const listed = () => ostListed(h.oss, ostId());
  async function crashWriting(objectId: string, data: Buffer): Promise<void> {
    const knobs = { crashBeforeCommitRate: 1, seed };
    const res = await adminFetch(`${h.oss.adminUrl}/api/osts/${ostId()}/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(knobs),
    });
    expect(res.status).toBe(200);
    // The process dies mid-call: the call fails however the channel reports it, never acknowledged.
    const answer = await grpcWrite(h.oss.grpc, ref(ostId(), objectId), 0, data).then(
      () => 'acknowledged',
      () => 'failed',
    );
    expect(answer).toBe('failed');
    expect((await h.oss.proc.exited).signal).toBe('SIGKILL');
    await h.restart();
  }

  it('a crash between a round and its index batch loses only the write it did not acknowledge', async () => {
    const acked = new Map<string, Buffer>();
    for (let i = 0; i < 6; i++) {
      const data = bytes(20 * KiB + 1000 * i, i);
      await grpcWrite(h.oss.grpc, ref(ostId(), `acked.${i}`), 0, data);
      if (i % 2 === 0) await call(h.oss.grpc, 'Flush', { ref: ref(ostId(), `acked.${i}`) });
      acked.set(`acked.${i}`, data);
    }
    const old = bytes(40 * KiB, 100);
    await grpcWrite(h.oss.grpc, ref(ostId(), 'old'), 0, old);
    await call(h.oss.grpc, 'Flush', { ref: ref(ostId(), 'old') });
    acked.set('old', old);
    const liveEnd = statSync(segment).size;

    await crashWriting('new', bytes(30 * KiB, 200));
    expect(await read('new')).toBe('OBJ_NOT_FOUND');
    expect(statSync(segment).size).toBe(liveEnd); // the crashed round's record was cut away
    expect(await counted()).toEqual(await listed());
    for (const [id, data] of acked) expect((await read(id)) as Buffer, id).toEqual(data);

    // An overwrite of a flushed object: the old version stays whole, every block of it.
    await crashWriting('old', bytes(40 * KiB, 300));
    const stat = await call(h.oss.grpc, 'StatObject', { ref: ref(ostId(), 'old') });
    expect({ size: Number(stat.size), version: Number(stat.version) }).toEqual({
      size: 40 * KiB,
      version: 1,
    });
    for (const [id, data] of acked) expect((await read(id)) as Buffer, id).toEqual(data);
    expect(await counted()).toEqual(await listed());
    // Written again, the object's version moves on.
    const again = bytes(40 * KiB, 400);
    await grpcWrite(h.oss.grpc, ref(ostId(), 'old'), 0, again);
    expect((await read('old')) as Buffer).toEqual(again);
    // The log's gauges: its live records are the acknowledged objects' (4 KiB-aligned), its bytes at least those.
    const live = [...acked.values()].reduce((sum, d) => sum + Math.ceil(d.length / 4096) * 4096, 0);
    expect(await ostGauge(h.oss, 'stripefs_oss_log_live_bytes', 'ost0')).toBe(live);
    expect(await ostGauge(h.oss, 'stripefs_oss_log_bytes', 'ost0')).toBeGreaterThanOrEqual(live);
  });
});
