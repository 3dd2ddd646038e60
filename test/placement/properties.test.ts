import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildTopology,
  type ClusterMap,
  failureDomainOf,
  parseRuleSpec,
  placeInput,
  setOstState,
  setOstWeight,
} from '../../placement/index.js';
import { arbInput, arbWeightedMap } from './arbitraries.js';
import { testSeed } from './seed.js';

const RUNS = 40;
const INPUTS_PER_RUN = 64;

const arbMap = arbWeightedMap({ racks: 2, hostsPerRack: 1 });
const arbRule = fc.constantFrom(
  'replicated:3:rack',
  'replicated:2:host',
  'ec:2+1:rack',
  'ec:4+2:host',
  'ec:3+2:ost',
);

function domains(map: ClusterMap, osts: number[], type: string): string[] {
  return osts.filter((o) => o >= 0).map((o) => failureDomainOf(map, o, type)!);
}

describe('placement properties', () => {
  it('is deterministic and never puts two members in one failure domain', () => {
    const seed = testSeed('distinct-domains');
    fc.assert(
      fc.property(arbMap, arbRule, arbInput, (map, text, x0) => {
        const rule = parseRuleSpec(text);
        for (let i = 0; i < INPUTS_PER_RUN; i++) {
          const x = (x0 + i) >>> 0;
          const p = placeInput(map, rule, x);
          expect(placeInput(structuredClone(map), rule, x)).toEqual(p);
          const ds = domains(map, p.osts, rule.failureDomain);
          expect(new Set(ds).size).toBe(ds.length);
        }
      }),
      { seed, numRuns: RUNS },
    );
  });

  it('never chooses an out OST; down-but-in OSTs stay eligible', () => {
    const seed = testSeed('no-out');
    fc.assert(
      fc.property(arbMap, arbRule, arbInput, fc.nat(), (map, text, x0, pick) => {
        const rule = parseRuleSpec(text);
        const victim = map.osts[pick % map.osts.length]!.id;
        const out = setOstState(map, victim, { in: false });
        const down = setOstState(map, victim, { up: false });
        for (let i = 0; i < INPUTS_PER_RUN; i++) {
          const x = (x0 + i) >>> 0;
          expect(placeInput(out, rule, x).osts).not.toContain(victim);
          expect(placeInput(down, rule, x)).toEqual(placeInput(map, rule, x));
        }
      }),
      { seed, numRuns: RUNS },
    );
  });

  it("replicated: changing one OST's weight moves copies only to or from that OST", () => {
    const seed = testSeed('straw2-movement');
    fc.assert(
      fc.property(arbMap, arbInput, fc.nat(), fc.integer({ min: 0, max: 80 }), (map, x0, pick, w) => {
        const rule = parseRuleSpec('replicated:2:host');
        const victim = map.osts[pick % map.osts.length]!.id;
        const after = setOstWeight(map, victim, w / 8);
        for (let i = 0; i < INPUTS_PER_RUN; i++) {
          const x = (x0 + i) >>> 0;
          const a = placeInput(map, rule, x).osts;
          const b = placeInput(after, rule, x).osts;
          const gained = b.filter((o) => !a.includes(o));
          const lost = a.filter((o) => !b.includes(o));
          if (gained.length + lost.length === 0) continue;
          expect(gained.includes(victim) || lost.includes(victim)).toBe(true);
          expect(gained.length).toBeLessThanOrEqual(1);
        }
      }),
      { seed, numRuns: RUNS },
    );
  });

  it('erasure: when one member goes out, every other position keeps its OST', () => {
    const seed = testSeed('indep-stability');
    fc.assert(
      fc.property(arbMap, arbInput, fc.nat({ max: 5 }), (map, x, position) => {
        const rule = parseRuleSpec('ec:4+2:host');
        const before = placeInput(map, rule, x);
        const victim = before.osts[position]!;
        if (victim < 0) return;
        const after = placeInput(setOstState(map, victim, { in: false }), rule, x);
        before.osts.forEach((o, p) => {
          if (p !== position) expect(after.osts[p]).toBe(o);
        });
        expect(after.osts[position]).not.toBe(victim);
      }),
      { seed, numRuns: 200 },
    );
  });

  it('returns a short, flagged result when there are too few failure domains', () => {
    const map = buildTopology({ racks: 2, hostsPerRack: 2, ostsPerHost: 2 });
    const rep = placeInput(map, parseRuleSpec('replicated:3:rack'), 7);
    expect(rep.complete).toBe(false);
    expect(rep.osts).toHaveLength(2);
    const ec = placeInput(map, parseRuleSpec('ec:4+2:host'), 7);
    expect(ec.complete).toBe(false);
    expect(ec.osts.filter((o) => o === -1)).toHaveLength(2);
    expect(new Set(domains(map, ec.osts, 'host')).size).toBe(4);
  });
});
