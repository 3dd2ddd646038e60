// Crash recovery through the OSS's own fault sites instead of by luck. A real
// OSS process; the knobs are set through its admin API like any other:
// - crashBeforeCommitRate: a write's data reaches its file and the process is
//   SIGKILLed before the index commit. After a restart on the same folder the
//   OST is consistent (its counts match its records, no data file without a
//   record), every acknowledged write reads back byte for byte, a new object
//   whose write crashed does not exist, and an overwrite that crashed never
//   serves its bytes as the old version: each block reads as before or fails
//   its checksum.
// - fsyncFailRate: the flush fails with OBJ_NOT_DURABLE, and keeps failing
//   (also after a crash and restart) until the object is written whole again
//   or deleted, while its acknowledged bytes still read back.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../../common/grpc.js';
import { LIMITS } from '../../common/limits.js';
import { seededRandom, seedFromEnv } from '../../common/random.js';
import { fanoutOf } from '../../oss/object-id.js';
import { adminFetch } from '../helpers/admin-http.js';
import { codeOf, settle } from '../helpers/errors.js';
import { grpcRead, grpcWrite, ostCounted, ostListed, ref, useOss } from './helpers.js';

const seed = seedFromEnv();
console.log(`crash-sites.test seed=${seed} (replay with STRIPEFS_SEED=${seed})`);
const B = LIMITS.checksumBlockBytes;

function bytes(n: number, salt: number): Buffer {
  const random = seededRandom(seed + salt);
  const buf = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) buf[i] = random.int(256);
  return buf;
}

