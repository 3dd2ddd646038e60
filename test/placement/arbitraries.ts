// fast-check generators shared by the placement property tests.
import fc from 'fast-check';
import { buildTopology, type ClusterMap, setOstWeight } from '../../placement/index.js';

/** A random regular topology (racks and hosts per rack at least the given minimums) with random weights. */
export function arbWeightedMap(min: { racks: number; hostsPerRack: number }): fc.Arbitrary<ClusterMap> {
  return fc
    .record({
      racks: fc.integer({ min: min.racks, max: 5 }),
      hostsPerRack: fc.integer({ min: min.hostsPerRack, max: 4 }),
      ostsPerHost: fc.integer({ min: 1, max: 3 }),
      weights: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 60, maxLength: 60 }),
    })
    .map(({ weights, ...spec }) => {
      let map = buildTopology(spec);
      for (const o of map.osts) map = setOstWeight(map, o.id, weights[o.id % weights.length]! / 8);
      return map;
    });
}

/** Any 32-bit placement input. */
export const arbInput = fc.integer({ min: 0, max: 0xffffffff });
