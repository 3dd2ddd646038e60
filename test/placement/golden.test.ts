import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  buildTopology,
  type ClusterMap,
  parseRuleSpec,
  placeInput,
  setOstState,
  setOstWeight,
  validateMap,
} from '../../placement/index.js';

/**
 * Golden mappings for inputs 0..1023 on a fixed map, pinned in a fixture. A change here means
 * every deployed cluster would move data: regenerate only deliberately, with
 *   STRIPEFS_REGEN_GOLDEN=1 npx vitest run test/placement/golden.test.ts
 */
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'golden-mappings.json');
const RULES = ['replicated:3:rack', 'ec:4+2:host', 'replicated:2:host'];
const INPUTS = 1024;

interface Golden {
  map: ClusterMap;
  mappings: Record<string, number[][]>;
}

function goldenMap(): ClusterMap {
  let map = buildTopology({ racks: 3, hostsPerRack: 4, ostsPerHost: 2 });
  map = setOstWeight(map, 4, 2);
  map = setOstState(map, 11, { in: false });
  return map;
}

function compute(map: ClusterMap): Record<string, number[][]> {
  const out: Record<string, number[][]> = {};
  for (const text of RULES) {
    const rule = parseRuleSpec(text);
    out[text] = Array.from({ length: INPUTS }, (_, x) => placeInput(map, rule, x).osts);
  }
  return out;
}

describe('golden mappings', () => {
  it('inputs 0..1023 map exactly as pinned in fixtures/golden-mappings.json', () => {
    if (process.env.STRIPEFS_REGEN_GOLDEN === '1' || !existsSync(FIXTURE)) {
      const map = goldenMap();
      const golden: Golden = { map, mappings: compute(map) };
      const lines = Object.entries(golden.mappings).map(
        ([rule, rows]) =>
          `    ${JSON.stringify(rule)}: [\n${rows.map((r) => `      ${JSON.stringify(r)}`).join(',\n')}\n    ]`,
      );
      writeFileSync(
        FIXTURE,
        `{\n  "map": ${JSON.stringify(map)},\n  "mappings": {\n${lines.join(',\n')}\n  }\n}\n`,
      );
      console.log(`wrote ${FIXTURE}`);
    }
    const golden = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Golden;
    const map = validateMap(golden.map);
    const now = compute(map);
    for (const text of RULES) {
      const want = golden.mappings[text]!;
      const got = now[text]!;
      const firstDiff = want.findIndex((row, x) => JSON.stringify(row) !== JSON.stringify(got[x]));
      expect(firstDiff, `${text}: first differing input ${firstDiff}`).toBe(-1);
    }
  });
});
