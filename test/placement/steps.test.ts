import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildTopology,
  type ClusterMap,
  failureDomainOf,
  formatRuleSpec,
  type PlacementError,
  parseCephCrushText,
  parseRuleSpec,
  placeInput,
  placePg,
  type RuleSpec,
  setOstState,
  setOstWeight,
  simulate,
  toCephCrushText,
} from '../../placement/index.js';
import { arbInput, arbWeightedMap } from './arbitraries.js';
import { testSeed } from './seed.js';

/** Multi-step rules: choose racks, then hosts in each (Ceph's 'choose ... / chooseleaf ...'). */
const RUNS = 30;
const INPUTS_PER_RUN = 48;

const arbMap = arbWeightedMap({ racks: 3, hostsPerRack: 2 });

const REP = 'replicated:4:rack=2,host=2';
const EC = 'ec:4+2:rack=3,host=2';

function rackHostOf(map: ClusterMap, ost: number): [string, string] {
  return [failureDomainOf(map, ost, 'rack')!, failureDomainOf(map, ost, 'host')!];
}

/** The shape the rules promise: distinct hosts, two per rack, consecutive pairs in one rack. */
function expectTwoPerRack(map: ClusterMap, osts: number[]): void {
  const placed = osts.filter((o) => o >= 0).map((o) => rackHostOf(map, o));
  expect(new Set(placed.map(([, h]) => h)).size).toBe(placed.length);
  const perRack = new Map<string, number>();
  for (const [r] of placed) perRack.set(r, (perRack.get(r) ?? 0) + 1);
  for (const n of perRack.values()) expect(n).toBeLessThanOrEqual(2);
  if (osts.length % 2 === 1) return; // a dropped copy (firstn) shifts the pairs
  for (let i = 0; i + 1 < osts.length; i += 2) {
    if (osts[i]! >= 0 && osts[i + 1]! >= 0)
      expect(rackHostOf(map, osts[i]!)[0]).toBe(rackHostOf(map, osts[i + 1]!)[0]);
  }
}

