// Every value that crosses a process boundary reads back as it was written:
// layouts through their text form and through protobuf bytes, placement rules
// likewise, the cluster map with its endpoints, object references. The bytes
// are made and read by the contract's own serializers (the ones gRPC runs).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LIMITS, UNITS } from '../../common/limits.js';
import {
  fileLayoutOf,
  formatLayout,
  LAYOUT_DEFAULTS,
  LAYOUT_WIDTH_MAX,
  type Layout,
  parseLayout,
  type StripedLayout,
} from '../../layout/index.js';
import {
  type ClusterMap,
  formatRuleSpec,
  parseRuleSpec,
  type RuleSpec,
  setOstState,
} from '../../placement/index.js';
import { contract } from '../../proto/index.js';
import {
  layoutFromWire,
  layoutToWire,
  mapToWire,
  mapViewFromWire,
  type OstDetails,
  objectRefFromWire,
  type PoolWithMinSize,
  ruleFromWire,
  ruleToWire,
  wholeLayoutFromWire,
} from '../../wire/index.js';
import { arbWeightedMap } from '../placement/arbitraries.js';
import { testSeed } from '../placement/seed.js';

const RUNS = 300;

/** Through protobuf bytes and back, as a request of `method` carrying the value in `field`. */
function overTheWire<T>(service: 'MdsService' | 'OssService', method: string, message: object): T {
  const definition = (
    contract()[service].service as unknown as Record<
      string,
      {
        requestSerialize: (value: object) => Buffer;
        requestDeserialize: (bytes: Buffer) => T;
      }
    >
  )[method]!;
  return definition.requestDeserialize(definition.requestSerialize(message));
}

function responseOverTheWire<T>(message: object): T {
  const definition = (
    contract().MdsService.service as unknown as Record<
      string,
      {
        responseSerialize: (value: object) => Buffer;
        responseDeserialize: (bytes: Buffer) => T;
      }
    >
  ).GetMap!;
  return definition.responseDeserialize(definition.responseSerialize(message));
}

const arbName = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,12}$/);
const arbStripeSize = fc.integer({ min: 16, max: 26 }).map((power) => 2 ** power);
const arbStripeCount = fc.integer({ min: 1, max: 256 });

const arbStriped: fc.Arbitrary<StripedLayout> = fc.oneof(
  fc.record({
    pattern: fc.constant('raid0' as const),
    stripeSize: arbStripeSize,
    stripeCount: arbStripeCount,
  }),
  fc.record({
    pattern: fc.constant('replicated' as const),
    stripeSize: arbStripeSize,
    stripeCount: arbStripeCount,
    replicas: fc.integer({ min: 1, max: LAYOUT_WIDTH_MAX }),
    failureDomain: arbName,
  }),
  fc.integer({ min: 1, max: LAYOUT_WIDTH_MAX - 1 }).chain((k) =>
    fc.record({
      pattern: fc.constant('ec' as const),
      stripeSize: arbStripeSize,
      k: fc.constant(k),
      m: fc.integer({ min: 1, max: LAYOUT_WIDTH_MAX - k }),
      failureDomain: arbName,
    }),
  ),
);

/** Striped layouts, and the same behind a dom component of 4 KiB to LIMITS.domBytesMax. */
const arbLayout: fc.Arbitrary<Layout> = fc
  .tuple(arbStriped, fc.option(fc.integer({ min: 1, max: LIMITS.domBytesMax / LIMITS.domBytesUnit })))
  .map(([rest, units]) =>
    units === null ? rest : { pattern: 'dom' as const, domBytes: units * LIMITS.domBytesUnit, rest },
  );

/** The text a user may type for a layout: any part equal to its default may be left out. */
function shortText(whole: Layout, leaveOut: boolean[]): string {
  if (whole.pattern === 'dom') return `dom:${whole.domBytes / UNITS.KiB}K,${shortText(whole.rest, leaveOut)}`;
  const layout = whole;
  const size = `${layout.stripeSize / UNITS.KiB}K`;
  const parts: [string, boolean][] =
    layout.pattern === 'raid0'
      ? [
          [String(layout.stripeCount), layout.stripeCount === LAYOUT_DEFAULTS.stripeCount],
          [size, layout.stripeSize === LAYOUT_DEFAULTS.stripeSizeBytes],
        ]
      : layout.pattern === 'replicated'
        ? [
            [String(layout.replicas), layout.replicas === LAYOUT_DEFAULTS.replicas],
            [layout.failureDomain, layout.failureDomain === LAYOUT_DEFAULTS.failureDomain],
            [String(layout.stripeCount), layout.stripeCount === LAYOUT_DEFAULTS.stripeCount],
            [size, layout.stripeSize === LAYOUT_DEFAULTS.stripeSizeBytes],
          ]
        : [
            [`${layout.k}+${layout.m}`, false],
            [layout.failureDomain, layout.failureDomain === LAYOUT_DEFAULTS.failureDomain],
            [size, layout.stripeSize === LAYOUT_DEFAULTS.stripeSizeBytes],
          ];
  const kept = parts.filter(([, isDefault], i) => !(isDefault && leaveOut[i]));
  return [layout.pattern, ...kept.map(([text]) => text)].join(':');
}

