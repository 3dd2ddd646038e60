// A checkpoint of several GiB (STRIPEFS_CKPT_LARGE_GIB, default 3) in 48 parts
// through a real cluster, byte for byte: most parts are streams generated on
// the fly and a few are large buffers, saved async with 512 MiB of staging
// memory (less than the checkpoint), loaded back as streams and compared with
// the same generator, and verified. Memory stays bounded: nothing holds the
// whole checkpoint. Run with `npm run test:ckpt-large` (not part of npm test).
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkpoints } from '../../checkpoint/index.js';
import type { Layout } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { MiB, suiteCluster } from './helpers.js';

const SEED = seedFromEnv();
console.log(`checkpoint multi-GiB seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const TOTAL_BYTES = Math.round(Number(process.env.STRIPEFS_CKPT_LARGE_GIB ?? 3) * 1024) * MiB;
const PARTS = 48;
const BUFFER_PARTS = 4;
const CHUNK_BYTES = 4 * MiB;
const STAGING_BYTES = 512 * MiB;
const LAYOUT: Layout = {
  pattern: 'replicated',
  stripeSize: MiB,
  stripeCount: 6,
  replicas: 2,
  failureDomain: 'host',
};

/** Part i's bytes, chunk by chunk: the same for the saver and the checker. */
function* chunksOfPart(i: number, bytes: number): Generator<Buffer> {
  for (let at = 0, j = 0; at < bytes; at += CHUNK_BYTES, j++)
    yield seededBytes(Math.min(CHUNK_BYTES, bytes - at), SEED + i * 100_003 + j);
}

function partBytes(i: number): number {
  // Uneven sizes that add up to TOTAL_BYTES; a few are not multiples of anything.
  const base = Math.floor(TOTAL_BYTES / PARTS);
  return i === PARTS - 1
    ? TOTAL_BYTES - base * (PARTS - 1)
    : base + (i % 3 === 0 ? 4097 : i % 3 === 1 ? -4097 : 0);
}

async function expectStreamIs(stream: Readable, i: number, bytes: number): Promise<void> {
  let seen = 0;
  let pending: Buffer = Buffer.alloc(0);
  const wanted = chunksOfPart(i, bytes);
  let want = wanted.next();
  for await (const chunk of stream) {
    pending = Buffer.concat([pending, chunk as Buffer]);
    while (!want.done && pending.length >= want.value.length) {
      expect(pending.subarray(0, want.value.length).equals(want.value), `part ${i} at ${seen}`).toBe(true);
      seen += want.value.length;
      pending = pending.subarray(want.value.length);
      want = wanted.next();
    }
  }
  expect(seen + pending.length).toBe(bytes);
  expect(want.done).toBe(true);
}

describe('a multi-GiB checkpoint', () => {
  const env = suiteCluster(SEED);

  it(`${(TOTAL_BYTES / 2 ** 30).toFixed(1)} GiB in ${PARTS} parts: async save with bounded staging, loaded identical`, async () => {
    const ck = checkpoints(env.client, '/large', { layout: LAYOUT, stagingBytesMax: STAGING_BYTES });
    const parts = Array.from({ length: PARTS }, (_, i): [string, Uint8Array | Readable] => {
      const bytes = partBytes(i);
      if (i < BUFFER_PARTS) return [`p${i}`, Buffer.concat([...chunksOfPart(i, bytes)])];
      return [`p${i}`, Readable.from(chunksOfPart(i, bytes))];
    });
    const started = performance.now();
    const handle = await ck.save(1, parts, { async: true });
    const stagedS = (performance.now() - started) / 1000;
    const result = await handle.durable;
    console.log(
      `saved ${result.bytes} bytes: staged in ${stagedS.toFixed(1)} s, durable in ${(result.durableMs / 1000).toFixed(1)} s; staging memory peak ${result.progress?.stagingBytesPeak}, ${result.progress?.inFlightBlocksPeak} blocks in flight at most`,
    );
    expect(result.bytes).toBe(TOTAL_BYTES);
    expect(ck.staging().memoryBytesPeak).toBeLessThanOrEqual(STAGING_BYTES);
    await ck.close();
    const loaded = await ck.loadStreams(1);
    for (let i = 0; i < PARTS; i++) await expectStreamIs(loaded.get(`p${i}`) as Readable, i, partBytes(i));
    const buffers = await ck.load(1, { parts: ['p0', 'p1'] });
    for (const i of [0, 1])
      expect(buffers.get(`p${i}`)?.equals(Buffer.concat([...chunksOfPart(i, partBytes(i))]))).toBe(true);
    expect(await ck.verify(1)).toMatchObject({ ok: true, parts: PARTS, bytes: TOTAL_BYTES });
  });
});
