// Crash recovery of the segment log of small objects (oss/store/segment-log.ts)
// through the OSS's own fault sites, in a real OSS process with
// oss.smallObjectBytes set:
// - crashBeforeCommitRate SIGKILLs it once a round (its head with the index
//   changes, then its records) is in the segment and before the round's index
//   batch. After a restart on the same folder the round is replayed whole: the
//   new object reads as written, the overwritten one as its new version, every
//   acknowledged write byte for byte, and the OST is consistent (its counts
//   match its listing).
// - loseIndexTail drops the index batches from then on, as a power loss drops
//   the index's unsynced tail: flushed writes come back from the log after a
//   SIGKILL, byte for byte; a round torn afterwards (a flipped byte of its
//   record, a head cut short) is not replayed, the object keeps its previous
//   version, and the torn bytes are cut away.
import { closeSync, openSync, readSync, statSync, truncateSync, writeSync } from 'node:fs';
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

  it('a crash between a round and its index batch replays the round whole at restart', async () => {
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

    const created = bytes(30 * KiB, 200);
    await crashWriting('new', created);
    expect((await read('new')) as Buffer).toEqual(created);
    // The round stays: its head (one 4 KiB unit) and its record.
    expect(statSync(segment).size).toBe(liveEnd + 4 * KiB + 32 * KiB);
    acked.set('new', created);
    expect(await counted()).toEqual(await listed());
    for (const [id, data] of acked) expect((await read(id)) as Buffer, id).toEqual(data);

    // An overwrite of a flushed object: the new version, whole.
    const rewritten = bytes(40 * KiB, 300);
    await crashWriting('old', rewritten);
    const stat = await call(h.oss.grpc, 'StatObject', { ref: ref(ostId(), 'old') });
    expect({ size: Number(stat.size), version: Number(stat.version) }).toEqual({
      size: 40 * KiB,
      version: 2,
    });
    acked.set('old', rewritten);
    for (const [id, data] of acked) expect((await read(id)) as Buffer, id).toEqual(data);
    expect(await counted()).toEqual(await listed());
    // Written again, the object's version moves on.
    const again = bytes(40 * KiB, 400);
    await grpcWrite(h.oss.grpc, ref(ostId(), 'old'), 0, again);
    expect((await read('old')) as Buffer).toEqual(again);
    acked.set('old', again);
    // The log's gauges: its live records are the acknowledged objects' (4 KiB-aligned), its bytes at least those.
    const live = [...acked.values()].reduce((sum, d) => sum + Math.ceil(d.length / 4096) * 4096, 0);
    expect(await ostGauge(h.oss, 'stripefs_oss_log_live_bytes', 'ost0')).toBe(live);
    expect(await ostGauge(h.oss, 'stripefs_oss_log_bytes', 'ost0')).toBeGreaterThanOrEqual(live);
  });

  async function loseIndexTail(): Promise<void> {
    const res = await adminFetch(`${h.oss.adminUrl}/api/osts/${ostId()}/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ loseIndexTail: true }),
    });
    expect(res.status).toBe(200);
  }
  async function flushed(objectId: string, data: Buffer): Promise<void> {
    await grpcWrite(h.oss.grpc, ref(ostId(), objectId), 0, data);
    await call(h.oss.grpc, 'Flush', { ref: ref(ostId(), objectId) });
  }

  it('flushed writes whose index batches were lost come back from the log after a SIGKILL', async () => {
    const before = bytes(24 * KiB, 500);
    await flushed('lost.before', before);
    await loseIndexTail();
    const written = new Map<string, Buffer>();
    for (let i = 0; i < 4; i++) {
      const data = bytes(8 * KiB + 3000 * i, 600 + i);
      await flushed(`lost.${i}`, data);
      written.set(`lost.${i}`, data);
    }
    // An overwrite too: its new version comes back, not the one the index held.
    const over = bytes(24 * KiB, 700);
    await flushed('lost.before', over);
    written.set('lost.before', over);
    await h.restart();
    for (const [id, data] of written) expect((await read(id)) as Buffer, id).toEqual(data);
    expect(await counted()).toEqual(await listed());
    expect(await ostGauge(h.oss, 'stripefs_oss_log_replayed_rounds', 'ost0')).toBeGreaterThanOrEqual(5);
  });

  it('a torn round is not replayed: its object keeps its previous version and the torn bytes go', async () => {
    const first = bytes(16 * KiB, 800);
    await flushed('torn', first);
    await flushed('torn.other', bytes(8 * KiB, 801));
    await loseIndexTail();
    // A record torn by the crash: one flipped byte in it (its round's crc no longer holds).
    const goodEnd = statSync(segment).size;
    await flushed('torn', bytes(16 * KiB, 802));
    await h.oss.proc.kill('SIGKILL');
    flipByte(segment, statSync(segment).size - 100);
    await h.restart();
    expect((await read('torn')) as Buffer).toEqual(first);
    expect(statSync(segment).size).toBe(goodEnd);
    expect(await counted()).toEqual(await listed());

    // A head cut short: the round after it is not replayed either.
    await loseIndexTail();
    const created = bytes(8 * KiB, 803);
    const headAt = statSync(segment).size;
    await flushed('torn.new', created);
    await h.oss.proc.kill('SIGKILL');
    truncateSync(segment, headAt + 20);
    await h.restart();
    expect(await read('torn.new')).toBe('OBJ_NOT_FOUND');
    expect((await read('torn')) as Buffer).toEqual(first);
    expect(statSync(segment).size).toBe(headAt);
    expect(await counted()).toEqual(await listed());
  });
});

function flipByte(path: string, at: number): void {
  const fd = openSync(path, 'r+');
  try {
    const one = Buffer.alloc(1);
    readSync(fd, one, 0, 1, at);
    one[0] = one[0]! ^ 0xff;
    writeSync(fd, one, 0, 1, at);
  } finally {
    closeSync(fd);
  }
}
