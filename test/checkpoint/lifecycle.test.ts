// The life of a checkpoint directory on a real cluster: retention (keep the
// last N and every Kth), removal and gc of staging remains and the trash;
// parallel ranks in processes of their own, whose commit refuses (publishing
// nothing) while a declared rank or part is missing; and the CLI, `stripefs
// ckpt ls|verify|rm|gc`, run as a user runs it, including a corrupted part.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpoints, STAGING_DIR, TRASH_DIR } from '../../checkpoint/index.js';
import type { Layout } from '../../client/index.js';
import { seedFromEnv } from '../../common/random.js';
import { runCli } from '../helpers/cli.js';
import { seededBytes } from '../helpers/clients.js';
import { codeOf } from '../helpers/errors.js';
import { expectSameParts, KiB, type PartSpec, rejectionOf, suiteCluster } from './helpers.js';
import { startSaver } from './saver.js';

const SEED = seedFromEnv();
console.log(`checkpoint lifecycle seed=${SEED} (replay with STRIPEFS_SEED=${SEED})`);
const S = 64 * KiB;
const LAYOUT: Layout = {
  pattern: 'replicated',
  stripeSize: S,
  stripeCount: 2,
  replicas: 2,
  failureDomain: 'host',
};

describe('checkpoint directories over time', () => {
  const env = suiteCluster(SEED);

  it('retention keeps the last 3 and every 5th; remove hides then deletes; gc collects remains older than its grace', async () => {
    const ck = checkpoints(env.client, '/life', { layout: LAYOUT, keepLast: 3, keepEvery: 5 });
    const data = new Map<number, Buffer>();
    for (let step = 1; step <= 12; step++) {
      data.set(step, seededBytes(50_000 + step, SEED + step));
      const result = await ck.save(step, { w: data.get(step) as Buffer });
      if (step === 4) expect(result.removed).toEqual([1]);
    }
    expect((await ck.list()).map((c) => c.step)).toEqual([5, 10, 11, 12]);
    for (const step of [5, 10, 12])
      expect((await ck.load(step)).get('w')?.equals(data.get(step) as Buffer)).toBe(true);
    // Removed ones are gone from the namespace, not only from the listing.
    expect((await env.client.readdir('/life')).filter((n: string) => !n.startsWith('.')).length).toBe(4);
    const manifestBytes = (await env.client.stat('/life/step-0000000010/manifest.json')).size;
    expect(await ck.remove(10)).toBe(50_010 + manifestBytes);
    expect((await ck.list()).map((c) => c.step)).toEqual([5, 11, 12]);
    expect(await env.client.readdir(`/life/${TRASH_DIR}`)).toEqual([]);
    // Remains: a staging directory a dead save left, and a removal that died after its rename.
    await env.client.mkdir(`/life/${STAGING_DIR}/step-0000000013.1.dead`);
    await env.client.writeFile(
      `/life/${STAGING_DIR}/step-0000000013.1.dead/data-r000000`,
      seededBytes(70_000, SEED),
    );
    await env.client.rename('/life/step-0000000011', `/life/${TRASH_DIR}/step-0000000011.1.dead`);
    const young = await ck.gc();
    expect(young.stagingKept).toEqual([`/life/${STAGING_DIR}/step-0000000013.1.dead`]);
    expect(young.stagingRemoved).toEqual([]);
    expect(young.trashRemoved).toEqual([`/life/${TRASH_DIR}/step-0000000011.1.dead`]);
    const old = await ck.gc({ olderThanMs: 0 });
    expect(old.stagingRemoved).toEqual([`/life/${STAGING_DIR}/step-0000000013.1.dead`]);
    expect(old.freedBytes).toBe(70_000);
    expect(await env.client.readdir(`/life/${STAGING_DIR}`)).toEqual([]);
    expect(await env.client.readdir(`/life/${TRASH_DIR}`)).toEqual([]);
    expect((await ck.list()).map((c) => c.step)).toEqual([5, 12]);
    expect((await ck.gc({ retention: { keepLast: 1 } })).retentionRemoved).toEqual([5]);
  });

  it('three ranks in processes of their own; the commit refuses while a rank or a part is missing', async () => {
    const dir = '/ranks';
    const ck = checkpoints(env.client, dir, { layout: LAYOUT });
    const ranks = [0, 1, 2].map((rank) => {
      const specs: PartSpec[] = Array.from({ length: 3 + rank }, (_, i) => ({
        name: `rank${rank}/shard${i}`,
        data: seededBytes(200_000 * (i + 1) + rank, SEED + rank * 10 + i),
      }));
      const dataPath = join(env.folder, `rank${rank}.bin`);
      writeFileSync(dataPath, Buffer.concat(specs.map((s) => s.data)));
      let at = 0;
      const parts = specs.map((s, i): [string, number, number, boolean] => {
        at += s.data.length;
        return [s.name, at - s.data.length, s.data.length, i % 2 === 1];
      });
      return {
        specs,
        config: { mds: env.cluster.mdsAddress, dir, layout: LAYOUT, step: 7, rank, dataPath, parts },
      };
    });
    const save = async (rank: number, async = false) => {
      const saver = startSaver({ ...(ranks[rank]?.config as Parameters<typeof startSaver>[0]), async });
      expect(await saver.exited).toEqual({ code: 0, signal: null });
    };
    await Promise.all([save(0), save(2, true)]);
    const missingRank = await rejectionOf(ck.commit(7, { ranks: 3 }));
    expect(missingRank?.code).toBe('CKPT_INCOMPLETE');
    expect(missingRank?.details).toMatchObject({ missingRanks: [1], stagedRanks: [0, 2] });
    const allNames = ranks.flatMap((r) => r.specs.map((s) => s.name));
    const missingParts = await rejectionOf(ck.commit(7, { parts: allNames }));
    expect(missingParts?.code).toBe('CKPT_INCOMPLETE');
    expect(missingParts?.details.missingParts).toEqual(ranks[1]?.specs.map((s) => s.name));
    // Nothing was published by either refusal.
    expect(await ck.list()).toEqual([]);
    expect((await env.client.readdir(dir)).sort()).toEqual([STAGING_DIR]);
    await save(1);
    const committed = await ck.commit(7, { ranks: 3, parts: allNames, meta: { epoch: 3 } });
    expect(committed).toMatchObject({ step: 7, parts: allNames.length });
    const manifest = await ck.manifest(7);
    expect(manifest).toMatchObject({ ranks: 3, meta: { epoch: 3 } });
    expect(manifest.files.map((f) => f.name)).toEqual(['data-r000000', 'data-r000001', 'data-r000002']);
    expectSameParts(
      await ck.load(7),
      ranks.flatMap((r) => r.specs),
    );
    expect(await codeOf(ck.commit(7, { ranks: 3 }))).toBe('CKPT_EXISTS');
    expect(await codeOf(ck.commit(8, {}))).toBe('REQ_INVALID');
  });

  it('stripefs ckpt ls, verify (a corrupted part exits 1 and is named), rm and gc', async () => {
    const dir = '/cli';
    const mds = ['--mds', env.cluster.mdsAddress];
    const ck = checkpoints(env.client, dir, { layout: { pattern: 'raid0', stripeSize: S, stripeCount: 2 } });
    await ck.save(1, { a: seededBytes(300_000, SEED), b: seededBytes(10, SEED + 1) });
    await ck.save(2, { a: seededBytes(300_000, SEED + 2) }, { meta: { loss: 0.5 } });
    await env.client.mkdir(`${dir}/${STAGING_DIR}/step-0000000003.1.dead`);
    const ls = await runCli(['ckpt', 'ls', dir, ...mds, '--json']);
    expect(ls.code, ls.stderr).toBe(0);
    const listed = JSON.parse(ls.stdout);
    expect(listed).toMatchObject({ latest: 2, staging: ['step-0000000003.1.dead'], trash: [] });
    expect(
      listed.checkpoints.map((c: { step: number; parts: number; bytes: number }) => [
        c.step,
        c.parts,
        c.bytes,
      ]),
    ).toEqual([
      [1, 2, 300_010],
      [2, 1, 300_000],
    ]);
    const text = await runCli(['ckpt', 'ls', dir, ...mds]);
    expect(text.stdout).toMatch(/2 \(latest\)\s+1\s+293 KiB/);
    expect(text.stdout).toMatch(/1 staging and 0 trash entries/);
    const good = await runCli(['ckpt', 'verify', dir, '1', ...mds]);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/step 1: 2 parts, .*: ok/);
    // One byte of part a changed behind the manifest's back (raid0 files take overwrites).
    const handle = await env.client.open(`${dir}/step-0000000002/data-r000000`, 'r+');
    await handle.write(Buffer.from([0xff ^ (seededBytes(1000, SEED + 2)[999] as number)]), 0, 1, 999);
    await handle.close();
    const bad = await runCli(['ckpt', 'verify', dir, ...mds, '--json']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ step: 2, ok: false, bad: [{ name: 'a' }] });
    expect(await codeOf(ck.load(2))).toBe('CKPT_CORRUPT');
    const missing = await runCli(['ckpt', 'verify', dir, '9', ...mds]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/CKPT_NOT_FOUND/);
    const rm = await runCli(['ckpt', 'rm', dir, '2', ...mds]);
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toMatch(/removed step 2/);
    const gcKept = await runCli(['ckpt', 'gc', dir, ...mds, '--json']);
    expect(JSON.parse(gcKept.stdout).stagingKept).toEqual([`${dir}/${STAGING_DIR}/step-0000000003.1.dead`]);
    const gc = await runCli(['ckpt', 'gc', dir, '--older-than', '0', ...mds]);
    expect(gc.code, gc.stderr).toBe(0);
    expect(gc.stdout).toMatch(/staging: 1 removed, 0 kept/);
    expect(await env.client.readdir(`${dir}/${STAGING_DIR}`)).toEqual([]);
    const usage = await runCli(['ckpt', 'gc', dir, '--older-than', 'soon', ...mds]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/REQ_INVALID/);
    expect((await ck.list()).map((c) => c.step)).toEqual([1]);
  });
});