const arbRule: fc.Arbitrary<RuleSpec> = fc
  .record({
    erasure: fc.boolean(),
    k: fc.integer({ min: 1, max: 16 }),
    m: fc.integer({ min: 0, max: 16 }),
    size: fc.integer({ min: 1, max: 32 }),
    failureDomain: fc.stringMatching(/^[A-Za-z_][\w-]{0,8}$/),
    root: fc.option(fc.stringMatching(/^[A-Za-z_][\w-]{0,8}$/), { nil: undefined }),
    outer: fc.array(
      fc.record({
        type: fc.stringMatching(/^[A-Za-z_][\w-]{0,8}$/),
        count: fc.integer({ min: -32, max: 32 }),
      }),
      { maxLength: 7 },
    ),
    lastCount: fc.integer({ min: -32, max: 32 }),
  })
  .map(({ erasure, k, m, size, failureDomain, root, outer, lastCount }) => {
    const steps = [...outer, { type: failureDomain, count: lastCount }];
    const extras = {
      ...(root === undefined ? {} : { root }),
      ...(steps.length > 1 || lastCount !== 0 ? { steps } : {}),
    };
    return erasure
      ? { kind: 'erasure' as const, k, m, failureDomain, ...extras }
      : { kind: 'replicated' as const, size, failureDomain, ...extras };
  });

describe('layouts', () => {
  it('read back from their canonical text, from any shorter text and from protobuf bytes', () => {
    const seed = testSeed('layout-round-trip');
    fc.assert(
      fc.property(
        arbLayout,
        fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 0, max: 2 ** 32 - 1 }),
        (layout, leaveOut, poolId) => {
          expect(parseLayout(formatLayout(layout))).toEqual(layout);
          expect(parseLayout(shortText(layout, leaveOut))).toEqual(layout);
          const wire = overTheWire<{ layout: Parameters<typeof layoutFromWire>[0] }>(
            'MdsService',
            'SetLayout',
            {
              path: '/d',
              layout: layoutToWire(layout, poolId),
            },
          );
          expect(wholeLayoutFromWire(wire.layout)).toEqual(layout);
          expect(layoutFromWire(wire.layout)).toEqual(fileLayoutOf(layout, poolId));
        },
      ),
      { seed, numRuns: RUNS },
    );
  });

  it('take the defaults for what text leaves out and what the wire leaves zero', () => {
    const defaults = { stripeSize: UNITS.MiB, stripeCount: 1 };
    expect(parseLayout('raid0')).toEqual({ pattern: 'raid0', ...defaults });
    expect(parseLayout('replicated')).toEqual({
      pattern: 'replicated',
      ...defaults,
      replicas: 3,
      failureDomain: 'host',
    });
    expect(parseLayout('ec:4+2')).toEqual({
      pattern: 'ec',
      stripeSize: UNITS.MiB,
      k: 4,
      m: 2,
      failureDomain: 'host',
    });
    // The forms the two old parsers each read their own way now mean one thing.
    expect(parseLayout('replicated:3:host:4')).toMatchObject({ stripeCount: 4, stripeSize: UNITS.MiB });
    expect(parseLayout('replicated:3:host:1M')).toMatchObject({ stripeCount: 1, stripeSize: UNITS.MiB });
    expect(parseLayout('replicated:2:rack:8:4M')).toMatchObject({
      replicas: 2,
      stripeCount: 8,
      stripeSize: 4 * UNITS.MiB,
    });
    expect(parseLayout('ec:8+3:rack:64k')).toMatchObject({ k: 8, m: 3, stripeSize: 64 * UNITS.KiB });
    const zeros = overTheWire<{ layout: Parameters<typeof layoutFromWire>[0] }>('MdsService', 'SetLayout', {
      path: '/d',
      layout: { pattern: 'LAYOUT_PATTERN_REPLICATED' },
    });
    expect(layoutFromWire(zeros.layout)?.layout).toEqual(parseLayout('replicated'));
    expect(layoutFromWire(null)).toBeNull();
  });
});

