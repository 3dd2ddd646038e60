import { describe, expect, it } from 'vitest';
import {
  buildTopology,
  parseRuleSpec,
  placeInput,
  setOstState,
  setOstWeight,
} from '../../placement/index.js';
import { referencePlace } from './reference.js';

/** An uneven map with an out OST, a zero-weight OST and a down OST, to exercise every branch. */
function unevenMap() {
  let map = buildTopology({ racks: 4, hostsPerRack: 3, ostsPerHost: 2 });
  map.osts.forEach((o) => {
    map = setOstWeight(map, o.id, 0.5 + ((o.id * 7) % 5) * 0.75);
  });
  map = setOstState(map, 3, { in: false });
  map = setOstState(map, 9, { up: false });
  map = setOstWeight(map, 14, 0);
  return map;
}

/** Equal weights take the engine's u-only paths (packed erasure keys); one OST out. */
function evenMap() {
  return setOstState(buildTopology({ racks: 3, hostsPerRack: 4, ostsPerHost: 2 }), 5, { in: false });
}

describe('naive reference (float log straw2) agrees with the engine', () => {
  for (const [name, map] of [
    ['uneven', unevenMap()],
    ['even', evenMap()],
  ] as const)
    for (const text of [
      'replicated:3:rack',
      'replicated:3:host',
      'ec:4+2:host',
      'ec:2+1:rack',
      'replicated:2:ost',
      'ec:8+3:ost',
      'replicated:4:rack=2,host=2',
      'replicated:3:rack=2,ost=2',
      'replicated:5:rack=-1,host=0',
      'ec:4+2:rack=3,host=2',
      'ec:5+1:rack=2,host=2',
      'ec:3+2:rack=2,host=2,ost=1',
    ]) {
      it(`${name}: ${text}`, () => {
        const rule = parseRuleSpec(text);
        let disagreements = 0;
        for (let x = 0; x < 1500; x++) {
          const fast = placeInput(map, rule, x);
          const slow = referencePlace(map, rule, x);
          if (JSON.stringify(fast) !== JSON.stringify(slow)) disagreements++;
        }
        expect(disagreements).toBe(0);
      });
    }
});
