import { describe, expect, it } from 'vitest';
import {
  addOsts,
  buildTopology,
  diffMaps,
  expectedShares,
  parseRuleSpec,
  setOstState,
  setOstWeight,
  simulate,
  waterFill,
} from '../../placement/index.js';

describe('simulator', () => {
  const map = buildTopology({ racks: 3, hostsPerRack: 4, ostsPerHost: 2 });
  const range = { minX: 0, maxX: 5999 };

  it('water-fills capped failure domains', () => {
    expect(waterFill([10, 8, 8], 3)).toEqual([1, 1, 1]);
    expect(waterFill([6, 1, 1, 1, 1], 2)).toEqual([1, 0.25, 0.25, 0.25, 0.25]);
    expect(waterFill([1, 0], 3)).toEqual([1, 0]);
    const shares = expectedShares(setOstWeight(map, 0, 3), parseRuleSpec('replicated:3:rack'));
    expect(shares.get(0)).toBeCloseTo((1 / 3) * (3 / 10) * 3, 10);
  });

  it('balances within a few percent and places everything', () => {
    for (const text of ['replicated:3:rack', 'ec:4+2:host']) {
      const r = simulate(map, parseRuleSpec(text), range);
      expect(r.unplaced).toBe(0);
      expect(r.maxOverExpected).toBeLessThan(1.1);
      expect(r.minOverExpected).toBeGreaterThan(0.9);
      expect(r.osts.reduce((s, o) => s + o.count, 0)).toBe(6000 * (text.startsWith('ec') ? 6 : 3));
    }
  });

  it('marking an OST out moves only its members (ratio about 1)', () => {
    for (const text of ['replicated:3:rack', 'ec:4+2:host']) {
      const d = diffMaps(map, setOstState(map, 7, { in: false }), parseRuleSpec(text), range);
      expect(d.idealFraction).toBeCloseTo(1 / 24, 10);
      expect(d.ratio).toBeLessThan(1.1);
    }
  });

  it('adding a rack moves replicated copies only onto the new rack', () => {
    let bigger = map;
    for (let h = 0; h < 4; h++) {
      const ids = [24 + 2 * h, 25 + 2 * h];
      bigger = addOsts(
        bigger,
        { rack: 'rack3', host: `host${12 + h}` },
        ids.map((id) => ({ id, name: `ost${id}`, weight: 1 })),
      );
    }
    const d = diffMaps(map, bigger, parseRuleSpec('replicated:3:rack'), range);
    expect(d.idealFraction).toBeCloseTo(0.25, 10);
    expect(d.ratio).toBeLessThan(1.05);
  });
});
