// Layouts on a real MDS: map checks at create, directory defaults that new
// files and subdirectories inherit, and pools created on first use. The text
// form and the refusals MDS and client share are in test/layout/.
import { describe, expect, it } from 'vitest';
import { call, StripeError } from '../../common/index.js';
import { codeOf } from '../helpers/errors.js';
import { registerOss, startMds, stopMds, tempDir } from './helpers.js';

describe('layouts on a real MDS', () => {
  it('checks layouts against the map, inherits directory defaults, creates pools', async () => {
    const mds = await startMds(tempDir('mds-layout'));
    const c = mds.client;
    try {
      // No OSTs yet: the default raid0:1 cannot be placed.
      const err = await call(c, 'Create', { path: '/early' }).catch((e: unknown) => e as StripeError);
      expect(err).toBeInstanceOf(StripeError);
      expect((err as StripeError).code).toBe('LAYOUT_INVALID');
      expect((err as StripeError).message).toContain('0 OSTs in');
      for (let h = 0; h < 3; h++)
        await registerOss(c, { ossId: `oss${h}`, host: `h${h}`, rack: `r${h % 2}`, osts: 2 });
      const rep = {
        pattern: 'LAYOUT_PATTERN_REPLICATED',
        replicas: 3,
        failureDomain: 'host',
        stripeCount: 2,
      } as const;
      await call(c, 'Mkdir', { path: '/rep', layout: rep });
      await call(c, 'Mkdir', { path: '/rep/sub' });
      const sub = await call(c, 'Stat', { path: '/rep/sub' });
      expect(sub.attr?.layoutInherited).toBe(true);
      expect(sub.attr?.layout?.replicas).toBe(3);
      const f = await call(c, 'Create', { path: '/rep/sub/f' });
      expect(f.attr?.layout).toMatchObject({
        pattern: 'LAYOUT_PATTERN_REPLICATED',
        replicas: 3,
        stripeCount: 2,
        stripeSize: 1 << 20,
      });
      const map = await call(c, 'GetMap', { epoch: 0 });
      const pool = map.map?.pools.find((p) => p.id === f.attr?.layout?.poolId);
      expect(pool).toMatchObject({ name: 'rep-3-host', pgCount: 128, minSize: 2 });
      // Four hosts' worth of copies on three hosts, or two racks for three copies: refused.
      const tooWide = { pattern: 'LAYOUT_PATTERN_REPLICATED', replicas: 4, failureDomain: 'host' } as const;
      expect(await codeOf(call(c, 'Create', { path: '/wide', layout: tooWide }))).toBe('LAYOUT_INVALID');
      const ec = { pattern: 'LAYOUT_PATTERN_EC', k: 2, m: 1, failureDomain: 'rack' } as const;
      const ecErr = await call(c, 'Create', { path: '/ec', layout: ec }).catch(
        (e: unknown) => e as StripeError,
      );
      expect((ecErr as StripeError).message).toBe('2 racks in, need 3');
      const unknownDomain = {
        pattern: 'LAYOUT_PATTERN_REPLICATED',
        replicas: 1,
        failureDomain: 'row',
      } as const;
      expect(await codeOf(call(c, 'Create', { path: '/row', layout: unknownDomain }))).toBe('LAYOUT_INVALID');
      const badSize = { pattern: 'LAYOUT_PATTERN_RAID0', stripeSize: 3 << 20, stripeCount: 1 } as const;
      expect(await codeOf(call(c, 'Mkdir', { path: '/bad', layout: badSize }))).toBe('LAYOUT_INVALID');
      expect(
        await codeOf(
          call(c, 'Create', { path: '/bad', layout: { pattern: 'LAYOUT_PATTERN_RAID0', stripeCount: 7 } }),
        ),
      ).toBe('LAYOUT_INVALID');
      // setstripe -d on a directory, then clearing it back to the inherited default.
      const ec21 = {
        pattern: 'LAYOUT_PATTERN_EC',
        k: 2,
        m: 1,
        failureDomain: 'host',
        stripeSize: 65536,
      } as const;
      const set = await call(c, 'SetLayout', { path: '/rep/sub', layout: ec21 });
      expect(set.attr?.layoutInherited).toBe(false);
      const g = await call(c, 'Create', { path: '/rep/sub/g' });
      expect(g.attr?.layout).toMatchObject({ pattern: 'LAYOUT_PATTERN_EC', k: 2, m: 1, stripeSize: 65536 });
      const cleared = await call(c, 'SetLayout', { path: '/rep/sub' });
      expect(cleared.attr).toMatchObject({ layoutInherited: true, layout: { replicas: 3 } });
      expect(await codeOf(call(c, 'SetLayout', { path: '/rep/sub/f', layout: ec21 }))).toBe('NS_NOT_DIR');
      expect((await call(c, 'Stat', { path: '/' })).attr?.layout?.pattern).toBe('LAYOUT_PATTERN_RAID0');
    } finally {
      await stopMds(mds);
    }
  });
});
