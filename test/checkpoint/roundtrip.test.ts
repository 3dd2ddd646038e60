// Checkpoints saved and loaded byte for byte through a real cluster: empty
// checkpoints, empty and tiny parts, hundreds of parts around the stripe-unit
// boundaries given as buffers and as streams, every layout, synchronous,
// async in memory and async on a local disk folder; loads as buffers and as
// streams; bounded staging and stripes in flight; nothing visible before the
// publishing rename; bad input answered with registry codes.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkpoints, STAGING_DIR } from '../../checkpoint/index.js';
import type { Layout } from '../../client/index.js';
import { StripeError } from '../../common/errors.js';
import { seededRandom, seedFromEnv } from '../../common/random.js';
import { seededBytes } from '../helpers/clients.js';
import { codeOf } from '../helpers/errors.js';
import { eventually } from '../helpers/eventually.js';
import { expectSameParts, KiB, MiB, partsOf, readAll, seededParts, suiteCluster } from './helpers.js';

const SEED = seedFromEnv();
console.log(`checkpoint roundtrip seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * KiB;
const LAYOUTS: Record<string, Layout> = {
  raid0: { pattern: 'raid0', stripeSize: S, stripeCount: 4 },
  rep2: { pattern: 'replicated', stripeSize: S, stripeCount: 3, replicas: 2, failureDomain: 'host' },
  ec42: { pattern: 'ec', stripeSize: S, k: 4, m: 2, failureDomain: 'host' },
};

describe('checkpoints on a real cluster', () => {
  const env = suiteCluster(SEED);

  for (const [name, layout] of Object.entries(LAYOUTS)) {
    it(`${name}: empty checkpoints, and 100 parts from 0 bytes up, sync, async in memory, on disk and by reference`, async () => {
      const random = seededRandom(SEED);
      const unit = layout.pattern === 'ec' ? 4 * S : S;
      const ck = checkpoints(env.client, `/ck-${name}`, {
        layout,
        stagingDir: env.folder,
        stagingBytesMax: 24 * unit,
      });
      const none = await ck.save(0, {});
      expect(none).toMatchObject({ step: 0, bytes: 0, parts: 0 });
      expect((await ck.load(0)).size).toBe(0);
      const tiny = await ck.save(1, { empty: new Uint8Array(0), one: Buffer.from('x') });
      expect(tiny.bytes).toBe(1);
      expectSameParts(await ck.load(1), [
        { name: 'empty', data: Buffer.alloc(0) },
        { name: 'one', data: Buffer.from('x') },
      ]);
      const modes = [
        {},
        { async: true, staging: 'memory' },
        { async: true, staging: 'disk' },
        { async: true, staging: 'reference' },
      ] as const;
      for (const [i, mode] of modes.entries()) {
        const step = 10 + i;
        const specs = seededParts(random, 100, unit, 2 * unit, SEED + step * 1000);
        const parts = partsOf(specs, random);
        if ('async' in mode) {
          const handle = await ck.save(step, parts, mode);
          const result = await handle.durable;
          expect(result.bytes).toBe(specs.reduce((n, s) => n + s.data.length, 0));
          expect(result.stagedMs).toBeLessThanOrEqual(result.durableMs);
        } else await ck.save(step, parts);
        expectSameParts(await ck.load(step), specs);
        // Loaded in place into memory the caller gives (a restored model's tensors) for some parts.
        const into = new Map(specs.slice(0, 30).map((s) => [s.name, Buffer.alloc(s.data.length, 0xaa)]));
        const inPlace = await ck.load(step, { into });
        expectSameParts(inPlace, specs);
        for (const [name, given] of into) {
          const loaded = inPlace.get(name) as Buffer;
          expect(loaded.buffer === given.buffer && loaded.byteOffset === given.byteOffset, name).toBe(true);
        }
        const streams = await ck.loadStreams(step, { parts: specs.slice(0, 12).map((s) => s.name) });
        for (const s of specs.slice(0, 12))
          expect((await readAll(streams.get(s.name) as Readable)).equals(s.data)).toBe(true);
        expect(await ck.verify(step)).toMatchObject({ step, ok: true, parts: 100, bad: [] });
      }
      expect((await ck.list()).map((c) => c.step)).toEqual([0, 1, 10, 11, 12, 13]);
      expect((await ck.latest())?.step).toBe(13);
      // Nothing left in staging, in the cluster or on the local disk.
      expect(await env.client.readdir(`/ck-${name}/${STAGING_DIR}`)).toEqual([]);
      expect(readdirSync(env.folder)).toEqual([]);
    });
  }

  it('async saves hold at most stagingBytesMax, and inFlightBytesMax in whole units in flight, however large they are', async () => {
    const layout: Layout = { pattern: 'raid0', stripeSize: S, stripeCount: 4 };
    const ck = checkpoints(env.client, '/ck-bounded', {
      layout,
      stagingBytesMax: 8 * S,
      inFlightBytesMax: 3 * S + 100,
    });
    const specs = Array.from({ length: 4 }, (_, i) => ({
      name: `p${i}`,
      data: seededBytes(2 * MiB + i, SEED + i),
    }));
    const handle = await ck.save(
      1,
      specs.map((s) => [s.name, s.data] as [string, Buffer]),
      { async: true },
    );
    const result = await handle.durable;
    expect(result.progress?.inFlightBlocksPeak).toBeGreaterThan(0);
    expect(result.progress?.inFlightBlocksPeak).toBeLessThanOrEqual(3);
    expect(ck.staging().memoryBytesPeak).toBeLessThanOrEqual(8 * S);
    expect(ck.staging().memoryBytesPeak).toBeGreaterThan(0);
    expectSameParts(await ck.load(1), specs);
    await ck.close();
    expect(ck.staging().idleBytes).toBe(0);
  });

  it('on a local disk folder an async save holds at most stagingDiskBytesMax there; sync and reference saves lend whole units uncopied', async () => {
    const layout: Layout = { pattern: 'raid0', stripeSize: S, stripeCount: 4 };
    const stagingDir = join(env.folder, 'bounded-disk');
    const ck = checkpoints(env.client, '/ck-bounded-disk', {
      layout,
      stagingDir,
      stagingDiskBytesMax: 16 * S,
      stagingSegmentBytes: 4 * S,
    });
    // Whole units only: a synchronous save sends every one of them as a view of the caller's buffer.
    const specs = Array.from({ length: 3 }, (_, i) => ({
      name: `p${i}`,
      data: seededBytes(32 * S, SEED + 50 + i),
    }));
    const sync = await ck.save(
      1,
      specs.map((s) => [s.name, s.data] as [string, Buffer]),
    );
    expect(sync.progress?.stagingBytesPeak).toBe(0);
    const handle = await ck.save(
      2,
      specs.map((s) => [s.name, s.data] as [string, Buffer]),
      { async: true },
    );
    await handle.durable;
    expect(ck.staging().diskBytesPeak).toBeGreaterThan(0);
    expect(ck.staging().diskBytesPeak).toBeLessThanOrEqual(16 * S);
    expect(ck.staging().memoryBytesPeak).toBe(0);
    expectSameParts(await ck.load(2), specs);
    expect(readdirSync(stagingDir)).toEqual([]);
    // Referenced, not copied: staged at once, nothing held in staging memory, the same bytes published.
    const referenced = await ck.save(
      3,
      specs.map((s) => [s.name, s.data] as [string, Buffer]),
      {
        async: true,
        staging: 'reference',
      },
    );
    expect((await referenced.staged).bytes).toBe(3 * 32 * S);
    await referenced.durable;
    expect(ck.staging().memoryBytesPeak).toBe(0);
    expectSameParts(await ck.load(3), specs);
  });

  it('a synchronous save sends its lent bytes in requests as large as a sequential write sends', async () => {
    // 64 KiB units over 4 objects: lent one unit at a time, 16 MiB would be 256 requests.
    const layout: Layout = { pattern: 'raid0', stripeSize: S, stripeCount: 4 };
    const ck = checkpoints(env.client, '/ck-requests', { layout });
    const specs = [0, 1].map((i) => ({ name: `p${i}`, data: seededBytes(8 * MiB, SEED + 70 + i) }));
    const before = env.client.stats().requests.bulk;
    const saved = await ck.save(
      1,
      specs.map((s) => [s.name, s.data] as [string, Buffer]),
    );
    const sent = env.client.stats().requests.bulk - before;
    expect(saved.progress?.stagingBytesPeak).toBe(0);
    // Runs of writeRequestBytesMax (4 MiB): 2 MiB of each part per object, so 8 for the data, and
    // the manifest's few; at least the 4 that 16 MiB in 4 MiB requests needs.
    expect(sent).toBeGreaterThanOrEqual(4);
    expect(sent).toBeLessThanOrEqual(12);
    expectSameParts(await ck.load(1), specs);
    await ck.close();
  });

  it('a save is invisible until its publishing rename: staged, still uploading, nothing listed', async () => {
    const ck = checkpoints(env.client, '/ck-hidden', {
      layout: { pattern: 'raid0', stripeSize: S, stripeCount: 2 },
    });
    await ck.save(1, { a: seededBytes(100_000, SEED) });
    const first = seededBytes(3 * S + 5, SEED + 1);
    const second = seededBytes(S, SEED + 2);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The second part's stream waits on the gate: the save is half staged and cannot publish.
    const slow = Readable.from(
      (async function* () {
        yield first;
        await gate;
        yield second;
      })(),
    );
    const phases: string[] = [];
    const saving = ck.save(
      2,
      { fast: seededBytes(2 * S, SEED + 3), slow },
      { onProgress: (e) => phases.push(e.phase) },
    );
    await eventually(
      () => {
        if (phases.includes('uploading')) return true;
        throw new Error(`phases so far: ${phases.join(',')}`);
      },
      { timeoutMs: 30_000, what: 'an upload to start', intervalMs: 20 },
    );
    expect((await ck.list()).map((c) => c.step)).toEqual([1]);
    expect((await env.client.readdir('/ck-hidden')).sort()).toEqual([STAGING_DIR, 'step-0000000001']);
    expect((await env.client.readdir(`/ck-hidden/${STAGING_DIR}`)).length).toBe(1);
    release();
    await saving;
    expect(phases.indexOf('publishing')).toBeLessThan(phases.indexOf('published'));
    expect((await ck.list()).map((c) => c.step)).toEqual([1, 2]);
    expect((await ck.load(2, { parts: ['slow'] })).get('slow')?.equals(Buffer.concat([first, second]))).toBe(
      true,
    );
  });

  it('bad input gets registry codes and stores nothing', async () => {
    const ck = checkpoints(env.client, '/ck-bad', {
      layout: { pattern: 'raid0', stripeSize: S, stripeCount: 1 },
    });
    await ck.save(5, { a: Buffer.from('kept') });
    expect(await codeOf(ck.save(-1, {}))).toBe('REQ_INVALID');
    expect(await codeOf(ck.save(1.5, {}))).toBe('REQ_INVALID');
    expect(
      await codeOf(
        ck.save(6, [
          ['a', Buffer.from('1')],
          ['a', Buffer.from('2')],
        ]),
      ),
    ).toBe('REQ_INVALID');
    expect(await codeOf(ck.save(6, { '': Buffer.from('1') }))).toBe('REQ_INVALID');
    expect(await codeOf(ck.save(6, { a: 'text' as unknown as Buffer }))).toBe('REQ_INVALID');
    expect(await codeOf(ck.save(6, { a: Readable.from(['a string chunk']) }))).toBe('REQ_INVALID');
    expect(await codeOf(ck.save(5, { b: Buffer.from('other') }))).toBe('CKPT_EXISTS');
    expect(await codeOf(ck.save(6, {}, { async: true, staging: 'disk' }))).toBe('REQ_INVALID');
    expect(await codeOf(ck.load(7))).toBe('CKPT_NOT_FOUND');
    expect(await codeOf(ck.load(5, { parts: ['nope'] }))).toBe('CKPT_NOT_FOUND');
    expect(await codeOf(ck.load(5, { into: { a: Buffer.alloc(3) } }))).toBe('REQ_INVALID');
    expect(await codeOf(ck.load(5, { into: { nope: Buffer.alloc(4) } }))).toBe('CKPT_NOT_FOUND');
    expect(await codeOf(ck.load(5, { into: { a: 'kept' as unknown as Buffer } }))).toBe('REQ_INVALID');
    expect(await codeOf(ck.remove(7))).toBe('CKPT_NOT_FOUND');
    expect(() => checkpoints(env.client, 'relative')).toThrow(StripeError);
    expect(() => checkpoints(env.client, '/x', { keepLast: 0 })).toThrow(StripeError);
    expect(() => checkpoints(env.client, '/x', { inFlightBytesMax: 0 })).toThrow(StripeError);
    // A failed save leaves nothing behind, and the checkpoint already there is whole.
    expect((await ck.list()).map((c) => c.step)).toEqual([5]);
    expect(await env.client.readdir(`/ck-bad/${STAGING_DIR}`)).toEqual([]);
    expect((await ck.load(5)).get('a')?.toString()).toBe('kept');
  });
});