describe('rules', () => {
  it('read back from their text and from protobuf bytes, root and choose steps included', () => {
    const seed = testSeed('rule-round-trip');
    fc.assert(
      fc.property(arbRule, (rule) => {
        expect(parseRuleSpec(formatRuleSpec(rule))).toEqual(rule);
        const wire = overTheWire<{ rule: Parameters<typeof ruleFromWire>[0] }>('OssService', 'RecoverPg', {
          rule: ruleToWire(rule),
        });
        expect(ruleFromWire(wire.rule)).toEqual(rule);
      }),
      { seed, numRuns: RUNS },
    );
  });

  it('refuses a rule of no kind and a missing rule with REQ_INVALID', () => {
    const unspecified = overTheWire<{ rule: Parameters<typeof ruleFromWire>[0] }>('OssService', 'RecoverPg', {
      rule: { size: 3, failureDomain: 'host' },
    });
    expect(() => ruleFromWire(unspecified.rule)).toThrow(expect.objectContaining({ code: 'REQ_INVALID' }));
    expect(() => ruleFromWire(null)).toThrow(expect.objectContaining({ code: 'REQ_INVALID' }));
  });
});

describe('the cluster map', () => {
  it('reads back with its pools, min sizes and every OST endpoint', () => {
    const seed = testSeed('map-round-trip');
    fc.assert(
      fc.property(
        arbWeightedMap({ racks: 1, hostsPerRack: 1 }),
        fc.array(arbRule, { minLength: 0, maxLength: 4 }),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
        (built, rules, epoch, downs) => {
          let map: ClusterMap = { ...built, epoch };
          for (const o of map.osts) if (downs[o.id % 64]) map = setOstState(map, o.id, { up: false });
          map = { ...map, epoch };
          const pools: PoolWithMinSize[] = rules.map((rule, i) => ({
            id: i + 1,
            name: `pool${i}`,
            pgCount: 8 << i,
            rule,
            minSize: i,
          }));
          const details = (id: number): OstDetails => ({
            host: `h${id >> 1}`,
            grpcAddress: `10.0.0.${id}:7000`,
            bulkAddress: `10.0.0.${id}:7001`,
            // Odd OSTs announce public addresses too (docker compose's published ports).
            ...(id % 2 === 1
              ? { publicGrpcAddress: `127.0.0.1:${9000 + id}`, publicBulkAddress: `127.0.0.1:${9500 + id}` }
              : {}),
            usedBytes: id * 4096,
            totalBytes: 2 ** 40,
          });
          const wire = responseOverTheWire<{ map: Parameters<typeof mapViewFromWire>[0] }>({
            map: mapToWire(map, pools, (ost) => details(ost.id)),
          });
          const view = mapViewFromWire(wire.map);
          const inside = mapViewFromWire(wire.map, 'cluster');
          expect(view.epoch).toBe(epoch);
          expect(view.map).toEqual({
            ...map,
            osts: map.osts.map((o) => ({ ...o, host: details(o.id).host })),
          });
          expect([...view.pools.values()]).toEqual(pools.map(({ minSize: _, ...pool }) => pool));
          expect([...view.poolMinSizes]).toEqual(pools.map((p) => [p.id, p.minSize]));
          for (const o of map.osts) {
            const d = details(o.id);
            const { host, grpcAddress, bulkAddress } = d;
            expect(inside.osts.get(o.id)).toEqual({ id: o.id, ...o.state, grpcAddress, bulkAddress, host });
            expect(view.osts.get(o.id)).toEqual({
              id: o.id,
              ...o.state,
              grpcAddress: d.publicGrpcAddress ?? grpcAddress,
              bulkAddress: d.publicBulkAddress ?? bulkAddress,
              host,
            });
          }
        },
      ),
      { seed, numRuns: 60 },
    );
  });
});

describe('object references', () => {
  it('read back from protobuf bytes; a request without one is REQ_INVALID', () => {
    const seed = testSeed('object-ref-round-trip');
    fc.assert(
      fc.property(
        fc.record({
          ostId: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
          objectId: fc.stringMatching(/^[A-Za-z0-9._-]{1,128}$/),
          poolId: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
          pg: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
          mapEpoch: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        }),
        (ref) => {
          const wire = overTheWire<{ ref: Parameters<typeof objectRefFromWire>[0] }>(
            'OssService',
            'StatObject',
            { ref },
          );
          expect(objectRefFromWire(wire.ref)).toEqual(ref);
        },
      ),
      { seed, numRuns: RUNS },
    );
    expect(() => objectRefFromWire(null)).toThrow(expect.objectContaining({ code: 'REQ_INVALID' }));
  });
});
