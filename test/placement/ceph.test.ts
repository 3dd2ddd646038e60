import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  buildTopology,
  type ClusterMap,
  failureDomainOf,
  PlacementError,
  parseCephCrushText,
  parseRuleSpec,
  placeInput,
  toCephCrushText,
} from '../../placement/index.js';

const SAMPLE = readFileSync(
  join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'ceph-sample.crush.txt'),
  'utf8',
);

/** Bucket order is not meaningful; compare maps with buckets sorted by id. */
function normalised(map: ClusterMap): ClusterMap {
  return { ...map, buckets: [...map.buckets].sort((a, b) => b.id - a.id) };
}

function errorOf(text: string): PlacementError {
  try {
    parseCephCrushText(text);
  } catch (e) {
    if (e instanceof PlacementError) return e;
    throw e;
  }
  throw new Error('expected a PlacementError');
}

describe('Ceph text CRUSH map import', () => {
  const { map, rules, tunables } = parseCephCrushText(SAMPLE);

  it('reads the hand-written sample: counts, weights, parents', () => {
    expect(map.types).toEqual([
      'osd',
      'host',
      'chassis',
      'rack',
      'row',
      'pdu',
      'pod',
      'room',
      'datacenter',
      'zone',
      'region',
      'root',
    ]);
    expect(map.osts).toHaveLength(8);
    expect(map.buckets).toHaveLength(7);
    expect(map.rootName).toBe('default');
    expect(map.osts.map((o) => o.weight)).toEqual([1, 1, 1, 2, 0.5, 0.5, 2, 2]);
    expect(map.osts.reduce((s, o) => s + o.weight, 0)).toBe(10);
    expect(failureDomainOf(map, 3, 'host')).toBe('node2');
    expect(failureDomainOf(map, 4, 'rack')).toBe('rack2');
    expect(map.buckets.find((b) => b.name === 'rack1')!.children).toEqual([-3, -5]);
    expect(map.buckets.find((b) => b.name === 'default')!).toMatchObject({
      id: -1,
      type: 'root',
      children: [-11, -12],
    });
    expect(tunables.choose_total_tries).toBe(50);
    expect(rules.map((r) => [r.id, r.name, r.type])).toEqual([
      [0, 'replicated_rule', 'replicated'],
      [1, 'ec_rule', 'erasure'],
      [2, 'two_racks', 'replicated'],
    ]);
    expect(rules[0]!.asRuleSpec).toEqual({
      kind: 'replicated',
      size: 3,
      failureDomain: 'host',
      root: 'default',
    });
    expect(rules[1]!.steps[0]).toEqual({ op: 'set_chooseleaf_tries', value: 5 });
    expect(rules[2]!.steps[1]).toEqual({ op: 'choose', mode: 'firstn', num: 2, type: 'rack' });
    expect(rules[2]!.asRuleSpec).toEqual({
      kind: 'replicated',
      size: 2,
      failureDomain: 'host',
      root: 'default',
      steps: [
        { type: 'rack', count: 2 },
        { type: 'host', count: 1 },
      ],
    });
  });

  it('places with an imported rule, multi-step ones too', () => {
    const p = placeInput(map, rules[0]!.asRuleSpec!, 42);
    expect(p.complete).toBe(true);
    expect(new Set(p.osts.map((o) => failureDomainOf(map, o, 'host'))).size).toBe(3);
    const two = placeInput(map, rules[2]!.asRuleSpec!, 42);
    expect(two.complete).toBe(true);
    expect(new Set(two.osts.map((o) => failureDomainOf(map, o, 'rack'))).size).toBe(2);
  });

  it('says why a rule cannot run', () => {
    const mixed = SAMPLE.replace('step chooseleaf firstn 1 type host', 'step chooseleaf indep 1 type host');
    expect(parseCephCrushText(mixed).rules[2]!.notRunnable).toMatch(/cannot be mixed/);
    const hosts = SAMPLE.replace('step chooseleaf firstn 1 type host', 'step choose firstn 1 type host');
    expect(parseCephCrushText(hosts).rules[2]!.notRunnable).toMatch(/last step must be chooseleaf/);
  });

  it('round-trips export -> import for the sample and for a stripefs topology', () => {
    const again = parseCephCrushText(toCephCrushText(map, rules));
    expect(normalised(again.map)).toEqual(normalised(map));
    expect(again.rules).toEqual(rules);
    const ours = buildTopology({ datacenters: 2, racks: 2, hostsPerRack: 2, ostsPerHost: 3, ostWeight: 1.5 });
    const specs = [parseRuleSpec('replicated:3:rack'), parseRuleSpec('ec:4+2:host')];
    const back = parseCephCrushText(toCephCrushText(ours, specs));
    expect(normalised(back.map)).toEqual(normalised(ours));
    expect(back.rules.map((r) => r.asRuleSpec?.failureDomain)).toEqual(['rack', 'host']);
  });

  it('rejects unsupported parts with the line number', () => {
    const classTake = SAMPLE.replace(
      'step take default\n\tstep chooseleaf firstn 0',
      'step take default class hdd\n\tstep chooseleaf firstn 0',
    );
    const e1 = errorOf(classTake);
    expect(e1.code).toBe('PLACEMENT_UNSUPPORTED');
    const line =
      classTake.split('\n').findIndex((l) => l.includes('class hdd') && l.includes('step take')) + 1;
    expect(e1.message).toContain(`line ${line}:`);
    expect(e1.message).toContain('device classes are not supported');
    expect(errorOf(SAMPLE.replace('alg straw2', 'alg straw')).message).toMatch(
      /line 40: bucket alg 'straw' is not supported/,
    );
    expect(errorOf(SAMPLE.replace('item osd.7 weight 2.000', 'item osd.9 weight 2.000')).code).toBe(
      'PLACEMENT_CEPH_PARSE',
    );
    expect(errorOf(`${SAMPLE}\nchoose_args 1 {\n}\n`).message).toMatch(
      /unsupported statement 'choose_args 1 \{'/,
    );
  });
});