describe('multi-step rules', () => {
  it('parse and format: rack=2,host=2 is two racks, then two hosts in each', () => {
    const rule = parseRuleSpec(REP);
    expect(rule).toEqual({
      kind: 'replicated',
      size: 4,
      failureDomain: 'host',
      steps: [
        { type: 'rack', count: 2 },
        { type: 'host', count: 2 },
      ],
    });
    expect(formatRuleSpec(rule)).toBe(REP);
    expect(parseRuleSpec('ec:4+2:host')).not.toHaveProperty('steps');
    expect(() => parseRuleSpec('ec:4+2:rack=x')).toThrow(/TYPE or TYPE=COUNT/);
    const map = buildTopology({ racks: 3, hostsPerRack: 2, ostsPerHost: 1 });
    const upside = parseRuleSpec('replicated:4:host=2,rack=2');
    expect(() => placeInput(map, upside, 1)).toThrow(/descend the hierarchy/);
    try {
      placeInput(map, upside, 1);
    } catch (e) {
      expect((e as PlacementError).code).toBe('PLACEMENT_INVALID_RULE');
    }
  });

  it('one step maps exactly like the plain rule (uneven weights, an OST out, one down)', () => {
    let map = buildTopology({ racks: 4, hostsPerRack: 3, ostsPerHost: 2 });
    for (const o of map.osts) map = setOstWeight(map, o.id, 0.5 + ((o.id * 7) % 5) * 0.75);
    map = setOstState(setOstState(setOstWeight(map, 14, 0), 3, { in: false }), 9, { up: false });
    for (const text of [
      'replicated:3:rack',
      'replicated:2:host',
      'ec:4+2:host',
      'ec:2+1:rack',
      'ec:8+3:ost',
    ]) {
      const plain = parseRuleSpec(text);
      const stepped: RuleSpec = { ...plain, steps: [{ type: plain.failureDomain, count: 0 }] };
      for (let x = 0; x < 800; x++) expect(placeInput(map, stepped, x)).toEqual(placeInput(map, plain, x));
    }
  });

  it('never two copies on one host, at most two per rack, grouped by rack as Ceph orders them', () => {
    const seed = testSeed('steps-shape');
    fc.assert(
      fc.property(arbMap, arbInput, fc.constantFrom(REP, EC), (map, x0, text) => {
        const rule = parseRuleSpec(text);
        for (let i = 0; i < INPUTS_PER_RUN; i++) {
          const p = placeInput(map, rule, (x0 + i) >>> 0);
          expect(p.complete).toBe(true);
          expect(p.osts).toHaveLength(text === REP ? 4 : 6);
          expectTwoPerRack(map, p.osts);
        }
      }),
      { seed, numRuns: RUNS },
    );
  });

  it('indep: when one OST goes out, every other position keeps its OST; firstn keeps the other copies', () => {
    const seed = testSeed('steps-out-stability');
    fc.assert(
      fc.property(arbMap, arbInput, fc.nat({ max: 5 }), (map, x, position) => {
        for (const text of [EC, REP]) {
          const rule = parseRuleSpec(text);
          const before = placeInput(map, rule, x);
          const victim = before.osts[position % before.osts.length]!;
          const after = placeInput(setOstState(map, victim, { in: false }), rule, x);
          expect(after.osts).not.toContain(victim);
          if (rule.kind === 'replicated') {
            // a copy whose rack has no in OST left is dropped, so only membership is stable
            expect(after.osts).toEqual(expect.arrayContaining(before.osts.filter((o) => o !== victim)));
          } else {
            before.osts.forEach((o, p) => {
              if (o !== victim) expect(after.osts[p]).toBe(o);
            });
          }
          expectTwoPerRack(map, after.osts);
        }
      }),
      { seed, numRuns: 150 },
    );
  });

  it('short racks leave holes in place (indep) or a short list (firstn), flagged incomplete', () => {
    const map = buildTopology({ racks: 2, hostsPerRack: 2, ostsPerHost: 1 });
    const ec = placeInput(map, parseRuleSpec(EC), 3);
    expect(ec.complete).toBe(false);
    const hole = ec.osts.indexOf(-1); // the rack slot left without a rack: both its positions
    expect(hole % 2).toBe(0);
    expect(ec.osts.filter((o) => o < 0)).toHaveLength(2);
    expect(ec.osts[hole + 1]).toBe(-1);
    const rep = placeInput(map, parseRuleSpec('replicated:6:rack=3,host=2'), 3);
    expect(rep.complete).toBe(false);
    expect(rep.osts).toHaveLength(4);
  });

  it('balances within a few percent against the stepwise water-filled expectation', () => {
    const map = buildTopology({ racks: 3, hostsPerRack: 4, ostsPerHost: 2 });
    for (const text of [REP, EC]) {
      const r = simulate(map, parseRuleSpec(text), { minX: 0, maxX: 11_999 });
      expect(r.unplaced).toBe(0);
      expect(r.maxOverExpected).toBeLessThan(1.08);
      expect(r.minOverExpected).toBeGreaterThan(0.92);
    }
  });

  it('round-trips through the Ceph text format and places PGs of a pool', () => {
    const map = buildTopology({ datacenters: 2, racks: 2, hostsPerRack: 2, ostsPerHost: 2 });
    const rules = [REP, EC, 'replicated:3:datacenter=1,rack=0', 'ec:2+2:datacenter=2,host=2'].map(
      parseRuleSpec,
    );
    const back = parseCephCrushText(toCephCrushText(map, rules));
    expect(back.rules.map((r) => r.asRuleSpec)).toEqual(
      rules.map((r) => ({ ...r, root: 'default', ...(r.kind === 'erasure' ? { k: r.k + r.m, m: 0 } : {}) })),
    );
    const pool = { id: 3, name: 'p', pgCount: 8, rule: rules[1]! };
    expectTwoPerRack(map, placePg(map, pool, 5).osts);
  });
});
