import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildTopology,
  objectToPg,
  type Pool,
  parseRuleSpec,
  pgInput,
  placeInput,
  placeObject,
  placePg,
  stableMod,
} from '../../placement/index.js';
import { testSeed } from './seed.js';

describe('placement groups', () => {
  const map = buildTopology({ racks: 3, hostsPerRack: 4, ostsPerHost: 2 });
  const pool: Pool = { id: 3, name: 'data', pgCount: 100, rule: parseRuleSpec('ec:4+2:host') };

  it('object -> PG -> OSTs in one call equals the two steps', () => {
    const seed = testSeed('pg');
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (key) => {
        const one = placeObject(map, pool, key);
        const pg = objectToPg(pool, key);
        expect(one.pg).toBe(pg);
        expect(pg).toBeGreaterThanOrEqual(0);
        expect(pg).toBeLessThan(pool.pgCount);
        expect({ osts: one.osts, complete: one.complete }).toEqual(placePg(map, pool, pg));
        expect(placePg(map, pool, pg)).toEqual(placeInput(map, pool.rule, pgInput(pool, pg)));
      }),
      { seed, numRuns: 200 },
    );
  });

  it('stable_mod only splits PGs when pgCount grows', () => {
    const seed = testSeed('stable-mod');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 1, max: 5000 }), (h, n) => {
        const a = stableMod(h, n);
        const b = stableMod(h, n + 1);
        expect(a).toBeLessThan(n);
        expect(b === a || b === n).toBe(true);
      }),
      { seed, numRuns: 500 },
    );
  });

  it('spreads objects evenly over a power-of-two PG count (stable_mod halves the folded tail otherwise)', () => {
    const pow2: Pool = { ...pool, pgCount: 128 };
    const counts = new Array(pow2.pgCount).fill(0);
    for (let i = 0; i < 25600; i++) counts[objectToPg(pow2, `file-${i}/obj-${i % 7}`)]++;
    expect(Math.min(...counts)).toBeGreaterThan(140);
    expect(Math.max(...counts)).toBeLessThan(260);
  });
});
