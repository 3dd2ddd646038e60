// SIGKILL during writes, then restart on the same folders: every flushed
// object reads back intact; every other object is intact or missing, never
// wrong. The restarted OSS serves at once from its persisted OST ids.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../common/grpc.js';
import { type Random, seededRandom, seedFromEnv } from '../../common/random.js';
import { eventually } from '../helpers/eventually.js';
import { type FakeMds, startFakeMds } from './fake-mds.js';
import { crc32c, type OssUnderTest, ref, startOss, tempDir } from './helpers.js';

const seed = seedFromEnv();
console.log(`crash.test seed=${seed} (replay with STRIPEFS_SEED=${seed})`);

function content(random: Random, n: number): Buffer {
  const buf = Buffer.allocUnsafe(n);
  for (let i = 0; i + 4 <= n; i += 4) buf.writeUInt32LE(random.int(0x1_0000_0000), i);
  return buf;
}

describe('OSS crash consistency', () => {
  let mds: FakeMds;
  let oss: OssUnderTest;
  const tmp = tempDir('stripefs-oss-crash-');

  beforeAll(async () => {
    mds = await startFakeMds();
  });
  afterAll(async () => {
    await oss?.stop();
    await mds?.close();
    tmp.remove();
  });

  it('flushed objects survive SIGKILL; unflushed ones are intact or missing', async () => {
    const random = seededRandom(seed);
    oss = await startOss(mds, tmp.dir);
    const ostIds = oss.ostIds;
    const expected = new Map<string, { ostId: number; data: Buffer; flushed: boolean }>();
    let killed = false;
    const acknowledged = { flushed: 0, unflushed: 0 };
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !killed; i++) {
        const id = `crash.${w}.${i}`;
        const ostId = ostIds[(w + i) % ostIds.length]!;
        const data = content(random, 64 * 1024 + random.int(3 * 1024 * 1024));
        const flushed = i % 2 === 0;
        expected.set(id, { ostId, data, flushed: false });
        try {
          await oss.bulk.write(ref(ostId, id), 0, data, crc32c(data));
          if (flushed) await call(oss.grpc, 'Flush', { ref: ref(ostId, id) });
          expected.set(id, { ostId, data, flushed });
          if (flushed) acknowledged.flushed++;
          else acknowledged.unflushed++;
        } catch {
          return; // the process is gone
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    // Kill once both kinds were acknowledged a few times, with writes of both kinds in flight.
    await eventually(() => acknowledged.flushed >= 4 && acknowledged.unflushed >= 4, {
      timeoutMs: 60_000,
      what: 'four flushed and four unflushed writes acknowledged',
    });
    killed = true;
    await oss.proc.kill('SIGKILL');
    await Promise.all(writers);
    oss.grpc.close();
    oss.bulk.close();
    expect(expected.size).toBeGreaterThan(4);

    oss = await startOss(mds, tmp.dir);
    expect(oss.ostIds).toEqual(ostIds);
    let flushedCount = 0;
    for (const [id, want] of expected) {
      const got = await oss.bulk.read(ref(want.ostId, id), 0, want.data.length).catch((e: unknown) => e);
      if (want.flushed) {
        flushedCount++;
        expect(Buffer.isBuffer(got) && got.equals(want.data), `flushed ${id}`).toBe(true);
      } else if (Buffer.isBuffer(got)) {
        expect(got.equals(want.data), `unflushed ${id} read back wrong`).toBe(true);
      } else {
        expect((got as { code: string }).code, `unflushed ${id}`).toBe('OBJ_NOT_FOUND');
      }
    }
    expect(flushedCount).toBeGreaterThan(0);
  });
});