describe('OSS fault sites', () => {
  const h = useOss('stripefs-oss-crash-sites-');

  const ostId = () => h.oss.ostIds[0]!;
  const fileOf = (objectId: string) => join(h.dir, 'ost0', 'objects', fanoutOf(objectId), objectId);
  async function setKnobs(knobs: Record<string, number> | null): Promise<void> {
    const res = await adminFetch(`${h.oss.adminUrl}/api/osts/${ostId()}/faults`, {
      method: knobs ? 'PUT' : 'DELETE',
      ...(knobs ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(knobs) } : {}),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  }
  /** The bytes, or the code the read failed with. */
  async function read(objectId: string, offset = 0, length = 1 << 30): Promise<Buffer | string> {
    const got = await settle(grpcRead(h.oss.grpc, ref(ostId(), objectId), offset, length));
    return got.ok ? got.value.data : got.code;
  }
  const flush = (objectId: string) => settle(call(h.oss.grpc, 'Flush', { ref: ref(ostId(), objectId) }));
  const flushCode = (objectId: string) => codeOf(call(h.oss.grpc, 'Flush', { ref: ref(ostId(), objectId) }));
  const counted = () => ostCounted(h.oss, 'ost0');
  const listed = () => ostListed(h.oss, ostId());
  /** Writes with the site armed; the OSS must die of it (the write is never acknowledged). */
  async function crashWriting(objectId: string, offset: number, data: Buffer): Promise<void> {
    await setKnobs({ crashBeforeCommitRate: 1, seed });
    // The process dies mid-call: the call fails however the channel reports it, never acknowledged.
    const answer = await grpcWrite(h.oss.grpc, ref(ostId(), objectId), offset, data).then(
      () => 'acknowledged',
      () => 'failed',
    );
    expect(answer).toBe('failed');
    const exit = await h.oss.proc.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(h.oss.proc.stderrTail()).toContain('crashBeforeCommitRate');
    await h.restart();
  }

  it('a crash between a write and its index commit leaves the OST consistent', async () => {
    const acked = new Map<string, Buffer>();
    for (let i = 0; i < 6; i++) {
      const data = bytes(B + 1000 * i, i);
      await grpcWrite(h.oss.grpc, ref(ostId(), `acked.${i}`), 0, data);
      // Half are flushed; the others are only acknowledged (a process crash keeps those too).
      if (i % 2 === 0) await call(h.oss.grpc, 'Flush', { ref: ref(ostId(), `acked.${i}`) });
      acked.set(`acked.${i}`, data);
    }
    const old = bytes(4 * B, 100);
    await grpcWrite(h.oss.grpc, ref(ostId(), 'old'), 0, old);
    await call(h.oss.grpc, 'Flush', { ref: ref(ostId(), 'old') });
    acked.set('old', old);

    // A new object: its data goes to a file of its own, and the process dies before the commit.
    await crashWriting('new', 0, bytes(3 * B, 200));
    expect(await read('new')).toBe('OBJ_NOT_FOUND');
    expect(existsSync(fileOf('new'))).toBe(false); // debris removed at open
    expect(await counted()).toEqual(await listed());
    for (const [id, data] of acked) expect((await read(id)) as Buffer, id).toEqual(data);

    // An overwrite across three blocks of a flushed object.
    await crashWriting('old', B / 2, bytes(2 * B, 300));
    const stat = await call(h.oss.grpc, 'StatObject', { ref: ref(ostId(), 'old') });
    expect({ size: Number(stat.size), version: Number(stat.version) }).toEqual({ size: 4 * B, version: 1 });
    const answers: string[] = [];
    for (let block = 0; block < 4; block++) {
      const got = await read('old', block * B, B);
      if (typeof got === 'string') answers.push(got);
      else {
        expect(
          got.equals(old.subarray(block * B, (block + 1) * B)),
          `block ${block} served other bytes`,
        ).toBe(true);
        answers.push('old bytes');
      }
    }
    // The blocks the crashed write reached fail; the one it did not reach is the old one.
    expect(answers).toEqual(['OBJ_CHECKSUM', 'OBJ_CHECKSUM', 'OBJ_CHECKSUM', 'old bytes']);
    expect(await counted()).toEqual(await listed());
    for (const [id, data] of acked) if (id !== 'old') expect((await read(id)) as Buffer, id).toEqual(data);
    // Written again, the object is whole and its version moves on.
    await grpcWrite(h.oss.grpc, ref(ostId(), 'old'), 0, old);
    expect((await read('old')) as Buffer).toEqual(old);
  });

  it('a failed fsync fails the flush, and every flush after it until the object is written whole', async () => {
    const first = bytes(3 * B, 400);
    await grpcWrite(h.oss.grpc, ref(ostId(), 'sync'), 0, first);
    await call(h.oss.grpc, 'Flush', { ref: ref(ostId(), 'sync') });
    await grpcWrite(h.oss.grpc, ref(ostId(), 'other'), 0, first);
    const patch = bytes(B, 401);
    await grpcWrite(h.oss.grpc, ref(ostId(), 'sync'), B, patch);
    const expected = Buffer.from(first);
    patch.copy(expected, B);

    await setKnobs({ fsyncFailRate: 1, seed });
    const failed = await flush('sync');
    expect(failed.ok ? 'OK' : `${failed.code}: ${failed.err.message}`).toMatch(
      /^OBJ_NOT_DURABLE: .*fsync failed/,
    );
    await setKnobs(null);
    // The fsync would succeed now, but the pages the failed one lost would not be in it.
    const again = await flush('sync');
    expect(again.ok ? 'OK' : `${again.code}: ${again.err.message}`).toMatch(
      /^OBJ_NOT_DURABLE: .*an earlier fsync of it failed/,
    );
    await call(h.oss.grpc, 'Flush', { ref: ref(ostId(), 'other') }); // other objects flush as before
    expect((await read('sync')) as Buffer).toEqual(expected); // acknowledged bytes still served

    // The mark survives a crash.
    await h.restart();
    expect(await flushCode('sync')).toBe('OBJ_NOT_DURABLE');
    expect((await read('sync')) as Buffer).toEqual(expected);
    // Written again from its start in two writes, it flushes.
    await grpcWrite(h.oss.grpc, ref(ostId(), 'sync'), 0, expected.subarray(0, 2 * B));
    expect(await flushCode('sync')).toBe('OBJ_NOT_DURABLE');
    await grpcWrite(h.oss.grpc, ref(ostId(), 'sync'), 2 * B, expected.subarray(2 * B));
    await call(h.oss.grpc, 'Flush', { ref: ref(ostId(), 'sync') });
    // A deleted one loses the mark with everything else.
    await setKnobs({ fsyncFailRate: 1, seed });
    expect(await flushCode('other')).toBe('OBJ_NOT_DURABLE');
    await setKnobs(null);
    await call(h.oss.grpc, 'DeleteObject', { ref: ref(ostId(), 'other') });
    await grpcWrite(h.oss.grpc, ref(ostId(), 'other'), 0, patch);
    await call(h.oss.grpc, 'Flush', { ref: ref(ostId(), 'other') });
  });
});
